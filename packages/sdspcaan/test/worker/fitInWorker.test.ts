/**
 * sdspcaan/worker's protocol over Node's worker_threads: fitInWorker takes a Node
 * Worker as it is (events through `on`) and a Web Worker's shape alike (an adapter
 * over a thread stands in for one); the worker's side is serveFits on the thread's
 * parentPort. A fit in the worker is bit for bit the fit in this thread, progress
 * arrives on this side, cancelling rejects with an AbortError by either path (shared
 * memory keeps the worker, termination ends it), a terminated or stopped worker
 * refuses later fits at once, and the library's errors come back as their own classes
 * with their messages.
 */
import { Worker } from "node:worker_threads";
import { registerMethod, unregisterMethod } from "sdspcaan/methods";
import {
  fitInWorker,
  type WebWorkerLike,
  WorkerChannel,
  type WorkerEventLike,
  type WorkerLike,
} from "sdspcaan/worker";
import { errorOf, rejectionOf, smallRows } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import { AbortError, SdspcaanError, ValidationError } from "#internal/core/errors.js";
import type { FitProgress } from "#internal/methods/fitReport.js";
import { Pipeline } from "#internal/methods/pipeline.js";
import { createMethod } from "#internal/methods/registry.js";
import { abortOnProgress } from "../helpers/abortOnProgress.js";
import { liftedThreeClasses } from "../helpers/blobs.js";
import { unitVectorsMethod } from "../helpers/unitVectorsMethod.js";

const WORKER_MODULE = new URL("./serveFits.worker.ts", import.meta.url).href;

/** A worker thread running serveFits.worker.ts (TypeScript, loaded by tsx). */
function serveFitsThread(): Worker {
  return new Worker(
    `import("tsx/esm/api").then((tsx) => tsx.tsImport(${JSON.stringify(WORKER_MODULE)}, ${JSON.stringify(WORKER_MODULE)}));`,
    { eval: true },
  );
}

/** A worker thread behind a browser Web Worker's interface (addEventListener, event.data). */
class WebShapedWorker implements WebWorkerLike {
  readonly thread = serveFitsThread();
  terminated = false;
  postMessage(message: unknown, transfer: ArrayBuffer[]): void {
    this.thread.postMessage(message, transfer);
  }
  addEventListener(type: "message" | "error", listener: (event: WorkerEventLike) => void): void {
    if (type === "message") this.thread.on("message", (data: unknown) => listener({ data }));
    else this.thread.on("error", (err: Error) => listener({ message: err.message }));
  }
  terminate(): void {
    this.terminated = true;
    void this.thread.terminate();
  }
}

const started: Worker[] = [];
/** A Node worker_threads Worker, given to fitInWorker as it is. */
function startWorker(): Worker {
  const w = serveFitsThread();
  started.push(w);
  return w;
}
function startWebShapedWorker(): WebShapedWorker {
  const w = new WebShapedWorker();
  started.push(w.thread);
  return w;
}
afterAll(async () => {
  await Promise.all(started.map((w) => w.terminate()));
});

/** A model's JSON without its fit report (which holds wall-clock timings). */
function withoutFitInfo(json: object): string {
  const { fitInfo: _timings, ...rest } = json as { fitInfo?: unknown };
  return JSON.stringify(rest);
}

/** What an aborted fit on this thread says. */
function abortedHere(): string {
  const { X, y } = smallRows();
  const message = errorOf(() =>
    createMethod("pca", { k: 2 }).fit(X, y, { signal: AbortSignal.abort() }),
  ).message;
  expect(message).toBe("The operation was aborted.");
  return message;
}

/** A fit that runs for seconds unless cancelled (tol no change reaches). */
const LONG_FIT = { k: 2, tol: 1e-300, maxIter: 1000 };

/** A plug-in method registered in this thread only (the worker's module does not import it). */
const HERE_ONLY = unitVectorsMethod("here-only", "HereOnly");

/** A Node worker whose messages are recorded, not sent. */
function spyWorker(sent: unknown[]): WorkerLike {
  return { postMessage: (m: unknown) => sent.push(m), on: () => undefined, terminate: () => {} };
}

/** What the synchronous call throws. */
function thrownHere(fn: () => unknown): ValidationError {
  const err = errorOf(fn);
  expect(err).toBeInstanceOf(ValidationError);
  return err as ValidationError;
}

describe("fitInWorker", () => {
  const lifted = liftedThreeClasses(7, 90, 40);
  const X = lifted.X;
  const y = lifted.y.map((c) => ["ash", "birch", "cedar"][c]);

  it("fits in the worker bit for bit as in this thread, reporting every iteration here", async () => {
    const worker = startWorker();
    const options = { k: 2, maxIter: 8 };
    const here: FitProgress[] = [];
    const local = createMethod("sdspcaan", options).fit(X, y, {
      onProgress: (p) => here.push(p),
    });
    const there: FitProgress[] = [];
    const before = X.data.slice();
    const model = await fitInWorker(
      worker,
      { method: "sdspcaan", options, X, y },
      { onProgress: (p) => there.push(p) },
    );
    expect(withoutFitInfo(model.toJSON())).toBe(withoutFitInfo(local.toJSON()));
    expect(Array.from(model.transform(X).data)).toEqual(Array.from(local.transform(X).data));
    expect(there.length).toBeGreaterThan(1);
    expect(there).toEqual(here);
    // X crossed as a copy: the caller's buffer is neither detached nor changed.
    expect(X.data.length).toBe(90 * 40);
    expect(Array.from(X.data)).toEqual(Array.from(before));
  });

  it("fits a Pipeline that predicts the caller's labels as one fitted here does", async () => {
    const worker = startWorker();
    const model = await fitInWorker(worker, {
      method: "pca",
      options: { k: 3 },
      // Rows as plain arrays: any MatrixLike crosses.
      X: Array.from({ length: X.rows }, (_, i) =>
        Array.from(X.data.subarray(i * 40, (i + 1) * 40)),
      ),
      y,
      pipeline: true,
    });
    expect(model).toBeInstanceOf(Pipeline);
    const local = new Pipeline(createMethod("pca", { k: 3 })).fit(X, y);
    const labels = model.predict(X);
    expect(labels).toEqual(local.predict(X));
    expect(new Set(labels)).toEqual(new Set(["ash", "birch", "cedar"]));
    expect(model.score(X, y)).toBe(local.score(X, y));
  });

  it("rejects a bad option with the ValidationError a fit here throws, naming the option", async () => {
    const worker = startWorker();
    const expected = (() => {
      try {
        createMethod("sdspcaan", { k: 0 }).fit(X, y);
      } catch (err) {
        return err as ValidationError;
      }
      throw new Error("k = 0 was accepted");
    })();
    const err = await rejectionOf(
      fitInWorker(worker, { method: "sdspcaan", options: { k: 0 }, X, y }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).argument).toBe("k");
    expect((err as ValidationError).message).toBe(expected.message);
    // The worker answers the next request.
    const model = await fitInWorker(worker, { method: "pca", options: { k: 2 }, X, y });
    expect(model.nComponents).toBe(2);
  });

  it("refuses before sending what the synchronous fit refuses, with its error", async () => {
    const sent: unknown[] = [];
    const whiten = () => 1;
    const badOption = thrownHere(() =>
      createMethod("pca", { k: 2, whiten } as unknown as { k: number }).fit(X, y),
    );
    expect(badOption.message).toBe(
      "The 'whiten' parameter of PCA must be true or false. Got () => 1 instead.",
    );
    const err = await rejectionOf(
      fitInWorker(spyWorker(sent), {
        method: "pca",
        options: { k: 2, whiten } as unknown as { k: number },
        X,
        y,
      }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).argument).toBe("whiten");
    expect(err.message).toBe(badOption.message);

    const symbols = y.map((_, i) => (i === 0 ? Symbol("a") : "ash")) as unknown as string[];
    const badLabel = thrownHere(() => createMethod("lda", { k: 1 }).fit(X, symbols));
    expect(badLabel.message).toBe("y[0] is Symbol(a); labels must be numbers or strings.");
    const labels = await rejectionOf(
      fitInWorker(spyWorker(sent), { method: "lda", options: { k: 1 }, X, y: symbols }),
    );
    expect(labels).toBeInstanceOf(ValidationError);
    expect(labels.message).toBe(badLabel.message);

    const names = Array.from({ length: 40 }, (_, j) => `f${j}`);
    names[7] = Symbol("f7") as unknown as string;
    const badName = thrownHere(() =>
      new Pipeline(createMethod("pca", { k: 2 })).fit(X, y, { featureNames: names }),
    );
    const named = await rejectionOf(
      fitInWorker(spyWorker(sent), {
        method: "pca",
        options: { k: 2 },
        X,
        y,
        featureNames: names,
        pipeline: true,
      }),
    );
    expect(named.message).toBe(badName.message);
    expect(sent).toEqual([]);
  });

  it("names the part of a request for a method unknown here that cannot be sent", async () => {
    const sent: unknown[] = [];
    // A name only known at run time, as a method registered in the worker alone would be.
    const WORKER_ONLY: string = "registered-in-the-worker";
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { options: { k: 2, scale: () => 1 } },
        "options.scale",
        "options.scale is a function, which cannot be sent to a worker: fitInWorker's request crosses as data (numbers, strings, booleans, arrays, plain objects).",
      ],
      [
        { y: ["a", Symbol("b"), "a"] },
        "y[1]",
        "y[1] is Symbol(b), which cannot be sent to a worker: fitInWorker's request crosses as data (numbers, strings, booleans, arrays, plain objects).",
      ],
      [
        { options: { grid: [1, { step: new WeakMap() }] } },
        "options.grid[1].step",
        "options.grid[1].step is a WeakMap, which cannot be sent to a worker: fitInWorker's request crosses as data (numbers, strings, booleans, arrays, plain objects).",
      ],
    ];
    for (const [part, argument, message] of cases) {
      const err = await rejectionOf(
        fitInWorker(spyWorker(sent), {
          method: WORKER_ONLY,
          X: [
            [1, 2],
            [3, 4],
            [5, 7],
          ],
          ...part,
        }),
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe(argument);
      expect(err.message).toBe(message);
    }
    expect(sent).toEqual([]);
  });

  it("says a method registered here is not registered in the worker, and what to do", async () => {
    registerMethod(HERE_ONLY);
    try {
      const worker = startWorker();
      const err = await rejectionOf(
        fitInWorker(worker, { method: HERE_ONLY.name, options: { k: 2 }, X }),
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe("method");
      expect(err.message).toBe(
        `The method "here-only" is registered in this thread but not in the worker, so the worker cannot fit it: register it in the worker's module too (import the module that calls registerMethod before serveFits), as docs/library.md shows.`,
      );
    } finally {
      unregisterMethod("here-only");
    }
  });

  it("cancels a Node worker through shared memory (its default): AbortError, and it fits again", async () => {
    const worker = startWorker();
    const channel = new WorkerChannel(worker);
    expect(channel.sharesMemory).toBe(true);
    const abort = abortOnProgress();
    const err = await rejectionOf(
      fitInWorker(worker, { method: "sdspcaan", options: LONG_FIT, X, y }, abort.options),
    );
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toBe(abortedHere());
    // Stopped long before its 1000 iterations.
    expect(abort.reports()).toBeLessThan(100);
    expect(worker.threadId).not.toBe(-1);
    expect(channel.terminated).toBe(false);
    const model = await fitInWorker(worker, { method: "pca", options: { k: 2 }, X, y });
    expect(model.nComponents).toBe(2);
  });

  it("cancels without shared memory by terminating the worker, which then refuses fits at once", async () => {
    const worker = startWebShapedWorker();
    const channel = new WorkerChannel(worker);
    expect(channel.sharesMemory).toBe(false);
    const err = await rejectionOf(
      fitInWorker(
        worker,
        { method: "sdspcaan", options: LONG_FIT, X, y },
        abortOnProgress().options,
      ),
    );
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toBe(abortedHere());
    expect(worker.terminated).toBe(true);
    expect(channel.terminated).toBe(true);
    const refused =
      "The worker was terminated to cancel a fit (without shared memory a busy worker cannot be told to stop), so it runs no more requests: start a new Worker, or cancel through shared memory (a cross-origin isolated page, or Node) to keep it.";
    const again = await rejectionOf(
      fitInWorker(worker, { method: "pca", options: { k: 2 }, X, y }),
    );
    expect(again).toBeInstanceOf(SdspcaanError);
    expect((again as Error).message).toBe(refused);
    // A channel made afterwards for the same worker refuses too, rather than waiting forever.
    const late = await rejectionOf(new WorkerChannel(worker).request({ type: "fit" }));
    expect((late as Error).message).toBe(refused);
  });

  it("rejects with what a throwing onProgress threw and stops the fit; a Node worker fits again", async () => {
    const worker = startWorker();
    const boom = new RangeError("cb boom");
    let calls = 0;
    const onProgress = () => {
      calls++;
      throw boom;
    };
    const here = errorOf(() => createMethod("sdspcaan", LONG_FIT).fit(X, y, { onProgress }));
    expect(here).toBe(boom);
    calls = 0;
    const err = await rejectionOf(
      fitInWorker(worker, { method: "sdspcaan", options: LONG_FIT, X, y }, { onProgress }),
    );
    expect(err).toBe(boom);
    // As in the synchronous fit, no report reaches the callback after it threw.
    expect(calls).toBe(1);
    // Stopped through shared memory, as a cancel stops it: the worker takes the next fit.
    expect(worker.threadId).not.toBe(-1);
    const model = await fitInWorker(worker, { method: "pca", options: { k: 2 }, X, y });
    expect(model.nComponents).toBe(2);
  });

  it("without shared memory, a throwing onProgress ends the worker as a cancel does", async () => {
    const worker = startWebShapedWorker();
    const channel = new WorkerChannel(worker);
    expect(channel.sharesMemory).toBe(false);
    const boom = new TypeError("progress bar gone");
    const err = await rejectionOf(
      fitInWorker(
        worker,
        { method: "sdspcaan", options: LONG_FIT, X, y },
        {
          onProgress: () => {
            throw boom;
          },
        },
      ),
    );
    expect(err).toBe(boom);
    expect(worker.terminated).toBe(true);
    const again = await rejectionOf(
      fitInWorker(worker, { method: "pca", options: { k: 2 }, X, y }),
    );
    expect(again).toBeInstanceOf(SdspcaanError);
    expect(again.message).toBe(
      "The worker was terminated to stop a fit whose onProgress callback threw (without shared memory a busy worker cannot be told to stop), so it runs no more requests: start a new Worker, or cancel through shared memory (a cross-origin isolated page, or Node) to keep it.",
    );
  });

  it("gives a WorkerChannel request's throwing onProgress error to its caller", async () => {
    const worker = startWorker();
    const channel = new WorkerChannel(worker);
    const lifted = liftedThreeClasses(5, 30, 8);
    const data = new Float64Array(lifted.X.data);
    const err = await rejectionOf(
      channel.request(
        {
          type: "fit",
          method: "sdspcaan",
          options: LONG_FIT,
          X: { rows: 30, cols: 8, data },
          y: lifted.y,
          featureNames: null,
          pipeline: null,
        },
        {
          onProgress: () => {
            throw "not even an Error";
          },
        },
      ),
    );
    expect(err).toBe("not even an Error");
  });

  it("refuses at once a Node worker whose thread has stopped", async () => {
    const worker = startWorker();
    await worker.terminate();
    const err = await rejectionOf(fitInWorker(worker, { method: "pca", options: { k: 2 }, X, y }));
    expect(err).toBeInstanceOf(SdspcaanError);
    expect((err as Error).message).toBe(
      "The worker thread has stopped (its threadId is -1), so it cannot fit: start a new Worker.",
    );
  });

  it("rejects a pending fit when its Node worker's thread stops", async () => {
    const worker = startWorker();
    const err = await rejectionOf(
      fitInWorker(
        worker,
        { method: "sdspcaan", options: LONG_FIT, X, y },
        { onProgress: () => void worker.terminate() },
      ),
    );
    expect(err).toBeInstanceOf(SdspcaanError);
    expect((err as Error).message).toBe(
      "The worker thread stopped (exit code 1), so it cannot fit: start a new Worker.",
    );
  });

  it("takes a browser Web Worker's shape as well: fits there, bit for bit", async () => {
    const worker = startWebShapedWorker();
    const options = { k: 2, maxIter: 4 };
    const local = createMethod("sdspcaan", options).fit(X, y);
    const model = await fitInWorker(worker, { method: "sdspcaan", options, X, y });
    expect(withoutFitInfo(model.toJSON())).toBe(withoutFitInfo(local.toJSON()));
  });

  it("rejects at once, sending nothing, when the signal is already aborted", async () => {
    const worker = startWorker();
    const sent: unknown[] = [];
    const spy: WorkerLike = {
      postMessage: (m: unknown) => sent.push(m),
      on: (event, listener) => worker.on(event, listener),
      terminate: () => worker.terminate(),
    };
    const err = await rejectionOf(
      fitInWorker(spy, { method: "pca", X, y }, { signal: AbortSignal.abort() }),
    );
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toBe(abortedHere());
    expect(sent).toEqual([]);
  });

  it("says what an aborted fit here says, the signal's reason included", async () => {
    const worker = startWorker();
    const controller = new AbortController();
    const options = {
      signal: controller.signal,
      onProgress: () => controller.abort("the user left"),
    };
    const here = errorOf(() =>
      createMethod("sdspcaan", LONG_FIT).fit(X, y, {
        signal: AbortSignal.abort("the user left"),
      }),
    );
    expect(here.message).toBe("The operation was aborted: the user left");
    const err = await rejectionOf(
      fitInWorker(worker, { method: "sdspcaan", options: LONG_FIT, X, y }, options),
    );
    expect(err).toBeInstanceOf(AbortError);
    expect(err.message).toBe(here.message);
  });
});
