/**
 * The paper's Table IV (mean and standard deviation of the test BCA in %, over 10
 * random 20/40/40 splits), transcribed from sdspcaan-paper.tex, so reports can put
 * our numbers beside the published ones. `null` is the paper's "--" (SLNP cannot
 * run where some training class has fewer than 4 samples).
 */
import { methodDescriptors } from "sdspcaan/methods";
import type { MethodName } from "./grids.js";

/** One published cell: mean and standard deviation of the test BCA, in percent. */
export interface PaperCell {
  readonly mean: number;
  readonly std: number;
}

/**
 * The columns of Table IV, in the paper's order: the built-in methods whose
 * descriptor names a `paperColumn` (baseline, pca, jpcda, sdspca, slnp, spcan,
 * sdspca-lpp, sdspcaan).
 */
export const PAPER_METHODS: readonly MethodName[] = Object.freeze(
  methodDescriptors()
    .filter((d) => d.paperColumn !== undefined)
    .sort((a, b) => (a.paperColumn as number) - (b.paperColumn as number))
    .map((d) => d.name),
);

/** The rows of Table IV, in the paper's order (without the Average row). */
export const PAPER_DATASETS = Object.freeze([
  "Musk1",
  "MSRA25",
  "Palm",
  "USPST",
  "Isolet",
  "Yale",
  "ORL",
  "COIL20",
  "YaleB",
] as const);
export type PaperDataset = (typeof PAPER_DATASETS)[number];

type Row = ReadonlyArray<readonly [number, number] | null>;

// Columns in PAPER_METHODS order: [mean, std] in %, null for "--".
const ROWS: Readonly<Record<PaperDataset | "Average", Row>> = {
  Musk1: [
    [79.47, 2.35],
    [76.03, 3.75],
    [74.06, 4.14],
    [77.32, 1.89],
    [66.78, 4.47],
    [71.33, 4.49],
    [78.04, 2.59],
    [77.31, 3.24],
  ],
  MSRA25: [
    [98.15, 0.61],
    [98.89, 0.45],
    [99.73, 0.14],
    [99.77, 0.2],
    [99.76, 0.17],
    [43.36, 11.54],
    [99.68, 0.32],
    [99.78, 0.13],
  ],
  Palm: [
    [90.58, 1.65],
    [96.71, 0.8],
    [97.36, 0.97],
    [96.94, 0.92],
    null,
    [61.45, 3.15],
    [97.14, 1.01],
    [96.88, 0.92],
  ],
  USPST: [
    [68.06, 1.69],
    [85.28, 1.45],
    [86.04, 1.48],
    [87.76, 0.81],
    [81.66, 1.71],
    [17.91, 2.49],
    [87.89, 1.22],
    [87.52, 1.0],
  ],
  Isolet: [
    [66.01, 1.95],
    [83.98, 2.01],
    [81.19, 1.56],
    [84.26, 1.56],
    [91.78, 1.39],
    [75.73, 2.0],
    [86.29, 2.01],
    [86.66, 2.4],
  ],
  Yale: [
    [23.57, 6.31],
    [40.44, 4.55],
    [44.67, 5.87],
    [39.83, 3.55],
    null,
    [47.16, 4.82],
    [38.95, 3.74],
    [48.24, 4.4],
  ],
  ORL: [
    [30.56, 4.0],
    [58.32, 5.19],
    [61.85, 3.76],
    [63.35, 4.21],
    null,
    [69.7, 5.71],
    [63.72, 4.71],
    [69.69, 5.78],
  ],
  COIL20: [
    [62.29, 1.58],
    [93.21, 1.63],
    [94.9, 0.98],
    [94.42, 1.54],
    [92.78, 0.96],
    [92.77, 1.51],
    [95.8, 0.59],
    [97.12, 0.96],
  ],
  YaleB: [
    [50.07, 1.7],
    [78.94, 0.96],
    [83.71, 1.37],
    [78.84, 0.96],
    [80.86, 1.06],
    [78.93, 1.8],
    [79.88, 1.55],
    [80.08, 1.13],
  ],
  Average: [
    [63.2, 1.02],
    [79.09, 0.67],
    [80.39, 1.17],
    [80.27, 0.63],
    null,
    [62.04, 1.94],
    [80.82, 0.65],
    [82.59, 0.92],
  ],
};

function toCells(row: Row): Readonly<Partial<Record<MethodName, PaperCell | null>>> {
  const out: Partial<Record<MethodName, PaperCell | null>> = {};
  PAPER_METHODS.forEach((m, i) => {
    const v = row[i];
    out[m] = v === null ? null : Object.freeze({ mean: v[0], std: v[1] });
  });
  return Object.freeze(out);
}

/** Table IV by dataset, then method. */
export const PAPER_TABLE_IV: Readonly<
  Record<PaperDataset, Readonly<Partial<Record<MethodName, PaperCell | null>>>>
> = Object.freeze(
  Object.fromEntries(PAPER_DATASETS.map((d) => [d, toCells(ROWS[d])])) as Record<
    PaperDataset,
    Readonly<Partial<Record<MethodName, PaperCell | null>>>
  >,
);

/** Table IV's Average row (mean over datasets per repeat, then mean and std). */
export const PAPER_TABLE_IV_AVERAGE: Readonly<Partial<Record<MethodName, PaperCell | null>>> =
  toCells(ROWS.Average);

// File stems of the datasets (data/README.md) and the authors' names for them.
const ALIASES: Readonly<Record<string, PaperDataset>> = {
  musk1: "Musk1",
  clean1: "Musk1",
  msra25: "MSRA25",
  msra25uni: "MSRA25",
  palm: "Palm",
  palmdata25uni: "Palm",
  uspst: "USPST",
  uspstuni: "USPST",
  isolet: "Isolet",
  isolet1: "Isolet",
  yale: "Yale",
  yale32x32: "Yale",
  orl: "ORL",
  orl32x32: "ORL",
  coil20: "COIL20",
  yaleb: "YaleB",
  yaleb32x32: "YaleB",
};

/**
 * The Table IV row name of a dataset name, matched without regard to case,
 * punctuation or a file extension ("ORL_32x32.mat" -> "ORL", "msra25_uni" ->
 * "MSRA25"); null when the paper has no such dataset.
 */
export function paperDatasetName(name: string): PaperDataset | null {
  const stem = name
    .replace(/^.*[\\/]/, "")
    .replace(/\.(mat|csv|npy|data)$/i, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
  return ALIASES[stem] ?? null;
}

/**
 * The published cell for (dataset, method): a PaperCell, null for the paper's
 * "--", undefined when the paper has no such row or column.
 */
export function paperCell(dataset: string, method: string): PaperCell | null | undefined {
  const row = paperDatasetName(dataset);
  if (row === null) return undefined;
  return PAPER_TABLE_IV[row][method as MethodName];
}
