/**
 * `sdspcaan plot`: single figures as SVG and PNG.
 * - `plot bca-vs-k --results DIR --out FIG [--per-dataset]`: test BCA versus k (the
 *   paper's Fig. 1), averaged over data sets or one panel each;
 * - `plot sensitivity --results DIR --out FIG`: SDSPCAAN's BCA over the parameters
 *   the grid varied (Fig. 2: heatmaps over pairs, or a profile over one);
 * - `plot embedding (--model M --data F | --embedding CSV) --out FIG`: the first two
 *   components of an embedding, coloured by class.
 */
import type { Command } from "commander";
import type { Matrix } from "sdspcaan";
import { ValidationError } from "sdspcaan";
import { normalizeMethodName } from "sdspcaan/methods";
import type { ProtectedInput } from "../../io/atomicWrite.js";
import { namingFlags } from "../../io/fileErrors.js";
import { loadFeatures } from "../../io/load.js";
import type { writeFigure } from "../../plot/render.js";
import { resultsPaths } from "../../runner/resultsFile.node.js";
import { readReportSettings } from "../../runner/runner.node.js";
import { readRunResults } from "../../runner/runResults.node.js";
import { checkOutputFile } from "../outputs.js";
import { oneLineErrors } from "./commandErrors.js";
import { addDataFormatOptions, addLabelsFileOption, type DataFlags } from "./dataFlags.js";
import { type ListValue, parseList } from "./flags.js";
import { checkRunFolder } from "./folders.js";
import { loadData } from "./loadData.js";
import { checkFeatureCount, transformData } from "./modelData.js";
import { readModelFile } from "./modelFiles.js";
import { out } from "./output.js";
import { addPluginOption } from "./pluginFlag.js";

function recordsOf(dir: string) {
  checkRunFolder("--results", dir);
  // First the run's plug-ins, as report checks them: a plug-in method's records are
  // read with its options, so one not loaded (--plugin) is named, not its lines.
  const settings = readReportSettings(dir);
  // results.jsonl, or the shards' files of a run cut into shards (docs/cluster.md).
  const parsed = readRunResults(dir);
  if (parsed.records.length === 0) {
    const where = parsed.files.length === 1 ? parsed.files[0] : resultsPaths(dir).results;
    throw new ValidationError("results", `${where} holds no fit record to plot.`);
  }
  return { records: parsed.records, settings };
}

/**
 * The methods `--methods` names (any case, _ for -), each one the run has: a name it
 * lacks is refused with the run's methods rather than left out of the figure.
 */
function chosenMethods(
  value: ListValue | undefined,
  records: readonly { readonly method: string }[],
  settings: { readonly methods: readonly string[] } | null,
  dir: string,
): string[] | undefined {
  const requested = parseList(value);
  if (requested === undefined) return undefined;
  const known = settings?.methods ?? [...new Set(records.map((r) => r.method))];
  if (requested.length === 0) {
    throw new ValidationError(
      "methods",
      `The '--methods' option needs at least one method name; ${dir} has ${known.join(", ")}.`,
    );
  }
  const chosen = requested.map(normalizeMethodName);
  const unknown = requested.filter((_, i) => !known.includes(chosen[i]));
  if (unknown.length > 0) {
    const names = unknown.map((n) => JSON.stringify(n)).join(", ");
    throw new ValidationError(
      "methods",
      `The '--methods' option names ${names}, not ${unknown.length === 1 ? "a method" : "methods"} of this run; ${dir} has ${known.join(", ")}.`,
    );
  }
  return chosen;
}

/**
 * Checks before any work that `--out` can take FIG.svg and FIG.png, and that
 * neither is one of the command's input files.
 */
function checkFigureOut(base: string, inputs: readonly ProtectedInput[] = []): void {
  checkOutputFile("--out", `${base}.svg`, inputs);
  checkOutputFile("--out", `${base}.png`, inputs);
}

/** The files a plot command reads, which its figure must not replace. */
function inputsOf(flags: EmbeddingFlags): ProtectedInput[] {
  const inputs: ProtectedInput[] = [];
  if (flags.model !== undefined) inputs.push({ path: flags.model, what: "--model" });
  if (flags.data !== undefined) inputs.push({ path: flags.data, what: "--data" });
  if (flags.labelsFile !== undefined) {
    inputs.push({ path: flags.labelsFile, what: "--labels-file" });
  }
  if (flags.embedding !== undefined) inputs.push({ path: flags.embedding, what: "--embedding" });
  return inputs;
}

/**
 * The figures' modules (vega, vega-lite, the renderer, the reports' specs), loaded when a
 * plot command runs, so that every other command starts without them.
 */
function figureModules() {
  return Promise.all([
    import("../../plot/render.js"),
    import("../../plot/embedding.js"),
    import("../../reports/figureSpecs.node.js"),
  ]).then(([render, embedding, reports]) => ({ ...render, ...embedding, ...reports }));
}

async function save(spec: Parameters<typeof writeFigure>[0], base: string): Promise<void> {
  const { writeFigure } = await figureModules();
  const written = await writeFigure(spec, base);
  out(`Wrote ${written.svg} and ${written.png}.`);
}

/** The flags that say how to read --data (which plot embedding --embedding does not read). */
const DATA_FLAGS: readonly (readonly [keyof DataFlags, string])[] = [
  ["xVar", "--x-var"],
  ["yVar", "--y-var"],
  ["labelCol", "--label-col"],
  ["labelColumn", "--label-column"],
  ["header", "--header"],
  ["dropColumns", "--drop-columns"],
  ["decimalComma", "--decimal-comma"],
  ["dataDir", "--data-dir"],
  ["labelsFile", "--labels-file"],
];

interface EmbeddingFlags extends DataFlags {
  model?: string;
  embedding?: string;
  out: string;
  title?: string;
}

export function registerPlotCommand(program: Command): void {
  const plot = program
    .command("plot")
    .description("Make one figure (SVG and PNG) from a results directory or an embedding.");
  oneLineErrors(plot);

  const bca = plot
    .command("bca-vs-k")
    .description("Test BCA versus k per method (the paper's Fig. 1) from a results directory.")
    .requiredOption("--results <dir>", "results directory of an experiment")
    .requiredOption("--out <fig>", "output path without extension (writes .svg and .png)")
    .option("--methods <names...>", "methods to draw, separated by commas or spaces (default all)")
    .option("--per-dataset", "one panel per data set instead of the average over data sets")
    .action(
      async (flags: {
        results: string;
        out: string;
        methods?: ListValue;
        perDataset?: boolean;
      }) => {
        checkFigureOut(flags.out);
        const { records, settings } = recordsOf(flags.results);
        const methods = chosenMethods(flags.methods, records, settings, flags.results);
        const used = methods ? records.filter((r) => methods.includes(r.method)) : records;
        if (used.length === 0) {
          throw new ValidationError(
            "methods",
            `No records of ${(methods ?? []).join(", ")} in ${flags.results}.`,
          );
        }
        const { bcaVersusKSpec } = await figureModules();
        await save(
          bcaVersusKSpec(used, settings, undefined, { perDataset: flags.perDataset === true }),
          flags.out,
        );
      },
    );
  addPluginOption(bca);
  oneLineErrors(bca);

  const sens = plot
    .command("sensitivity")
    .description(
      "BCA of SDSPCAAN (or --method) over the parameters its grid varied: heatmaps over pairs of multipliers (the paper's Fig. 2), or a profile per data set when one parameter varied.",
    )
    .requiredOption("--results <dir>", "results directory of an experiment")
    .requiredOption("--out <fig>", "output path without extension (writes .svg and .png)")
    .option(
      "--method <name>",
      "a method with tuned parameters: sdspcaan, sdspca-lpp, sdspca or jpcda",
      "sdspcaan",
    )
    .action(async (flags: { results: string; out: string; method: string }) => {
      checkFigureOut(flags.out);
      const { records, settings } = recordsOf(flags.results);
      const method = flags.method.trim().toLowerCase().replace(/_/g, "-");
      const { sensitivitySpec } = await figureModules();
      const spec = sensitivitySpec(records, settings, method);
      if (spec === null) {
        throw new ValidationError(
          "method",
          `${flags.results} has no ${method} results over at least two values of a parameter; run the experiment with a grid that varies one (e.g. --grid authors or paper).`,
        );
      }
      await save(spec, flags.out);
    });
  addPluginOption(sens);
  oneLineErrors(sens);

  const emb = plot
    .command("embedding")
    .description(
      "Scatter of the first two components of an embedding, coloured by class: from a model and a data file, or from a CSV written by transform.",
    )
    .option("--model <model.json>", "a model written by 'sdspcaan fit' (with --data)")
    .option("--data <file>", "the data to project with --model");
  addDataFormatOptions(emb);
  addLabelsFileOption(emb);
  emb
    .option(
      "--embedding <csv>",
      "an embedding CSV written by 'sdspcaan transform' (coloured by its 'label' column, if any)",
    )
    .requiredOption("--out <fig>", "output path without extension (writes .svg and .png)")
    .option("--title <text>", "figure title")
    .action(async (flags: EmbeddingFlags) => {
      checkFigureOut(flags.out, inputsOf(flags));
      let P: Matrix;
      let labels: Array<string | number>;
      let title: string;
      if (flags.embedding !== undefined) {
        if (flags.model !== undefined || flags.data !== undefined) {
          throw new ValidationError(
            "embedding",
            "Give --embedding, or --model with --data, not both.",
          );
        }
        const idle = DATA_FLAGS.find(([key]) => flags[key] !== undefined);
        if (idle !== undefined) {
          throw new ValidationError(
            idle[1].slice(2),
            `${idle[1]} says how to read --data, and --embedding is read as transform wrote it: drop ${idle[1]}.`,
          );
        }
        // transform writes the label column (named "label") only when the data had labels.
        const ds = await loadFeatures(flags.embedding, { labelColumn: "label" }).catch((err) => {
          if (err instanceof ValidationError && err.argument === "labelColumn") return null;
          throw namingFlags(err, { path: "--embedding" });
        });
        if (ds !== null) {
          P = ds.X;
          labels = [...(ds.y ?? [])];
        } else {
          P = (await loadFeatures(flags.embedding)).X;
          labels = new Array<string>(P.rows).fill("no labels");
        }
        title = `Embedding from ${flags.embedding}`;
      } else {
        if (flags.model === undefined || flags.data === undefined) {
          throw new ValidationError(
            "model",
            "plot embedding needs --model and --data (or --embedding with a CSV from transform).",
          );
        }
        const model = readModelFile(flags.model);
        const data = await loadData(flags);
        checkFeatureCount(data, model, flags.model);
        P = await transformData(model, data);
        labels = data.y;
        title = `${model.displayName} embedding of ${data.name}`;
      }
      if (P.cols < 2) {
        throw new ValidationError(
          "embedding",
          `The embedding has ${P.cols} component; a scatter needs 2.`,
        );
      }
      const x = Array.from({ length: P.rows }, (_, i) => P.data[i * P.cols]);
      const y = Array.from({ length: P.rows }, (_, i) => P.data[i * P.cols + 1]);
      const { embeddingScatter } = await figureModules();
      await save(
        embeddingScatter({ x, y, label: labels }, { title: flags.title ?? title }),
        flags.out,
      );
    });
  addPluginOption(emb);
  oneLineErrors(emb);
}
