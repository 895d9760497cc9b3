/**
 * `sdspcaan demo`: the paper's protocol end to end on real data, with nothing to
 * download. By default it runs the paper's eight methods with the authors' grid and
 * the authors' preprocessing (z-score over the whole data set) on three of the
 * datasets shipped in the repository's data/ (Yale, ORL and Musk1: the ones small
 * enough for a run of a few minutes; COIL20 alone takes several times longer), over
 * 2 repeats, prints our table beside the paper's Table IV and writes the figures
 * into out/demo.
 *
 * `demo --synthetic` runs instead on a generated data set on which the methods differ
 * (class structure on curved modes in a small subspace, high-variance nuisance
 * directions that mislead PCA, a few gross outliers; see the library's data/synthetic.ts):
 * every registered method, the quick grid, 3 repeats. It needs no file at all, and
 * packages/sdspcaan-cli/test/cli/commands/demo.test.ts runs it as a golden test.
 */
import type { Command } from "commander";
import { ValidationError } from "sdspcaan";
import { makeSyntheticDataset, PREPROCESSINGS } from "sdspcaan/methods";
import { findDataset } from "../../io/registry.js";
import { GRID_PRESETS } from "../../protocol/grids.js";
import { PAPER_METHODS } from "../../protocol/paperTable.js";
import type { ExperimentDataset } from "../../runner/runner.node.js";
import { oneLineErrors } from "./commandErrors.js";
import { runAndReport } from "./experiment.js";
import {
  type ListValue,
  parseInteger,
  parseIntegerList,
  parseList,
  parsePreprocess,
} from "./flags.js";
import { checkDataDir } from "./folders.js";
import { note } from "./output.js";

interface DemoFlags {
  synthetic?: boolean;
  datasets?: ListValue;
  dataDir?: string;
  seed: string;
  out?: string;
  workers?: string;
  samples?: string;
  features?: string;
  classes?: string;
  repeats?: string;
  methods?: ListValue;
  grid?: string;
  kGrid?: ListValue;
  preprocess?: string;
  figures?: boolean;
  progress?: boolean;
  force?: boolean;
}

export const DEMO_DATASET = "Synthetic";

/** What the demo runs on the shipped data unless told otherwise. */
export const DEMO_DEFAULTS = Object.freeze({
  datasets: Object.freeze(["Yale", "ORL", "Musk1"]),
  methods: PAPER_METHODS,
  grid: "authors",
  repeats: 2,
  preprocess: "dataset-zscore",
  out: "out/demo",
});

/** The --synthetic demo's defaults. */
export const SYNTHETIC_DEFAULTS = Object.freeze({
  grid: "quick",
  repeats: 3,
  preprocess: "train-zscore",
  out: "out/demo-synthetic",
});

export function registerDemoCommand(program: Command): void {
  const cmd = program
    .command("demo")
    .description(
      `Run the paper's protocol on real data: the paper's eight methods, the authors' grid and preprocessing (dataset-zscore), ${DEMO_DEFAULTS.repeats} repeats, on ${DEMO_DEFAULTS.datasets.join(", ")} from the repository's data/; print the table beside the paper's Table IV and write the report and figures into ${DEMO_DEFAULTS.out} (a few minutes on two cores). With --synthetic: every method on a generated data set where they differ (quick grid, ${SYNTHETIC_DEFAULTS.repeats} repeats, into ${SYNTHETIC_DEFAULTS.out}); needs no data file.`,
    )
    .option("--synthetic", "run on generated data instead of the paper's datasets")
    .option(
      "--datasets <names...>",
      `registry data sets, separated by commas or spaces (default ${DEMO_DEFAULTS.datasets.join(",")}; not with --synthetic)`,
    )
    .option("--data-dir <dir>", "folder searched first for the data sets (see 'datasets list')")
    .option("--seed <s>", "seed of the splits (and of the generated data)", "0")
    .option(
      "--out <dir>",
      `results directory (default ${DEMO_DEFAULTS.out}, or ${SYNTHETIC_DEFAULTS.out} with --synthetic)`,
    )
    .option("--workers <n>", "worker threads (default: one per core)")
    .option(
      "--repeats <n>",
      `splits per data set (default ${DEMO_DEFAULTS.repeats}, ${SYNTHETIC_DEFAULTS.repeats} with --synthetic)`,
    )
    .option(
      "--methods <names...>",
      `methods (separated by commas or spaces), or all (default the paper's: ${PAPER_METHODS.join(",")}; all with --synthetic)`,
    )
    .option(
      "--grid <grid>",
      `hyperparameter grid: ${GRID_PRESETS.join(", ")} or custom (default ${DEMO_DEFAULTS.grid}, ${SYNTHETIC_DEFAULTS.grid} with --synthetic)`,
    )
    .option("--k-grid <k...>", "candidate k values (default 10,20,...,100, filtered per data set)")
    .option(
      "--preprocess <how>",
      `${PREPROCESSINGS.join(", ")} (default ${DEMO_DEFAULTS.preprocess}, ${SYNTHETIC_DEFAULTS.preprocess} with --synthetic)`,
    )
    .option("--samples <n>", "with --synthetic: samples of the generated data (default 300)")
    .option("--features <d>", "with --synthetic: features of the generated data (default 128)")
    .option("--classes <c>", "with --synthetic: classes of the generated data (default 6)")
    .option("--no-figures", "write the tables only")
    .option("--no-progress", "no progress display")
    .option("--force", "resume even if --out holds a run with different settings")
    .action(async (flags: DemoFlags) => {
      const seed = parseInteger("--seed", flags.seed, 0, 2 ** 32 - 1) as number;
      const workers = parseInteger("--workers", flags.workers, 1, 256);
      const kGrid = parseIntegerList("--k-grid", flags.kGrid);
      const synthetic = flags.synthetic === true;
      const defaults = synthetic ? SYNTHETIC_DEFAULTS : DEMO_DEFAULTS;
      const repeats = parseInteger("--repeats", flags.repeats) ?? defaults.repeats;
      const preprocess = parsePreprocess(flags.preprocess ?? defaults.preprocess);
      const methods = parseList(flags.methods);
      const out = flags.out ?? defaults.out;
      // Every flag is checked before the data set is described, so a refusal is one line.
      const datasets = synthetic ? syntheticDataset(flags, seed) : shippedDatasets(flags);
      await runAndReport(
        {
          datasets,
          methods:
            methods === undefined || methods.length === 0
              ? synthetic
                ? "all"
                : [...DEMO_DEFAULTS.methods]
              : methods,
          grid: flags.grid ?? defaults.grid,
          ...(kGrid ? { kGrid } : {}),
          repeats,
          seed,
          preprocess,
          ...(workers !== undefined ? { workers } : {}),
          inProcess: false,
          out,
          force: flags.force === true,
        },
        {
          out,
          showProgress: flags.progress !== false,
          figures: flags.figures !== false,
          comparePaper: !synthetic,
        },
      );
    });
  oneLineErrors(cmd);
}

/** Refuses the first of `given` (flag -> value) that was given, with `why(flag)`. */
function refuseFlags(
  given: Readonly<Record<string, unknown>>,
  why: (flag: string) => string,
): void {
  for (const [flag, value] of Object.entries(given)) {
    if (value !== undefined) throw new ValidationError(flag.slice(2), why(flag));
  }
}

/** The generated data set of `demo --synthetic`. */
function syntheticDataset(flags: DemoFlags, seed: number): ExperimentDataset[] {
  refuseFlags(
    { "--datasets": flags.datasets, "--data-dir": flags.dataDir },
    (flag) =>
      `${flag} names registry data sets, which 'demo --synthetic' does not use; drop one of them.`,
  );
  const samples = parseInteger("--samples", flags.samples, 6);
  const features = parseInteger("--features", flags.features, 2);
  const classes = parseInteger("--classes", flags.classes, 2);
  const ds = makeSyntheticDataset({
    seed,
    ...(samples !== undefined ? { samples } : {}),
    ...(features !== undefined ? { features } : {}),
    ...(classes !== undefined ? { classes } : {}),
  });
  const o = ds.options;
  note(
    `Demo data: ${o.samples} samples x ${o.features} features, ${o.classes} classes of ${o.modesPerClass} curved modes in a ${o.signalDim}-dimensional subspace, ${o.nuisanceDim} nuisance directions, ${ds.outliers.length} outliers (seed ${seed}).`,
  );
  return [
    { name: DEMO_DATASET, X: ds.X, y: ds.y, origin: { kind: "synthetic", options: { ...o } } },
  ];
}

/** The registry data sets of the default demo, found as every command finds them. */
function shippedDatasets(flags: DemoFlags): ExperimentDataset[] {
  refuseFlags(
    { "--samples": flags.samples, "--features": flags.features, "--classes": flags.classes },
    (flag) =>
      `${flag} sizes the generated data of 'demo --synthetic'; add --synthetic or drop ${flag}.`,
  );
  checkDataDir(flags.dataDir);
  const names = parseList(flags.datasets) ?? [...DEMO_DEFAULTS.datasets];
  if (names.length === 0) {
    throw new ValidationError("datasets", "--datasets needs at least one registry name.");
  }
  const entries = names.map((name) => {
    const entry = findDataset(name);
    if (entry === null) {
      throw new ValidationError(
        "datasets",
        `--datasets: '${name}' is not a data set of the registry (see 'sdspcaan datasets list').`,
      );
    }
    return entry;
  });
  note(
    `Demo: the paper's protocol on ${entries.map((e) => `${e.name} (${e.samples} x ${e.features}, ${e.classes} classes)`).join(", ")}.`,
  );
  const load = flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {};
  return entries.map((e) => ({ source: e.name, load }));
}
