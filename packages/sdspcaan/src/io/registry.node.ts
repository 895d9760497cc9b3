/**
 * The nine data sets of the paper (Table II), plus the UCI text form of Musk1:
 * expected file, variables, shape, classes, checksum, image shape, the download
 * address from the paper's Table II notes, and where the reference copies came
 * from (data/README.md). Fashion-MNIST (not in the paper) is the large data set of
 * the scaling work: its files carry their own train/test split, and it does not
 * ship in data/. Plain data, but only the Node loaders use it: as a `.node.ts` file it
 * stays out of the CommonJS build and the browser entries.
 */

import { type DatasetNames, findByName } from "../formats/manifest.js";
import type { DataFormat } from "../formats/variables.js";

/** A further file of a data set, found in the same directory as its main file. */
export interface CompanionFile {
  /** Path relative to the data directory (as `DatasetEntry.file`). */
  readonly file: string;
  readonly sha256: string;
}

/** The data set's own test set (its samples are not in `samples`). */
export interface PredefinedTestFiles {
  readonly file: CompanionFile;
  /** Its labels (IDX keeps them in a separate file). */
  readonly labels: CompanionFile;
  readonly samples: number;
}

/** One data set of the registry. */
export interface DatasetEntry extends DatasetNames {
  /** Name as in the paper ("Musk1", "YaleB", ...). */
  readonly name: string;
  /** Other names accepted (case-insensitive), e.g. the paper's file name "PalmData25_uni". */
  readonly aliases: readonly string[];
  readonly description: string;
  /** The file name looked for in the data directories. */
  readonly file: string;
  readonly format: DataFormat;
  /** Variable holding X (null for text). */
  readonly xVar: string | null;
  /** Variable holding y; null when the labels are the last column of X's variable or text. */
  readonly yVar: string | null;
  /** "last" when the labels are the last column of the stored matrix. */
  readonly labelColumn?: "last";
  /**
   * Text files: the columns that are not features (identifiers), left out of X as
   * `dropColumns` leaves them (a text column is refused unless dropped).
   */
  readonly dropColumns?: readonly number[];
  readonly samples: number;
  readonly features: number;
  readonly classes: number;
  /** Smallest and largest class size. */
  readonly classSizes: readonly [number, number];
  /** SHA-256 of the reference copy (data/SHA256SUMS). */
  readonly sha256: string;
  /** Height x width when each sample is an image. */
  readonly imageShape: readonly [number, number] | null;
  /** How a sample's pixels are ordered: MATLAB's column-major reshape, or not documented. */
  readonly imageOrder: "column-major" | "row-major" | "unknown" | null;
  /** The address given in the paper's Table II notes. */
  readonly url: string;
  /**
   * "file" when `url` is the data file itself; "page" when it is a web page the
   * file has to be found on (such entries cannot be fetched automatically).
   */
  readonly urlKind: "file" | "page";
  /** Where the reference copy of the file came from. */
  readonly provenance: string;
  readonly notes?: string;
  /** The labels of `file`, when they are kept in a file of their own (IDX). */
  readonly labelsFile?: CompanionFile;
  /**
   * A test set that comes with the data (Fashion-MNIST's 10,000 images): `evaluate`
   * and `experiment` then train on the `samples` of `file` and test on these.
   */
  readonly test?: PredefinedTestFiles;
  /**
   * Directories searched after all the usual ones (see locate.ts), e.g. where a
   * system package installs the data set.
   */
  readonly systemDirs?: readonly string[];
  /**
   * False for a data set that does not ship in the repository's data/ (Fashion-MNIST:
   * 30 MB compressed, and not one of the paper's); it is found in the other data
   * directories only. Default true.
   */
  readonly shipped?: boolean;
}

const UCI_MUSK = "http://archive.ics.uci.edu/ml/datasets/musk+(version+1)";
const NIE_PAGE = "http://www.escience.cn/people/fpnie/index.html";

/**
 * What Deng Cai's 32 x 32 image sets share: MAT v5 with X in `fea` and y in `gnd`, the
 * images stored column-major (MATLAB's reshape), the file in its folder of his Data page.
 */
const caiImages = (folder: string, file: string) =>
  ({
    file,
    format: "mat-v5",
    xVar: "fea",
    yVar: "gnd",
    features: 1024,
    imageShape: [32, 32],
    imageOrder: "column-major",
    url: `http://www.cad.zju.edu.cn/home/dengcai/Data/${folder}/${file}`,
    urlKind: "file",
  }) as const;

/**
 * What the 16 x 16 image sets of the paper's Nie page share: MAT v5, pixel order not
 * documented, and the page (not a file) as the address.
 */
const nieImages = (file: string) =>
  ({
    file,
    format: "mat-v5",
    features: 256,
    imageShape: [16, 16],
    imageOrder: "unknown",
    url: NIE_PAGE,
    urlKind: "page",
  }) as const;

/** The registry, in the order of the paper's Table II (clean1 after Musk1). */
export const DATASETS: readonly DatasetEntry[] = [
  {
    name: "Musk1",
    aliases: ["musk", "musk1.mat"],
    description: "Musk (version 1): 476 conformations of 92 molecules, musk or not",
    file: "Musk1.mat",
    format: "mat-v7.3",
    xVar: "data",
    yVar: null,
    labelColumn: "last",
    samples: 476,
    features: 166,
    classes: 2,
    classSizes: [207, 269],
    sha256: "3903fef6e4156e4682b07e94c71d282ac815a9e01796dbf9f904fcfecc683478",
    imageShape: null,
    imageOrder: null,
    url: UCI_MUSK,
    urlKind: "page",
    provenance: "ZhenhuaShi/SDSPCAAN on GitHub (the authors' repository)",
    notes: "MAT v7.3 (HDF5): `data` is 476 x 167 with the label (0/1) in the last column.",
  },
  {
    name: "clean1",
    aliases: ["musk1-uci", "clean1.data"],
    description: "Musk1 as the UCI text file: molecule, conformation, f1..f166, class",
    file: "clean1.data",
    format: "csv",
    xVar: null,
    yVar: null,
    labelColumn: "last",
    dropColumns: [0, 1],
    samples: 476,
    features: 166,
    classes: 2,
    classSizes: [207, 269],
    sha256: "59e3be669d645a72b2de7e7baa21e7d4e537be918e4320e8dea6aadc9227f379",
    imageShape: null,
    imageOrder: null,
    url: UCI_MUSK,
    urlKind: "page",
    provenance: "doanhlee04/MachineLearning on GitHub (first upload)",
    notes:
      "Same numbers and row order as Musk1.mat; the two name columns (0 and 1) are left out, as declared here, and the labels '1.'/'0.' read as 1/0.",
  },
  {
    name: "MSRA25",
    aliases: ["msra25_uni", "msra"],
    description: "MSRA25 faces: 12 subjects, 16 x 16 images",
    ...nieImages("MSRA25_uni.mat"),
    xVar: "X",
    yVar: "Y",
    samples: 1799,
    classes: 12,
    classSizes: [113, 186],
    sha256: "3c8681c40ebbed2f6dc2d2f30e7c5195e947467e8cf6797faa44753a190cd659",
    provenance: "FWang-sdnu/LPSGL-code on GitHub",
    notes: "Compressed MAT v5; X is stored as uint8 values 0..255; im_height = im_width = 16.",
  },
  {
    name: "Palm",
    aliases: ["palmdata25_uni", "palm.mat"],
    description: "Palm prints: 100 individuals, 20 images each, 16 x 16",
    ...nieImages("Palm.mat"),
    xVar: "X",
    yVar: "Y",
    samples: 2000,
    classes: 100,
    classSizes: [20, 20],
    sha256: "3b47e9294036b9b31c9eb2a6e55173725548bdf3a058cde63307bb7c6f49a431",
    provenance: "hyzhang98/AdaGAE on GitHub",
    notes: "The paper's PalmData25_uni; X float64 in about [-11, 271].",
  },
  {
    name: "USPST",
    aliases: ["uspst.mat", "usps"],
    description: "USPS handwritten digits, the 2007-sample test set, 16 x 16",
    ...nieImages("uspst.mat"),
    xVar: "X",
    yVar: "y",
    samples: 2007,
    classes: 10,
    classSizes: [140, 327],
    sha256: "53577dbe246b303b07e5a03bcd7ea93582c8c2bbfac1508040f829d24c4a4918",
    provenance: "edche/star_svm on GitHub",
    notes: "Uncompressed MAT v5; labels 0..9 in lower-case `y`; idxLabs and idxUnls are not used.",
  },
  {
    name: "Isolet",
    aliases: ["isolet1", "isolet1.mat"],
    description: "Isolet spoken letters (isolet1: 30 speakers, each letter twice)",
    file: "Isolet1.mat",
    format: "mat-v5",
    xVar: "fea",
    yVar: "gnd",
    samples: 1560,
    features: 617,
    classes: 26,
    classSizes: [60, 60],
    sha256: "f643c3cbd2669e1e9a6110943fcf538cfc209db384f3387d33acbbe550376765",
    imageShape: null,
    imageOrder: null,
    url: "http://archive.ics.uci.edu/ml/datasets/ISOLET",
    urlKind: "page",
    provenance: "ma-xu/L21FS on GitHub",
    notes: "26 classes; the paper's Table II says 2, a typo.",
  },
  {
    name: "Yale",
    aliases: ["yale_32x32", "yale_32x32.mat"],
    description: "Yale faces: 15 subjects, 11 images each, 32 x 32",
    ...caiImages("Yale", "Yale_32x32.mat"),
    samples: 165,
    classes: 15,
    classSizes: [11, 11],
    sha256: "beb3cc9f448c1ab786583c8f5429368c299843ee88263f9650ed463004ef7633",
    provenance: "ma-xu/ORL3 on GitHub",
  },
  {
    name: "ORL",
    aliases: ["orl_32x32", "orl_32x32.mat"],
    description: "ORL (AT&T) faces: 40 subjects, 10 images each, 32 x 32",
    ...caiImages("ORL", "ORL_32x32.mat"),
    samples: 400,
    classes: 40,
    classSizes: [10, 10],
    sha256: "c30cb53be2cab2da293eaeb35c1a7c16cad513fa14d0400ad5ed51f03e1ce7c8",
    provenance: "ma-xu/L21FS on GitHub",
  },
  {
    name: "COIL20",
    aliases: ["coil20.mat", "coil"],
    description: "COIL-20 objects: 20 objects, 72 poses each, 32 x 32",
    ...caiImages("COIL20", "COIL20.mat"),
    samples: 1440,
    classes: 20,
    classSizes: [72, 72],
    sha256: "2a35c105dbb327492b90389e55612bcbf39187bc7c408252239903e4ce7d6958",
    provenance: "ma-xu/L21FS on GitHub",
    notes: "fea float64 in [0, 1].",
  },
  {
    name: "YaleB",
    aliases: ["yaleb_32x32", "yaleb_32x32.mat", "extended-yaleb"],
    description: "Extended Yale B faces: 38 subjects, 59-64 images each, 32 x 32",
    ...caiImages("YaleB", "YaleB_32x32.mat"),
    samples: 2414,
    classes: 38,
    classSizes: [59, 64],
    sha256: "3fbbda4eb781b9bb28025189677b6727706e114eb0215bbfd718f1f4fcb54b99",
    provenance: "tansyab1/CNN-Sparse on GitHub (data/YaleB_32x32_ori.mat)",
  },
  {
    name: "FashionMNIST",
    aliases: ["fashion-mnist", "fashion_mnist", "fmnist"],
    description:
      "Fashion-MNIST (Zalando): 28 x 28 greyscale images of 10 kinds of clothing; 60,000 training and 10,000 test images",
    file: "fashion-mnist/train-images-idx3-ubyte.gz",
    format: "idx",
    xVar: null,
    yVar: null,
    samples: 60000,
    features: 784,
    classes: 10,
    classSizes: [6000, 6000],
    sha256: "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7",
    labelsFile: {
      file: "fashion-mnist/train-labels-idx1-ubyte.gz",
      sha256: "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056",
    },
    test: {
      file: {
        file: "fashion-mnist/t10k-images-idx3-ubyte.gz",
        sha256: "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa",
      },
      labels: {
        file: "fashion-mnist/t10k-labels-idx1-ubyte.gz",
        sha256: "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05",
      },
      samples: 10000,
    },
    // Debian's dataset-fashion-mnist package installs the same four files here.
    systemDirs: ["/usr/share/datasets"],
    shipped: false,
    imageShape: [28, 28],
    imageOrder: "row-major",
    url: "https://github.com/zalandoresearch/fashion-mnist",
    urlKind: "page",
    provenance:
      "the original IDX files of zalandoresearch/fashion-mnist (MIT licence), as Debian's dataset-fashion-mnist package installs them",
    notes:
      "Four gzip-compressed IDX files; pixels uint8 0..255 in row-major order; labels 0..9 (6,000 training and 1,000 test images each).",
  },
];

/** Finds a registry entry by name, alias or file name (case-insensitive), or null. */
export function findDataset(nameOrFile: string): DatasetEntry | null {
  return findByName(DATASETS, nameOrFile);
}

/**
 * The entry whose file `path` is: the path ends with the entry's `file` (a data
 * directory, then e.g. `fashion-mnist/train-images-idx3-ubyte.gz`), or null.
 */
export function datasetAtPath(path: string): DatasetEntry | null {
  const p = path.replaceAll("\\", "/").toLowerCase();
  return (
    DATASETS.find((d) => {
      const file = d.file.toLowerCase();
      return p === file || p.endsWith(`/${file}`);
    }) ?? null
  );
}

/** The registry names, for messages. */
export function datasetNames(): string[] {
  return DATASETS.map((d) => d.name);
}
