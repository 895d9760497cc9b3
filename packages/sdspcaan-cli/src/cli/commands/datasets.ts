/**
 * `sdspcaan datasets list | info | splits | fetch`: the registry's data sets, where
 * they are found, what a data file holds, the split file of a data set with its own
 * test set, and downloading into the cache.
 */
import cliProgress from "cli-progress";
import type { Command } from "commander";
import { type Label, ValidationError } from "sdspcaan";
import { formatBytes } from "sdspcaan/formats";
import {
  encodeLabels,
  PREDEFINED_VAL_FRACTION,
  predefinedTestSplit,
  splitsToJSON,
} from "sdspcaan/methods";
import { type FetchProgress, fetchDataset, sha256File } from "../../io/fetch.js";
import { namingFlags } from "../../io/fileErrors.js";
import { type LoadOptions, openDataset } from "../../io/load.js";
import { dataDirectories, defaultCacheDir, locateDataFile } from "../../io/locate.js";
import { DATASETS, type DatasetEntry } from "../../io/registry.js";
import { plural } from "../../plural.js";
import { checkOutputFile, writeFileAtomic } from "../outputs.js";
import { oneLineErrors } from "./commandErrors.js";
import { addLabelColumnOption, labelColumnFlag, parseLabelColumn } from "./dataFlags.js";
import {
  addDelimitedOptions,
  columnList,
  headerPreview,
  parseDropColumns,
  parseHeaderFlag,
} from "./delimitedFlags.js";
import { parseInteger } from "./flags.js";
import { checkDataDir } from "./folders.js";
import { refuseIdleDataFlags } from "./loadData.js";

function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, j) => Math.max(...rows.map((r) => r[j].length)));
  return rows
    .map((r) =>
      r
        .map((c, j) => c.padEnd(widths[j]))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function listCommand(opts: { dataDir?: string; json?: boolean }): void {
  checkDataDir(opts.dataDir);
  const where = opts.dataDir === undefined ? {} : { dataDir: opts.dataDir };
  const rows = DATASETS.map((d) => ({
    entry: d,
    found: locateDataFile(d.file, { ...where, systemDirs: d.systemDirs }),
  }));
  if (opts.json) {
    out(
      JSON.stringify(
        rows.map(({ entry, found }) => ({
          name: entry.name,
          file: entry.file,
          format: entry.format,
          samples: entry.samples,
          features: entry.features,
          classes: entry.classes,
          sha256: entry.sha256,
          url: entry.url,
          urlKind: entry.urlKind,
          path: found?.path ?? null,
          source: found?.source ?? null,
        })),
        null,
        2,
      ),
    );
    return;
  }
  const header = ["name", "file", "format", "samples x features", "classes", "found"];
  const body = rows.map(({ entry, found }) => [
    entry.name,
    entry.file,
    entry.format,
    `${entry.samples} x ${entry.features}`,
    String(entry.classes),
    found ? `${found.path} (${found.source})` : "missing",
  ]);
  out(table([header, ...body]));
  const dirs = dataDirectories(where)
    .map((d) => `${d.dir} (${d.source})`)
    .join(", ");
  out(`\nsearched, in order: ${dirs}`);
}

interface InfoOptions {
  dataDir?: string;
  json?: boolean;
  xVar?: string;
  yVar?: string;
  labelColumn?: string;
  labelCol?: string;
  labelsFile?: string;
  transpose?: boolean;
  format?: string;
  header?: string;
  dropColumns?: string;
  decimalComma?: boolean;
}

const FORMATS = ["auto", "mat", "hdf5", "npy", "idx", "csv", "tsv"] as const;

async function infoCommand(nameOrPath: string, opts: InfoOptions): Promise<void> {
  if (opts.format !== undefined && !(FORMATS as readonly string[]).includes(opts.format)) {
    throw new ValidationError(
      "format",
      `--format must be one of ${FORMATS.join(", ")}. Got '${opts.format}' instead.`,
    );
  }
  checkDataDir(opts.dataDir);
  const loadOptions: LoadOptions & { dataDir?: string } = {
    dataDir: opts.dataDir,
    xVar: opts.xVar,
    yVar: opts.yVar,
    labelColumn: parseLabelColumn(labelColumnFlag(opts)),
    labelsFile: opts.labelsFile,
    transpose: opts.transpose,
    format: opts.format as LoadOptions["format"],
    header: parseHeaderFlag(opts.header),
    dropColumns: parseDropColumns(opts.dropColumns),
    decimal: opts.decimalComma === true ? "," : undefined,
    // --label-col none: data without labels, described as fit and transform read it.
    labels: labelColumnFlag(opts) === "none" ? "optional" : undefined,
  };
  for (const k of Object.keys(loadOptions) as (keyof typeof loadOptions)[]) {
    if (loadOptions[k] === undefined) delete loadOptions[k];
  }
  const { dataset, path, entry, source } = await openDataset(nameOrPath, loadOptions).catch(
    (err: unknown) => {
      throw namingFlags(err, { labelsFile: "--labels-file" });
    },
  );
  const { X, info } = dataset;
  refuseIdleDataFlags(opts, info.format, path, source !== null);
  if (opts.transpose === true && (info.format === "csv" || info.format === "tsv")) {
    // The text readers take one sample per row and do not read the flag.
    throw new ValidationError(
      "transpose",
      `--transpose turns a stored matrix (MAT, HDF5, NPY, IDX) with samples as columns, and ${path} is a ${info.format.toUpperCase()} file, one sample per row: drop --transpose.`,
    );
  }
  const y = info.yVar === null ? [] : dataset.y;
  const enc = encodeLabels(y as Label[], y.length);
  const classCounts: Record<string, number> = {};
  enc.classes.forEach((c, k) => {
    classCounts[String(c)] = enc.counts[k];
  });
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of X.data) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (X.data.length === 0) {
    min = Number.NaN;
    max = Number.NaN;
  }
  const sha256 = await sha256File(path);
  const checksum = entry ? (sha256 === entry.sha256 ? "ok" : "mismatch") : null;
  const report = {
    name: entry?.name ?? null,
    file: path,
    source,
    format: info.format,
    compressed: info.compressed ?? null,
    samples: X.rows,
    features: X.cols,
    classes: enc.classes.length,
    classCounts,
    min,
    max,
    xVar: info.xVar,
    yVar: info.yVar,
    transposed: info.transposed,
    oneHot: info.oneHot,
    header: info.header ?? null,
    headerDetected: info.headerDetected ?? null,
    droppedColumns: info.droppedColumns ?? [],
    variables: info.variables ?? [],
    imageShape: entry?.imageShape ?? null,
    sha256,
    checksum,
  };
  if (opts.json) {
    out(JSON.stringify(report, null, 2));
    return;
  }
  const lines: [string, string][] = [];
  if (entry) lines.push(["data set", `${entry.name}: ${entry.description}`]);
  lines.push(["file", source ? `${path} (found via ${source})` : path]);
  lines.push([
    "format",
    info.format +
      (info.compressed === undefined
        ? ""
        : info.compressed
          ? " (compressed)"
          : " (not compressed)"),
  ]);
  if (info.variables && info.variables.length > 0) {
    lines.push([
      "variables",
      info.variables.map((v) => `${v.name} ${v.dims.join("x")} ${v.className}`).join(", "),
    ]);
  }
  lines.push([
    "X",
    `${info.xVar ?? "columns"}: ${X.rows} samples x ${X.cols} features${info.transposed ? " (transposed)" : ""}`,
  ]);
  lines.push([
    "y",
    info.yVar === null
      ? "none (--label-col none: every column is a feature)"
      : `${info.yVar}${info.oneHot ? " (one-hot)" : ""}: ${enc.classes.length} classes`,
  ]);
  const counts = Object.entries(classCounts)
    .map(([c, n]) => `${c}: ${n}`)
    .join(", ");
  if (info.yVar !== null) {
    lines.push(["class sizes", counts.length > 400 ? `${counts.slice(0, 400)}...` : counts]);
  }
  lines.push(["values", `min ${min}, max ${max}`]);
  if (info.header !== undefined) {
    lines.push([
      "header",
      `${info.headerDetected === undefined ? "given" : info.headerDetected === "names" ? "detected (names above numbers)" : "detected (pandas' column numbers)"}: ${headerPreview(info.header)}${info.headerDetected === undefined ? "" : " (--header no reads the first row as data)"}`,
    ]);
  }
  if (info.droppedColumns && info.droppedColumns.length > 0) {
    lines.push([
      "dropped",
      `${columnList(info.droppedColumns, info.header)}${entry?.dropColumns ? " (as the registry declares)" : ""}`,
    ]);
  }
  if (entry?.imageShape) {
    lines.push(["images", `${entry.imageShape[0]} x ${entry.imageShape[1]} (${entry.imageOrder})`]);
  }
  lines.push([
    "sha256",
    sha256 +
      (checksum === "ok"
        ? " (matches the registry)"
        : checksum === "mismatch"
          ? ` (differs from the registry's ${entry?.sha256})`
          : ""),
  ]);
  const w = Math.max(...lines.map(([k]) => k.length));
  out(lines.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join("\n"));
}

/** A progress bar on a terminal, otherwise a plain line every few seconds. */
function progressReporter(label: string): { update(p: FetchProgress): void; stop(): void } {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | {got} of {all}`,
        stream: process.stderr,
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update({ received, total }) {
        const payload = {
          got: formatBytes(received),
          all: total === null ? "?" : formatBytes(total),
        };
        if (!started) {
          bar.start(total ?? 0, received, payload);
          started = true;
        } else bar.update(received, payload);
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }
  let last = 0;
  let lastReceived = 0;
  let lastTotal: number | null = null;
  const line = (received: number, total: number | null) =>
    `${label}: ${formatBytes(received)}${total === null ? "" : ` of ${formatBytes(total)} (${Math.floor((100 * received) / Math.max(total, 1))}%)`}\n`;
  return {
    update({ received, total }) {
      lastReceived = received;
      lastTotal = total;
      const now = Date.now();
      if (now - last >= 2000) {
        last = now;
        process.stderr.write(line(received, total));
      }
    },
    stop() {
      if (lastReceived > 0) process.stderr.write(line(lastReceived, lastTotal));
    },
  };
}

async function fetchCommand(
  name: string,
  opts: { dir?: string; url?: string; force?: boolean },
): Promise<void> {
  const progress = progressReporter(`fetch ${name}`);
  let result: Awaited<ReturnType<typeof fetchDataset>>;
  try {
    result = await fetchDataset(name, {
      dir: opts.dir,
      url: opts.url,
      force: opts.force,
      onProgress: (p) => progress.update(p),
    });
  } finally {
    progress.stop();
  }
  const e: DatasetEntry = result.entry;
  out(
    result.downloaded
      ? `${e.name}: saved ${result.path} (${formatBytes(result.bytes)}, SHA-256 verified)`
      : `${e.name}: ${result.path} is already there (SHA-256 verified)`,
  );
}

/**
 * `datasets splits`: the split file of a data set with its own test set, for
 * `experiment --splits`: test = the data set's test samples, validation = a seeded
 * sixth of its training samples (per repeat), training = the rest.
 */
async function splitsCommand(
  name: string,
  opts: { out: string; repeats?: string; seed?: string; dataDir?: string },
): Promise<void> {
  const repeats = parseInteger("--repeats", opts.repeats, 1) ?? 10;
  const seed = parseInteger("--seed", opts.seed, 0, 2 ** 32 - 1) ?? 0;
  // Before the data set is read: a bad --out should not wait for 70,000 images.
  checkOutputFile("--out", opts.out);
  checkDataDir(opts.dataDir);
  const { dataset, entry } = await openDataset(name, opts.dataDir ? { dataDir: opts.dataDir } : {});
  const test = dataset.predefinedTest;
  if (test === undefined) {
    throw new ValidationError(
      "dataset",
      `${entry?.name ?? name} has no test set of its own; 'experiment' draws its seeded splits itself.`,
    );
  }
  const label = entry?.name ?? name;
  const splits = Array.from({ length: repeats }, (_, repeat) =>
    predefinedTestSplit(dataset.X.rows, test, { validation: true, seed, dataset: label, repeat }),
  );
  writeFileAtomic(
    "--out",
    opts.out,
    `${JSON.stringify(splitsToJSON(splits, { dataset: label, seed, predefinedTest: true }))}\n`,
  );
  const s = splits[0];
  out(
    `${label}: ${plural(repeats, "split")} written to ${opts.out}: train ${s.train.length} / validation ${s.val.length} (a seeded ${Math.round(PREDEFINED_VAL_FRACTION * 100)} % of the training samples) / test ${s.test.length} (the data set's own test set)`,
  );
}

export function registerDatasetsCommand(program: Command): void {
  const datasets = program
    .command("datasets")
    .description(
      "The registry's data sets: list them, describe a data file, write the split file of one with its own test set, download into the cache.",
    );

  datasets
    .command("list")
    .description(
      "List the registry and where each file is found (--data-dir, $SDSPCAAN_DATA, the repository's data/, ../shared/data, the cache).",
    )
    .option("--data-dir <dir>", "look here first for data files")
    .option("--json", "print JSON")
    .action((opts: { dataDir?: string; json?: boolean }) => listCommand(opts));

  const info = datasets.command("info");
  info
    .description(
      "Describe a data set (registry name, case-insensitive) or a data file: shape, classes, value range, format.",
    )
    .argument("<dataset>", "registry name (e.g. yale) or path to a MAT/HDF5/NPY/CSV/TSV file")
    .option("--data-dir <dir>", "look here first for data files")
    .option("--x-var <name>", "variable holding X")
    .option("--y-var <name>", "variable holding the labels");
  addLabelColumnOption(
    info,
    "column holding the labels: index from 0 (negative from the end), header name, first, last, or none (every column a feature)",
    "--label-column",
  );
  info
    .option(
      "--labels-file <path>",
      "read the labels from this file (one per line, a 1-D .npy or an idx1 file)",
    )
    .option(
      "--transpose",
      "the stored matrix (MAT, HDF5, NPY, IDX) has samples as columns (default: as rows, unless only its column count matches a label variable's)",
    )
    .option("--format <format>", `force the file format (${FORMATS.join(", ")})`);
  addDelimitedOptions(info)
    .option("--json", "print JSON")
    .action((dataset: string, opts: InfoOptions) => infoCommand(dataset, opts));

  datasets
    .command("splits")
    .description(
      "Write the split file of a data set that comes with its own test set (FashionMNIST), for 'experiment --splits': validation is a seeded sixth of the training samples.",
    )
    .argument("<name>", "registry name, e.g. FashionMNIST")
    .requiredOption("--out <file>", "split file to write (JSON)")
    .option("--repeats <r>", "number of splits (validation draws)", "10")
    .option("--seed <s>", "base seed of the validation draws", "0")
    .option("--data-dir <dir>", "look here first for data files")
    .action(
      (name: string, opts: { out: string; repeats?: string; seed?: string; dataDir?: string }) =>
        splitsCommand(name, opts),
    );

  datasets
    .command("fetch")
    .description(
      "Download a data set of the registry, verify its SHA-256 and save it in the cache.",
    )
    .argument("<name>", "registry name, e.g. yaleb")
    .option("--dir <dir>", `directory to save into (default ${defaultCacheDir()})`)
    .option(
      "--url <url>",
      "download from this address instead (a mirror); the checksum is still verified",
    )
    .option("--force", "download again even if a verified copy exists")
    .action((name: string, opts: { dir?: string; url?: string; force?: boolean }) =>
      fetchCommand(name, opts),
    );
  // Each sub-command's usage errors name its own help ("see 'sdspcaan datasets splits --help'").
  for (const sub of [datasets, ...datasets.commands]) oneLineErrors(sub);
}
