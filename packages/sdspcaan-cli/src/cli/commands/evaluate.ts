/**
 * `sdspcaan evaluate`: one fit of the protocol on one split (from a split file, the
 * seeded split the experiment would use, or the data set's own test set with every
 * other sample for training), with its validation and test BCA, iterations and fit
 * time.
 */
import type { Command } from "commander";
import { createMethod, ValidationError } from "sdspcaan";
import {
  makeSplit,
  missingClassesReport,
  predefinedTestSplit,
  type Split,
  splitSeed,
} from "sdspcaan/methods";
import { evaluateModel, evaluateOnTest, prepareSplit } from "../../runner/units.node.js";
import { oneLineErrors } from "./commandErrors.js";
import { addDataOptions, type DataFlags } from "./dataFlags.js";
import {
  applyThreads,
  parseInteger,
  parsePreprocess,
  preprocessOption,
  refuseSeedWithSplits,
  threadsOption,
} from "./flags.js";
import { loadData, requireSamples } from "./loadData.js";
import { addMethodOptions, type MethodFlags, methodFromFlags } from "./methodFlags.js";
import { formatDuration, noteWarnings, out } from "./output.js";
import { inPluginTerms } from "./pluginFailure.js";
import { addPluginOption } from "./pluginFlag.js";
import { withFitProgress } from "./progress.js";
import { splitOfFile } from "./splitFiles.js";

interface EvaluateFlags extends DataFlags, MethodFlags {
  splits?: string;
  repeat?: string;
  stratify?: boolean;
  preprocess?: string;
  json?: boolean;
  progress?: boolean;
  threads?: string;
}

export function registerEvaluateCommand(program: Command): void {
  const cmd = program
    .command("evaluate")
    .description(
      "Fit one method on the training part of one split and print the validation and test BCA of the 1-NN classifier, the iterations and the fit time.",
    );
  addDataOptions(cmd);
  cmd
    .option(
      "--splits <file>",
      "split file (JSON {index_base, splits: [{train, val, test}]}); default: the seeded split",
    )
    .option("--repeat <r>", "which split (from 0)", "0")
    .option("--stratify", "stratified seeded split")
    .addOption(preprocessOption())
    .addOption(threadsOption());
  addMethodOptions(cmd, {
    seedHelp:
      "base seed of the seeded split (as in 'experiment'), also the method's seed where it has one (default 0)",
  });
  cmd
    .option("--json", "print JSON (keys valBCA, testBCA, iterations, fitMs, ...)")
    .option("--no-progress", "no progress display")
    .action(async (flags: EvaluateFlags) => {
      const { method, options } = methodFromFlags(flags, cmd);
      const preprocess = parsePreprocess(flags.preprocess);
      const repeat = parseInteger("--repeat", flags.repeat, 0) as number;
      const seed = parseInteger("--seed", flags.seed, 0, 2 ** 32 - 1) ?? 0;
      refuseSeedWithSplits(flags.splits, flags.seed !== undefined, flags.stratify, true);
      const model = createMethod(method, options);
      const data = await loadData(flags);
      requireSamples(data, 3, "a split into training, validation and test parts");
      let split: Split;
      const predefined = flags.splits === undefined ? data.predefinedTest : undefined;
      if (predefined !== undefined) {
        // The data set's own test set; every other sample trains (no validation part).
        if (repeat !== 0 || flags.stratify) {
          throw new ValidationError(
            flags.stratify ? "stratify" : "repeat",
            `${data.name} comes with its own test set, so there is one split: --repeat and --stratify do not apply.`,
          );
        }
        split = predefinedTestSplit(data.X.rows, predefined, { validation: false });
      } else {
        split =
          flags.splits !== undefined
            ? splitOfFile(flags.splits, repeat, data.X.rows)
            : makeSplit(data.X.rows, {
                seed,
                dataset: data.name,
                repeat,
                stratify: flags.stratify === true,
                ...(flags.stratify ? { y: data.y } : {}),
              });
      }
      const missing = missingClassesReport(data.y, split, `${data.name}, this split`);
      const prepared = prepareSplit({ name: data.name, X: data.X, y: data.y }, split, preprocess);
      // The fit runs on this thread: Ctrl-C ends the process (nothing is written).
      applyThreads(flags.threads);
      const { valBCA, testBCA } = await inPluginTerms(method, () => {
        withFitProgress(flags.progress !== false, (callbacks) =>
          model.fitPrepared(prepared.data, callbacks),
        );
        return split.val.length > 0
          ? evaluateModel(model, prepared)
          : { valBCA: null, testBCA: evaluateOnTest(model, prepared) };
      });
      const info = model.fitInfo;
      const result = {
        dataset: data.name,
        method,
        params: model.params,
        repeat,
        ...(predefined !== undefined
          ? { split: "predefined" }
          : flags.splits === undefined
            ? { seed, splitSeed: splitSeed(seed, data.name, repeat) }
            : { splits: flags.splits }),
        preprocess,
        sizes: { train: split.train.length, val: split.val.length, test: split.test.length },
        valBCA,
        testBCA,
        iterations: info.iterations,
        converged: info.converged,
        stopReason: info.stopReason,
        fitMs: info.timings.totalMs,
        outputDim: model.nComponents,
        warnings:
          missing === null
            ? info.warnings
            : [{ code: "missing-classes", ...missing }, ...info.warnings],
      };
      if (flags.json) {
        out(JSON.stringify(result, null, 2));
        noteWarnings(result.warnings);
        return;
      }
      // An option left to the method (null) is shown with the value the fit chose where
      // its diagnostics carry it under the same name (m = 15 (auto)).
      const chosen = (info.details ?? {}) as Record<string, unknown>;
      const shown = (name: string, v: unknown) =>
        v !== null
          ? String(v)
          : typeof chosen[name] === "number"
            ? `${chosen[name]} (auto)`
            : "auto";
      out(
        `${model.displayName} on ${data.name}, ${predefined !== undefined ? "its own test set" : `split ${repeat}`} (train ${split.train.length} / validation ${split.val.length} / test ${split.test.length}, ${preprocess}), ${Object.entries(
          model.params as Record<string, unknown>,
        )
          .filter(([name]) => ["k", "alpha", "beta", "delta", "eta", "m"].includes(name))
          .map(([name, v]) => `${name} = ${shown(name, v)}`)
          .join(", ")}:`,
      );
      if (valBCA !== null) out(`  validation BCA  ${(100 * valBCA).toFixed(2)} %`);
      out(`  test BCA        ${(100 * testBCA).toFixed(2)} %`);
      const ran =
        info.stopReason === "closed-form"
          ? "none (closed form)"
          : `${info.iterations} (${info.converged ? "converged" : `not converged: ${info.stopReason}`})`;
      out(`  iterations      ${ran}`);
      out(`  fit time        ${formatDuration(info.timings.totalMs)}`);
      noteWarnings(result.warnings);
    });
  addPluginOption(cmd);
  oneLineErrors(cmd);
}
