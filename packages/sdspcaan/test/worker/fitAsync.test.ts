/**
 * fitAsync (sdspcaan/node): the fit runs in a worker thread of its own, so this thread's
 * event loop keeps turning; the model it resolves with is the one `fit` gives here, bit
 * for bit, with the same progress reports; a signal cancels it with an AbortError.
 */

import { registerMethod, unregisterMethod } from "sdspcaan/methods";
import { fitAsync } from "sdspcaan/node";
import { rejectionOf } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { AbortError, ValidationError } from "#internal/core/errors.js";
import type { FitProgress } from "#internal/methods/fitReport.js";
import { Pipeline } from "#internal/methods/pipeline.js";
import { createMethod } from "#internal/methods/registry.js";
import { abortOnProgress } from "../helpers/abortOnProgress.js";
import { liftedThreeClasses } from "../helpers/blobs.js";
import { unitVectorsMethod } from "../helpers/unitVectorsMethod.js";

/** A model's JSON without its fit report (which holds wall-clock timings). */
function withoutFitInfo(json: object): string {
  const { fitInfo: _timings, ...rest } = json as { fitInfo?: unknown };
  return JSON.stringify(rest);
}

/** A plug-in method, registered in this thread by the test that needs it. */
const RAND_PROJ = unitVectorsMethod("randproj", "RandProj");

describe("fitAsync", () => {
  const { X, y } = liftedThreeClasses(11, 60, 30);

  it("gives fit's model bit for bit and its progress, while the event loop runs", async () => {
    const options = { k: 2, maxIter: 6, seed: 3 };
    const here: FitProgress[] = [];
    const local = createMethod("sdspcaan", options).fit(X, y, { onProgress: (p) => here.push(p) });
    const unfitted = createMethod("sdspcaan", options);
    const there: FitProgress[] = [];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const model = await fitAsync(unfitted, X, y, { onProgress: (p) => there.push(p) });
    clearInterval(timer);
    expect(model).not.toBe(unfitted);
    expect(unfitted.isFitted).toBe(false);
    expect(model.constructor).toBe(unfitted.constructor);
    expect(withoutFitInfo(model.toJSON())).toBe(withoutFitInfo(local.toJSON()));
    expect(there).toEqual(here);
    // This thread was free while the worker started and fitted.
    expect(ticks).toBeGreaterThan(0);
  });

  it("fits a Pipeline with its preprocessing and classifier options", async () => {
    const pipeline = new Pipeline(createMethod("pca", { k: 3 }), { preprocessing: "none" });
    const local = new Pipeline(createMethod("pca", { k: 3 }), { preprocessing: "none" }).fit(X, y);
    const model = await fitAsync(pipeline, X, y);
    expect(model).toBeInstanceOf(Pipeline);
    expect(model.preprocessingSetting).toBe("none");
    expect(model.predict(X)).toEqual(local.predict(X));
    expect(Array.from(model.transform(X).data)).toEqual(Array.from(local.transform(X).data));
  });

  it("cancels with an AbortError when the signal is aborted during the fit", async () => {
    const abort = abortOnProgress();
    const err = await rejectionOf(
      fitAsync(createMethod("sdspcaan", { k: 2, tol: 1e-300, maxIter: 1000 }), X, y, abort.options),
    );
    expect(err).toBeInstanceOf(AbortError);
    // What an aborted fit on this thread says.
    expect(err.message).toBe("The operation was aborted.");
    expect(abort.reports()).toBeLessThan(100);
  });

  it("rejects with what a throwing onProgress threw, as fit throws it, calling it no more", async () => {
    let calls = 0;
    const onProgress = () => {
      calls++;
      throw new RangeError("cb boom");
    };
    const err = await rejectionOf(
      fitAsync(createMethod("sdspcaan", { k: 2, tol: 1e-300, maxIter: 1000 }), X, y, {
        onProgress,
      }),
    );
    expect(err).toBeInstanceOf(RangeError);
    expect(err.message).toBe("cb boom");
    expect(calls).toBe(1);
  });

  it("rejects at once, starting no worker, when the signal is already aborted", async () => {
    await expect(
      fitAsync(createMethod("pca", { k: 2 }), X, y, { signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(AbortError);
  });

  it("refuses a plug-in method, which its worker thread does not register, saying what to use", async () => {
    registerMethod(RAND_PROJ);
    try {
      for (const model of [RAND_PROJ.create({ k: 2 }), new Pipeline(RAND_PROJ.create({ k: 2 }))]) {
        const err = await rejectionOf(fitAsync(model, X, y));
        expect(err).toBeInstanceOf(ValidationError);
        expect((err as ValidationError).argument).toBe("model");
        expect(err.message).toBe(
          `fitAsync fits the library's built-in methods only: "randproj" is registered in this thread (registerMethod) but not in fitAsync's worker thread. Fit it with fitInWorker and a worker module that registers it (import its module, then serveFits(parentPort)), as docs/library.md shows.`,
        );
      }
    } finally {
      unregisterMethod("randproj");
    }
  });

  it("rejects what a fit here rejects, as the same class and message", async () => {
    const err = await rejectionOf(fitAsync(createMethod("lda", { k: 5 }), X, y));
    let expected: unknown = null;
    try {
      createMethod("lda", { k: 5 }).fit(X, y);
    } catch (e) {
      expected = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toBe((expected as Error).message);
  });
});
