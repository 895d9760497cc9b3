/** The "did you mean" of option names: only a plausible typo of an option the method has. */
import {
  Matrix,
  PCA,
  Pipeline,
  SDSPCAAN,
  Standardizer,
  stratifiedSplit,
  TrainingData,
  ValidationError,
} from "sdspcaan";
import {
  DelimitedReader,
  parseBytes,
  parseBytesAs,
  parseBytesSync,
  parseDelimited,
} from "sdspcaan/formats";
import { contractChecks, makeSplit, makeSplits, parseSplitFile } from "sdspcaan/methods";
import {
  dataDirectories,
  fitAsync,
  listVariables,
  loadDataset,
  loadDatasetFile,
  loadFeatures,
  loadLabels,
  locateDataFile,
  openDataset,
  parseDataset,
  parseDatasetSync,
  parseMat,
  peekHeader,
  streamDataset,
} from "sdspcaan/node";
import { fitInWorker, WorkerChannel } from "sdspcaan/worker";
import { errorOf, rejectionOf, smallRows } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { checkOptionNames, closestName, optionNames } from "#internal/core/options.js";

describe("closestName", () => {
  it.each([
    ["kk", ["k"], "k"],
    ["alpah", ["alpha", "beta", "delta"], "alpha"],
    ["neighbors", ["k", "neighbours"], "neighbours"],
    ["maxiter", ["maxIter", "tol"], "maxIter"],
    ["m", ["k", "neighbours"], null],
    ["delta", ["k", "alpha", "beta"], null],
    ["bogus", ["k", "eps"], null],
  ])("%s among %j -> %s", (given, names, expected) => {
    expect(closestName(given, names)).toBe(expected);
  });
});

describe("every options object refuses a name it does not take", () => {
  const { X, y } = smallRows();
  const fitted = () => new PCA({ k: 2 }).fit(X);
  const pipeline = () => new Pipeline(new PCA({ k: 2 })).fit(X, y);
  const bytes = new TextEncoder().encode("1,2,0\n3,4,1\n");
  // Never read: the options are refused before the file is opened.
  const path = "no-such-file.csv";
  const fit = "onProgress, signal, featureNames";
  const transform = "featureNames, onWarning";
  const delimited = "maxBytes, delimiter, header, labelColumn, labels, dropColumns, decimal";
  const parse =
    "labels, xVar, yVar, labelColumn, transpose, delimiter, header, dropColumns, decimal, maxBytes, format";
  const load = `${parse}, labelsFile`;
  const locate = "dataDir, env, cwd, repositoryDir, cacheDir, systemDirs";
  const fakeWorker = {
    postMessage() {},
    addEventListener() {},
    removeEventListener() {},
    terminate() {},
  };
  const cases: [string, string, (bad: Record<string, unknown>) => unknown][] = [
    ["PCA.fit", fit, (o) => new PCA({ k: 2 }).fit(X, null, o)],
    ["PCA.fitTransform", fit, (o) => new PCA({ k: 2 }).fitTransform(X, null, o)],
    [
      "PCA.fitPrepared",
      "onProgress, signal",
      (o) => new PCA({ k: 2 }).fitPrepared(TrainingData.prepareForOneFit(X, y), o),
    ],
    ["PCA.transform", transform, (o) => fitted().transform(X, o)],
    ["Pipeline", "preprocessing, classifier", (o) => new Pipeline(new PCA({ k: 2 }), o)],
    ["Pipeline.fit", fit, (o) => new Pipeline(new PCA({ k: 2 })).fit(X, y, o)],
    ["Pipeline.transform", transform, (o) => pipeline().transform(X, o)],
    ["Pipeline.predict", transform, (o) => pipeline().predict(X, o)],
    ["Pipeline.score", transform, (o) => pipeline().score(X, y, o)],
    ["Pipeline.toJSON", "referenceSet", (o) => pipeline().toJSON(o)],
    ["Standardizer.fit", "method, floor", (o) => Standardizer.fit(new Matrix(2, 2), o)],
    ["stratifiedSplit", "train, validation, test, seed", (o) => stratifiedSplit(y, o)],
    [
      "makeSplit",
      "seed, dataset, repeat, stratify, y, fractions",
      (o) => makeSplit(10, { seed: 1, dataset: "d", repeat: 0, ...o }),
    ],
    [
      "makeSplits",
      "seed, dataset, stratify, y, fractions, repeats",
      (o) => makeSplits(10, { seed: 1, dataset: "d", repeats: 1, ...o }),
    ],
    ["parseSplitFile", "allowSubset", (o) => parseSplitFile("{}", 10, o)],
    ["contractChecks", "options, data", (o) => contractChecks("pca", o)],
    ["parseDelimited", delimited, (o) => parseDelimited(bytes, "t.csv", o)],
    ["DelimitedReader", delimited, (o) => new DelimitedReader("t.csv", o)],
    ["parseBytesSync", parse, (o) => parseBytesSync(bytes, "t.csv", o)],
    ["parseDatasetSync", load, (o) => parseDatasetSync(bytes, "t.csv", o)],
    ["dataDirectories", locate, (o) => dataDirectories(o)],
    ["locateDataFile", locate, (o) => locateDataFile("x.mat", o)],
    ["WorkerChannel", "sharedMemory", (o) => new WorkerChannel(fakeWorker, o)],
  ];
  it.each(cases)("%s", (owner, valid, call) => {
    const err = errorOf(() => call({ bogusOption: 1 }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).argument).toBe("bogusOption");
    expect(err.message).toBe(`${owner} has no option 'bogusOption'. Valid options: ${valid}.`);
  });

  const asyncCases: [string, string, (bad: Record<string, unknown>) => Promise<unknown>][] = [
    ["parseBytes", parse, (o) => parseBytes(bytes, "t.csv", o)],
    ["parseBytesAs", parse, (o) => parseBytesAs(bytes, "t.csv", "csv", o)],
    ["parseDataset", load, (o) => parseDataset(bytes, "t.csv", o)],
    ["parseMat", load.replace(", format", ""), (o) => parseMat(bytes, "t.mat", o)],
    ["loadDatasetFile", load, (o) => loadDatasetFile(path, o)],
    ["loadFeatures", load.replace("labels, ", ""), (o) => loadFeatures(path, o)],
    ["loadDataset", `${load}, ${locate}`, (o) => loadDataset(path, o)],
    ["openDataset", `${load}, ${locate}`, (o) => openDataset(path, o)],
    ["loadLabels", "maxBytes", (o) => loadLabels(path, o)],
    ["listVariables", "maxBytes", (o) => listVariables(path, o)],
    ["streamDataset", parse, (o) => streamDataset(path, o)],
    ["peekHeader", parse, (o) => peekHeader(path, o)],
    ["fitAsync", fit, (o) => fitAsync(new PCA({ k: 2 }), X, null, o)],
    ["fitInWorker", "onProgress, signal", (o) => fitInWorker(fakeWorker, { method: "pca", X }, o)],
    [
      "fitInWorker",
      "method, options, X, y, featureNames, pipeline",
      (o) => fitInWorker(fakeWorker, { method: "pca", X, ...o }),
    ],
  ];
  it.each(asyncCases)("%s (%#)", async (owner, valid, call) => {
    const err = await rejectionOf(call({ bogusOption: 1 }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(`${owner} has no option 'bogusOption'. Valid options: ${valid}.`);
  });

  it("names the option a misspelt one is closest to, as the constructors do", async () => {
    const onProgress = () => {};
    expect(
      errorOf(() => new SDSPCAAN({ k: 2 }).fit(X, y, { onProgres: onProgress } as never)).message,
    ).toBe(
      `SDSPCAAN.fit has no option 'onProgres' (did you mean 'onProgress'?). Valid options: ${fit}.`,
    );
    expect(
      errorOf(() => new Pipeline(new PCA({ k: 2 }), { preprocesing: "none" } as never)).message,
    ).toBe(
      "Pipeline has no option 'preprocesing' (did you mean 'preprocessing'?). Valid options: preprocessing, classifier.",
    );
    expect(errorOf(() => pipeline().toJSON({ refrenceSet: "none" } as never)).message).toBe(
      "Pipeline.toJSON has no option 'refrenceSet' (did you mean 'referenceSet'?). Valid options: referenceSet.",
    );
    expect((await rejectionOf(loadDataset(path, { labelCol: "species" } as never))).message).toBe(
      `loadDataset has no option 'labelCol' (did you mean 'labelColumn'?). Valid options: ${load}, ${locate}.`,
    );
    expect(errorOf(() => new SDSPCAAN({ k: 3, alpah: 1 } as never)).message).toMatch(
      /^SDSPCAAN has no option 'alpah' \(did you mean 'alpha'\?\)\. Valid options: k, /,
    );
  });

  it("still takes every option it names", () => {
    const names: string[] = [];
    const model = new PCA({ k: 2 }).fit(X, null, {
      onProgress: () => {},
      signal: new AbortController().signal,
      featureNames: ["a", "b", "c", "d"],
    });
    model.transform(X, {
      featureNames: ["a", "b", "c", "d"],
      onWarning: (w) => names.push(w.code),
    });
    expect(names).toEqual([]);
    expect(checkOptionNames("f", { a: 1, b: undefined }, ["a", "b"])).toBeUndefined();
    expect(optionNames<{ a?: number; b: string }>({ a: true, b: true })).toEqual(["a", "b"]);
  });
});
