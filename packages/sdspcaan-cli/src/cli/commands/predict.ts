/**
 * `sdspcaan predict`: classifies a data file with a pipeline saved by
 * `fit --pipeline` (standardisation, projection, then the paper's 1-NN) and writes
 * the predicted labels as CSV, one per sample, to --out or standard output. When the
 * data's labels are read (a registry data set, a MAT-file's label variable, --label-col,
 * --labels-file), it also reports the balanced classification accuracy (to standard
 * error when the labels go to standard output, which then holds only the CSV).
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { balancedAccuracy, DataFormatError, type Label, Pipeline, ValidationError } from "sdspcaan";
import { plural } from "../../plural.js";
import { checkOutputFile, writeFileAtomic } from "../outputs.js";
import { oneLineErrors } from "./commandErrors.js";
import { addDataOptions, type DataFlags } from "./dataFlags.js";
import { loadFeatureData } from "./loadData.js";
import { checkFeatureCount, predictData } from "./modelData.js";
import { readModelFile } from "./modelFiles.js";
import { note, out } from "./output.js";
import { addPluginOption } from "./pluginFlag.js";

interface PredictFlags extends DataFlags {
  model: string;
  out: string;
}

function csvField(v: Label): string {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The CSV text of predicted labels: a header "predicted", then one label per line. */
export function labelsCsv(labels: readonly Label[]): string {
  return `${["predicted", ...labels.map(csvField)].join("\n")}\n`;
}

/** Refuses an --out that would overwrite one of the command's own inputs. */
function refuseOverwritingInputs(outPath: string, inputs: Record<string, string>): void {
  const target = resolve(outPath);
  for (const [flag, path] of Object.entries(inputs)) {
    if (resolve(path) === target) {
      throw new ValidationError(
        "out",
        `The '--out' option names ${outPath}, which is the ${flag} input; write the labels to another file.`,
      );
    }
  }
}

export function registerPredictCommand(program: Command): void {
  const cmd = program
    .command("predict")
    .description(
      "Classify a data file with a pipeline saved by 'fit --pipeline' and write the predicted labels as CSV, with the balanced accuracy when the data's labels are read: a registry data set, a MAT-file's label variable (found by name or given with --y-var), --label-col naming a column, or --labels-file. Every column of a CSV or NPY file is a feature unless --label-col names the labels.",
    )
    .requiredOption("--model <pipeline.json>", "a pipeline written by 'sdspcaan fit --pipeline'");
  addDataOptions(
    cmd,
    "data file (MAT, NPY, CSV; labels optional) or registry name, with the model's features",
  );
  cmd
    .option(
      "--out <labels.csv>",
      "where to write the labels ('-', the default, for standard output)",
      "-",
    )
    .action(async (flags: PredictFlags) => {
      const inputs: Record<string, string> = { "--model": flags.model };
      if (flags.data !== undefined) inputs["--data"] = flags.data;
      if (flags.labelsFile !== undefined) inputs["--labels-file"] = flags.labelsFile;
      // The shared output rules also catch an input reached through a link or a hard link.
      const protectedInputs = Object.entries(inputs).map(([what, path]) => ({ path, what }));
      if (flags.out !== "-") {
        refuseOverwritingInputs(flags.out, inputs);
        checkOutputFile("--out", flags.out, protectedInputs);
      }
      const model = readModelFile(flags.model);
      if (!(model instanceof Pipeline)) {
        throw new DataFormatError(
          flags.model,
          `holds a plain ${model.displayName} model, without a classifier: it can transform but not predict; save a pipeline with 'sdspcaan fit --pipeline'`,
        );
      }
      if (!model.canPredict) {
        throw new DataFormatError(
          flags.model,
          "is a pipeline saved without its classifier's reference set, which can transform but not predict; save it with the reference set",
        );
      }
      const data = await loadFeatureData(flags);
      checkFeatureCount(data, model, flags.model);
      const predicted = await predictData(model, data);
      const y = data.y;
      if (y !== null && y.length > 0 && typeof y[0] !== typeof model.classes[0]) {
        throw new DataFormatError(
          data.path,
          `holds ${typeof y[0]} labels, but the pipeline ${flags.model} was fitted on ${typeof model.classes[0]} labels`,
        );
      }
      const score =
        y === null
          ? null
          : // In percent, as evaluate and the reports show BCA.
            `Balanced accuracy on the ${plural(y.length, "labelled sample")} of ${data.name}: ${(100 * balancedAccuracy(y, predicted)).toFixed(2)} %`;
      const text = labelsCsv(predicted);
      if (flags.out === "-") {
        process.stdout.write(text);
        if (score !== null) note(score);
        return;
      }
      writeFileAtomic("--out", flags.out, text, [
        ...protectedInputs,
        { path: data.path, what: "--data" },
      ]);
      out(`Wrote ${plural(predicted.length, "predicted label")} of ${data.name} to ${flags.out}.`);
      if (score !== null) out(score);
    });
  addPluginOption(cmd);
  oneLineErrors(cmd);
}
