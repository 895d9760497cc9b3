/**
 * `sdspcaan demo`: the protocol end to end without any file. It generates a
 * labelled high-dimensional data set on which the methods differ (class structure
 * on curved modes in a small subspace, high-variance nuisance directions that
 * mislead PCA, a few gross outliers; see src/experiment/synthetic.ts), runs every
 * registered method on the quick grid with 3 repeats, prints the table and writes
 * the figures.
 */
import type { Command } from "commander";
import { GRID_PRESETS } from "../../experiment/grids.js";
import { makeSyntheticDataset } from "../../experiment/synthetic.js";
import { runAndReport } from "./experiment.js";
import { note, oneLineErrors, parseInteger, parseList } from "./shared.js";

interface DemoFlags {
  seed: string;
  out: string;
  workers?: string;
  samples?: string;
  features?: string;
  classes?: string;
  repeats: string;
  methods: string;
  grid: string;
  figures?: boolean;
  progress?: boolean;
  force?: boolean;
}

export const DEMO_DATASET = "Synthetic";

export function registerDemoCommand(program: Command): void {
  const cmd = program
    .command("demo")
    .description(
      "Generate a labelled high-dimensional data set where the methods differ, run the protocol on it with every registered method (quick grid, 3 repeats), print the table and write the figures. Needs no data file.",
    )
    .option("--seed <s>", "seed of the data and of the splits", "0")
    .option("--out <dir>", "results directory", "sdspcaan-demo")
    .option("--workers <n>", "worker threads (default: one per core)")
    .option("--samples <n>", "samples of the generated data (default 300)")
    .option("--features <d>", "features of the generated data (default 128)")
    .option("--classes <c>", "classes of the generated data (default 6)")
    .option("--repeats <n>", "splits", "3")
    .option("--methods <list>", "comma-separated methods, or all", "all")
    .option("--grid <grid>", `hyperparameter grid (${GRID_PRESETS.join(", ")} or custom)`, "quick")
    .option("--no-figures", "write the tables only")
    .option("--no-progress", "no progress display")
    .option("--force", "resume even if --out holds a run with different settings")
    .action(async (flags: DemoFlags) => {
      const seed = parseInteger("--seed", flags.seed, 0, 2 ** 32 - 1) as number;
      const samples = parseInteger("--samples", flags.samples, 6);
      const features = parseInteger("--features", flags.features, 2);
      const classes = parseInteger("--classes", flags.classes, 2);
      const workers = parseInteger("--workers", flags.workers, 1, 256);
      const repeats = parseInteger("--repeats", flags.repeats) as number;
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
      const methods = parseList(flags.methods);
      await runAndReport(
        {
          datasets: [
            {
              name: DEMO_DATASET,
              X: ds.X,
              y: ds.y,
              origin: { kind: "synthetic", options: { ...o } },
            },
          ],
          methods: methods === undefined || methods.length === 0 ? "all" : methods,
          grid: flags.grid,
          repeats,
          seed,
          ...(workers !== undefined ? { workers } : {}),
          inProcess: false,
          out: flags.out,
          force: flags.force === true,
        },
        {
          out: flags.out,
          showProgress: flags.progress !== false,
          figures: flags.figures !== false,
          comparePaper: false,
        },
      );
    });
  oneLineErrors(cmd);
}
