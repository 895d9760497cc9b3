/**
 * `sdspcaan transform`: projects a data file with a saved model (applying the
 * model's saved preprocessing first) and writes the embedding as CSV, one row per
 * sample: c1..ck, then the label when the data has labels, unless --no-labels.
 *
 * New data usually has no labels, so every column of a CSV/NPY (the whole data
 * variable of a MAT-file) is a feature unless --label-col or --y-var names the
 * labels; the feature count must then match the model's.
 */
import type { Command } from "commander";
import type { Label, Matrix } from "sdspcaan";
import { checkOutputFile, writeFileAtomic } from "../outputs.js";
import { oneLineErrors } from "./commandErrors.js";
import { addDataOptions, type DataFlags } from "./dataFlags.js";
import { loadFeatureData } from "./loadData.js";
import { checkFeatureCount, transformData } from "./modelData.js";
import { readModelFile } from "./modelFiles.js";
import { out } from "./output.js";
import { addPluginOption } from "./pluginFlag.js";

interface TransformFlags extends DataFlags {
  model: string;
  out: string;
  labels?: boolean;
}

function csvField(v: Label): string {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The CSV text of an embedding (header c1..ck[,label]; numbers in shortest round-trip form). */
export function embeddingCsv(P: Matrix, labels: readonly Label[] | null): string {
  const header = Array.from({ length: P.cols }, (_, j) => `c${j + 1}`);
  if (labels) header.push("label");
  const lines = [header.join(",")];
  for (let i = 0; i < P.rows; i++) {
    const row = Array.from(P.data.subarray(i * P.cols, (i + 1) * P.cols), (v) => String(v));
    if (labels) row.push(csvField(labels[i]));
    lines.push(row.join(","));
  }
  return `${lines.join("\n")}\n`;
}

export function registerTransformCommand(program: Command): void {
  const cmd = program
    .command("transform")
    .description(
      "Project a data file with a model saved by fit (its preprocessing is applied first) and write the embedding as CSV: c1..ck, and the label when the data has labels. Every column is a feature unless --label-col or --y-var names the labels.",
    )
    .requiredOption("--model <model.json>", "a model written by 'sdspcaan fit'");
  addDataOptions(
    cmd,
    "data file (MAT, NPY, CSV; labels optional) or registry name, with the model's features",
  );
  cmd
    .option(
      "--out <embedding.csv>",
      "where to write the embedding ('-', the default, for standard output)",
      "-",
    )
    .option("--no-labels", "leave the label column out even when the data has labels")
    .action(async (flags: TransformFlags) => {
      const inputs = [
        { path: flags.model, what: "--model" },
        ...(flags.data !== undefined ? [{ path: flags.data, what: "--data" }] : []),
        ...(flags.labelsFile !== undefined
          ? [{ path: flags.labelsFile, what: "--labels-file" }]
          : []),
      ];
      if (flags.out !== "-") checkOutputFile("--out", flags.out, inputs);
      const model = readModelFile(flags.model);
      const data = await loadFeatureData(flags);
      checkFeatureCount(data, model, flags.model);
      const P = await transformData(model, data);
      const text = embeddingCsv(P, flags.labels === false ? null : data.y);
      if (flags.out === "-") {
        process.stdout.write(text);
        return;
      }
      writeFileAtomic("--out", flags.out, text, [...inputs, { path: data.path, what: "--data" }]);
      out(`Wrote ${P.rows} x ${P.cols} embedding of ${data.name} to ${flags.out}.`);
    });
  addPluginOption(cmd);
  oneLineErrors(cmd);
}
