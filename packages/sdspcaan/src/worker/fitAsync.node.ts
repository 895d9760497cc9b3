/**
 * `fitAsync`, what umap-js users reach for: a fit that leaves Node's event loop free.
 * The library's fits are synchronous (one outer iteration after another, in this
 * thread), so the fit runs in a worker thread of its own, started for the call and
 * ended after it, through the same channel as `fitInWorker`.
 */
import { throwIfAborted, ValidationError } from "../core/errors.js";
import type { MatrixLike } from "../core/matrix.js";
import type { Label } from "../core/validate.js";
import { nativeKernelsActive } from "../linalg/kernels/nativeGemm.node.js";
import { requestedKernelBackend } from "../linalg/kernels/wasm/backend.js";
import { checkFitOptions } from "../methods/callOptions.js";
import type { Estimator } from "../methods/estimator.js";
import type { FitOptions } from "../methods/fitReport.js";
import { Pipeline } from "../methods/pipeline.js";
import { isBuiltInMethod } from "../methods/registry.js";
import { kernelThreads } from "../threads/helperThread.node.js";
import { startWorker } from "../threads/workerThreads.node.js";
import { type FitInWorkerRequest, fitInWorker } from "./client.js";
import type { FitWorkerData } from "./fitWorker.node.js";

/** The worker's request for `model`: its method and options (and the Pipeline's). */
function requestOf(
  model: Estimator | Pipeline,
  X: MatrixLike,
  y: ArrayLike<Label> | null | undefined,
  featureNames: readonly string[] | null | undefined,
): FitInWorkerRequest {
  const data = { X, y: y ?? null, featureNames: featureNames ?? null };
  if (model instanceof Pipeline) {
    return {
      method: model.estimator.method,
      options: { ...model.estimator.params },
      pipeline: { preprocessing: model.preprocessingSetting, classifier: model.classifierParams },
      ...data,
    };
  }
  if (model === null || typeof model !== "object" || typeof model.fit !== "function") {
    throw new ValidationError(
      "model",
      "fitAsync needs a method instance or a Pipeline, e.g. fitAsync(new SDSPCAAN({ k: 20 }), X, y).",
    );
  }
  return { method: model.method, options: { ...model.params }, ...data };
}

/**
 * Fits `model` (a method or a Pipeline of the library's built-in methods) on X and y
 * in a worker thread, so that this thread's event loop keeps running, and resolves with
 * the fitted model: a new instance of the same class, bit for bit what `model.fit(X, y)`
 * gives (the worker uses this thread's kernels); `model` itself stays as it was. As
 * with `fit`, `onProgress` is called after every outer iteration (on this thread), and
 * aborting `signal` rejects with an AbortError, the worker stopping at its next check.
 *
 * @example
 * ```ts
 * import { SDSPCAAN } from "sdspcaan";
 * import { fitAsync } from "sdspcaan/node";
 * const model = await fitAsync(new SDSPCAAN({ k: 20 }), X, y, {
 *   onProgress: (p) => console.log(p.iteration),
 *   signal: AbortSignal.timeout(60_000),
 * });
 * ```
 */
export async function fitAsync<M extends Estimator | Pipeline>(
  model: M,
  X: MatrixLike,
  y?: ArrayLike<Label> | null,
  options: FitOptions = {},
): Promise<M> {
  checkFitOptions(options, "fitAsync");
  const request = requestOf(model, X, y, options.featureNames);
  if (!isBuiltInMethod(request.method)) {
    // Its worker thread runs the library's module only: nothing there registers it.
    throw new ValidationError(
      "model",
      `fitAsync fits the library's built-in methods only: ${JSON.stringify(request.method)} is registered in this thread (registerMethod) but not in fitAsync's worker thread. Fit it with fitInWorker and a worker module that registers it (import its module, then serveFits(parentPort)), as docs/library.md shows.`,
    );
  }
  throwIfAborted(options.signal);
  const kernels: FitWorkerData = {
    backend: requestedKernelBackend(),
    native: nativeKernelsActive(),
    threads: kernelThreads(),
  };
  const worker = startWorker(import.meta.url, "./fitWorker.node", "fitAsync", {
    workerData: kernels,
  });
  try {
    const fitted = await fitInWorker(worker, request, {
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return fitted as M;
  } finally {
    await worker.terminate();
  }
}
