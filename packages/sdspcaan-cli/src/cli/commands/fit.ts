/**
 * `sdspcaan fit`: fits one method on a data file (all rows, or the training part
 * of one split) and saves the model as JSON. The feature preprocessing (default
 * train-zscore) is saved in the same file under "preprocessing", and `transform`
 * applies it before the projection. With --pipeline the file is a Pipeline (the
 * model and the 1-NN classifier's reference set, methods/pipeline.ts) that
 * `predict` uses; `transform` reads both. A CSV header's names are saved with the
 * model, so that later files are matched to them by name.
 */
import type { Command } from "commander";
import { createMethod, type Label, Pipeline, Standardizer, ValidationError } from "sdspcaan";
import { methodDescriptor } from "sdspcaan/methods";
import { checkOutputFile, writeFileAtomic } from "../outputs.js";
import { oneLineErrors } from "./commandErrors.js";
import { addDataOptions, type DataFlags, withoutLabels } from "./dataFlags.js";
import {
  applyThreads,
  flagGiven,
  parseInteger,
  parsePreprocess,
  preprocessOption,
  threadsOption,
} from "./flags.js";
import { loadData, loadFeatureData, requireSamples } from "./loadData.js";
import { addMethodOptions, type MethodFlags, methodFromFlags } from "./methodFlags.js";
import { fitEnding, formatDuration, noteWarnings, out } from "./output.js";
import { inPluginTerms } from "./pluginFailure.js";
import { addPluginOption } from "./pluginFlag.js";
import { withFitProgress } from "./progress.js";
import { splitOfFile } from "./splitFiles.js";

interface FitFlags extends DataFlags, MethodFlags {
  splits?: string;
  repeat?: string;
  trainAll?: boolean;
  preprocess?: string;
  out: string;
  progress?: boolean;
  threads?: string;
  pipeline?: boolean;
}

export function registerFitCommand(program: Command): void {
  const cmd = program
    .command("fit")
    .description(
      "Fit one method on a data file (all rows with --train-all, the default, or the training part of split --repeat of --splits) and save the model as JSON, with the preprocessing that transform applies.",
    );
  addDataOptions(cmd);
  cmd
    .option("--splits <file>", "split file (JSON {index_base, splits: [{train, val, test}]})")
    .option("--repeat <r>", "which split of --splits (from 0)", "0")
    .option("--train-all", "train on every row (the default without --splits)")
    .addOption(preprocessOption())
    .addOption(threadsOption());
  addMethodOptions(cmd, {
    seedHelp: "seed of the method's own randomness (refused for a method without any)",
  });
  cmd
    .requiredOption("--out <model.json>", "where to write the model")
    .option(
      "--pipeline",
      "save a pipeline that predicts (the model with the 1-NN classifier's reference set: about k numbers and a label per training sample more); 'sdspcaan predict' needs one",
    )
    .option("--no-progress", "no progress display")
    .action(async (flags: FitFlags) => {
      const { method, options } = methodFromFlags(flags, cmd);
      const inputs = [
        ...(flags.data !== undefined ? [{ path: flags.data, what: "--data" }] : []),
        ...(flags.splits !== undefined ? [{ path: flags.splits, what: "--splits" }] : []),
        ...(flags.labelsFile !== undefined
          ? [{ path: flags.labelsFile, what: "--labels-file" }]
          : []),
      ];
      checkOutputFile("--out", flags.out, inputs);
      if (flags.splits !== undefined && flags.trainAll) {
        throw new ValidationError(
          "splits",
          "Give --splits (train on one split) or --train-all, not both.",
        );
      }
      if (flags.splits === undefined && flagGiven(cmd, "repeat")) {
        throw new ValidationError(
          "repeat",
          "--repeat picks a split of --splits; without --splits fit trains on every row: give --splits FILE or drop --repeat.",
        );
      }
      if (flags.seed !== undefined && !Object.hasOwn(options, "seed")) {
        throw new ValidationError(
          "seed",
          `${methodDescriptor(method).displayName} has no randomness, so --seed does not apply; drop it.`,
        );
      }
      const preprocess = parsePreprocess(flags.preprocess);
      const model = createMethod(method, options);
      // `--label-col none`: data without labels, for the methods that need none.
      const unlabelled = withoutLabels(flags);
      if (unlabelled && flags.pipeline) {
        throw new ValidationError(
          "pipeline",
          "--pipeline saves a classifier, which needs the class labels, but --label-col none says the data has none.",
        );
      }
      if (unlabelled && model.supervised) {
        throw new ValidationError(
          "label-col",
          `${model.displayName} is supervised and needs the class labels, but --label-col none says the data has none.`,
        );
      }
      const data = unlabelled ? await loadFeatureData(flags) : await loadData(flags);
      requireSamples(data, 2, "fitting a model");
      let rows: Int32Array | null = null;
      let repeat: number | null = null;
      if (flags.splits !== undefined) {
        repeat = parseInteger("--repeat", flags.repeat, 0) as number;
        rows = splitOfFile(flags.splits, repeat, data.X.rows).train;
      } else if (data.predefinedTest !== undefined) {
        // A data set with its own test set (Fashion-MNIST): fit on its training part
        // only, so that the model never sees the images it will be tested on.
        const isTest = new Uint8Array(data.X.rows);
        for (const i of data.predefinedTest) isTest[i] = 1;
        const training: number[] = [];
        for (let i = 0; i < data.X.rows; i++) if (isTest[i] === 0) training.push(i);
        rows = Int32Array.from(training);
      }
      const Xtrain = rows === null ? data.X : data.X.selectRows(rows);
      const y = data.y;
      const ytrain = y === null || rows === null ? y : Array.from(rows, (i) => y[i]);
      // dataset-zscore uses every row, as the authors did; train-zscore only the training rows.
      const standardizer =
        preprocess === "none"
          ? null
          : Standardizer.fit(preprocess === "dataset-zscore" ? data.X : Xtrain, {
              method: preprocess,
            });
      // A fit runs on this thread: Ctrl-C ends the process, and as the model is
      // written only at the end (atomically) nothing half-written is left behind.
      applyThreads(flags.threads);
      const featureNames = data.featureNames;
      let saved: object;
      if (flags.pipeline) {
        // The pipeline standardises itself: on the training rows, or with the
        // statistics of every row (dataset-zscore) it is given.
        const pipeline = new Pipeline(model, {
          preprocessing:
            preprocess === "dataset-zscore" && standardizer !== null
              ? standardizer.toJSON()
              : preprocess === "none"
                ? "none"
                : "train-zscore",
        });
        const labels = ytrain as Label[];
        await inPluginTerms(method, () =>
          withFitProgress(flags.progress !== false, (callbacks) =>
            pipeline.fit(Xtrain, labels, { ...callbacks, featureNames }),
          ),
        );
        saved = pipeline.toJSON();
      } else {
        await inPluginTerms(method, () =>
          withFitProgress(flags.progress !== false, (callbacks) =>
            model.fit(standardizer === null ? Xtrain : standardizer.transform(Xtrain), ytrain, {
              ...callbacks,
              featureNames,
            }),
          ),
        );
        model.setPreprocessing(standardizer === null ? null : standardizer.toJSON());
        saved = model.toJSON();
      }
      writeFileAtomic("--out", flags.out, `${JSON.stringify(saved, null, 2)}\n`, [
        ...inputs,
        { path: data.path, what: "--data" },
      ]);
      const info = model.fitInfo;
      const where =
        rows === null
          ? "all rows"
          : repeat === null
            ? `its ${rows.length} training samples; its own test set left out`
            : `the training part of split ${repeat}`;
      // A method may output another number of components than k (JPCDA: one per class).
      const shape =
        model.nComponents === options.k
          ? `k = ${String(options.k)}`
          : `k = ${String(options.k)}, ${model.nComponents} output components`;
      out(
        `Fitted ${model.displayName} (${shape}) on ${Xtrain.rows} samples x ${Xtrain.cols} features of ${data.name} (${where}, ${preprocess}): ${fitEnding(info)}, ${formatDuration(info.timings.totalMs)}. Wrote ${flags.pipeline ? "the pipeline (model and 1-NN classifier) to " : ""}${flags.out}.`,
      );
      noteWarnings(info.warnings);
    });
  addPluginOption(cmd);
  oneLineErrors(cmd);
}
