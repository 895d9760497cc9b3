/**
 * One Fashion-MNIST fit, run as a child process by the `scaling` suite (under
 * `/usr/bin/time -v` for the peak resident memory): `tsx bench/fashionFit.ts <method>
 * <n> <k> [option=value ...] [threads=N|auto] [native=on|off|auto]` (the option
 * `largeScale`, `preconditioner`, `krylovStart` or `krylovSpace` forces that internal
 * path of the Q-loop). Trains on the first n of the 60,000 training images
 * (train-zscore with the statistics of those n), projects the 10,000 test images and
 * prints one JSON line: iterations, the fit's time split, the 1-NN time and the test
 * BCA (1-NN on standardised projections, the paper's classifier). The data set is
 * found through the registry (--data-dir / $SDSPCAAN_DATA / the repository's data/ /
 * ../shared/data / the cache / /usr/share/datasets).
 */
import { availableParallelism } from "node:os";
import { balancedAccuracy } from "../packages/sdspcaan/src/classify/metrics.js";
import { NearestNeighbour1 } from "../packages/sdspcaan/src/classify/nearestNeighbour.js";
import { preprocessSplit } from "../packages/sdspcaan/src/data/preprocess.js";
import { predefinedTestSplit } from "../packages/sdspcaan/src/data/splits.js";
import { setNativeKernels } from "../packages/sdspcaan/src/linalg/kernels/nativeGemm.node.js";
import type { QLoopPaths } from "../packages/sdspcaan/src/methods/qLoopOptions.js";
import { createMethod } from "../packages/sdspcaan/src/methods/registry.js";
import {
  QLoopEstimator,
  type QLoopMethodClass,
  withQLoopPaths,
} from "../packages/sdspcaan/src/methods/sdspcaFamily.js";
import { setKernelThreads } from "../packages/sdspcaan/src/threads/helperThread.node.js";
import { openDataset } from "../packages/sdspcaan-cli/src/io/load.js";

const [method = "sdspcaan", nArg = "10000", kArg = "10", ...rest] = process.argv.slice(2);
const options: Record<string, unknown> = {};
// threads=N|auto (default auto, as the CLI's --threads): the kernel helpers; not a method option.
let threads = Math.min(8, availableParallelism());
// native=on|off|auto (default auto, as the CLI): the native GEMM (nativeGemm.node.ts).
let nativeRequest: boolean | "auto" = "auto";
// largeScale, preconditioner, krylovStart, krylovSpace: not options of the methods but
// the Q-loop's internal path choices, which a measurement may force.
const INTERNAL = new Set(["largeScale", "preconditioner", "krylovStart", "krylovSpace"]);
const internal: Record<string, string> = {};
for (const kv of rest) {
  const [key, value] = kv.split("=");
  if (key === "native") {
    nativeRequest = value === "auto" ? "auto" : value === "on" || value === "1";
    continue;
  }
  if (key === "threads") {
    threads = value === "auto" ? threads : Number(value);
    continue;
  }
  if (INTERNAL.has(key)) {
    internal[key] = value;
    continue;
  }
  options[key] = Number.isNaN(Number(value)) ? value : Number(value);
}
setKernelThreads(threads);
const native = setNativeKernels(nativeRequest);
const t0 = performance.now();
const opened = await openDataset("FashionMNIST", {
  ...(process.env.SDSPCAAN_DATA ? { dataDir: process.env.SDSPCAAN_DATA } : {}),
});
const { X, y, predefinedTest } = opened.dataset;
const whole = predefinedTestSplit(X.rows, predefinedTest as Int32Array, { validation: false });
const n = Math.min(Number(nArg), whole.train.length);
// The first n training images, standardised with their own statistics (train-zscore).
const split = { ...whole, train: whole.train.subarray(0, n) };
const { train: Xtrain, test: Xtest } = preprocessSplit(X, split, "train-zscore");
const yTrain = Array.from(split.train, (i) => y[i]);
const yTest = Array.from(split.test, (i) => y[i]);
const t1 = performance.now();
let model = createMethod(method, { k: Number(kArg), ...options });
if (Object.keys(internal).length > 0) {
  // The Q-loop's internal path choices (qLoopOptions.ts), forced in this model's fits.
  if (!(model instanceof QLoopEstimator)) {
    throw new Error(
      `${Object.keys(internal).join(", ")}: paths of the Q-loop, which ${method} does not run`,
    );
  }
  const Forced = withQLoopPaths(model.constructor as QLoopMethodClass, internal as QLoopPaths);
  model = new Forced(model.params);
}
// One progress line per outer iteration on stderr (wall and CPU seconds since the fit
// began), so that a long fit can be followed and extrapolated while it runs.
const cpu0 = process.cpuUsage();
model.fit(Xtrain, yTrain, {
  onProgress: (p) => {
    const cpu = process.cpuUsage(cpu0);
    process.stderr.write(
      `${JSON.stringify({
        iteration: p.iteration,
        lambda: p.lambda ?? null,
        change: p.change === null ? null : Number(p.change.toPrecision(3)),
        wall_s: Math.round(performance.now() - t1) / 1000,
        cpu_s: Math.round((cpu.user + cpu.system) / 1e3) / 1000,
      })}\n`,
    );
  },
});
const t2 = performance.now();
const nn = new NearestNeighbour1().fit(model.transform(Xtrain), yTrain);
const predicted = nn.predict(model.transform(Xtest));
const t3 = performance.now();
const info = model.fitInfo;

/** FNV-1a (32 bits) of the bytes of a Float64Array, as 8 hex digits. */
function fnv1a(values: Float64Array): string {
  const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  let h = 0x811c9dc5;
  for (let t = 0; t < bytes.length; t++) h = Math.imul(h ^ bytes[t], 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}
const details = (info.details ?? {}) as Record<string, unknown>;
process.stdout.write(
  `${JSON.stringify({
    method,
    n,
    k: Number(kArg),
    options,
    threads,
    native_gemm: native,
    source: opened.source,
    load_ms: Math.round(t1 - t0),
    fit_ms: Math.round(t2 - t1),
    eigen_ms: Math.round(info.timings.eigenMs),
    graph_ms: Math.round(info.timings.graphMs),
    other_ms: Math.round(info.timings.otherMs),
    laplacian_ms:
      typeof details.laplacianEigenMs === "number" ? Math.round(details.laplacianEigenMs) : null,
    nn_ms: Math.round(t3 - t2),
    iterations: info.iterations,
    converged: info.converged,
    stop: info.stopReason,
    solver: info.solver ?? null,
    lobpcg_iterations: details.lobpcgIterations ?? null,
    lobpcg_per_solve: details.lobpcgIterationsPerSolve ?? null,
    krylov_degrees: details.krylovDegrees ?? null,
    lambda_final: details.lambdaFinal ?? null,
    // The tracked within-class searches: rows certified from the last search, rows scanned.
    neighbour_rows: [details.neighbourRowsCertified ?? null, details.neighbourRowsScanned ?? null],
    // The stop test's value per outer iteration (the last 20), to see whether a long fit settles.
    iterate_change: Array.isArray(details.iterateChange)
      ? (details.iterateChange as number[]).slice(-20).map((v) => Number(v.toPrecision(3)))
      : null,
    test_bca: Math.round(1e4 * balancedAccuracy(yTest, predicted)) / 1e4,
    // Two builds that fit the same W (bit for bit) print the same hash.
    w_hash: fnv1a(model.components.data),
  })}\n`,
);
