/**
 * sdspcaan/worker's protocol, with Node's worker_threads standing in for a Web
 * Worker (the page's side through an adapter with a Worker's shape, the worker's side
 * on the thread's parentPort): a fit in the worker is bit for bit the fit in this
 * thread, progress arrives on this side, cancelling rejects with an AbortError by
 * either path (shared memory keeps the worker, termination ends it), and the
 * library's errors come back as their own classes with their messages.
 */
import { Worker } from "node:worker_threads";
import { fitInWorker, WorkerChannel, type WorkerEventLike, type WorkerLike } from "sdspcaan/worker";
import { afterAll, describe, expect, it } from "vitest";
import { AbortError, ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import type { FitProgress } from "#internal/methods/fitReport.js";
import { Pipeline } from "#internal/methods/pipeline.js";
import { createMethod } from "#internal/methods/registry.js";

const WORKER_MODULE = new URL("./serveFits.worker.ts", import.meta.url).href;

/** A worker thread with a Web Worker's interface; its module is TypeScript, loaded by tsx. */
class ThreadWorker implements WorkerLike {
  readonly thread: Worker;
  terminated = false;
  constructor() {
    this.thread = new Worker(
      `import("tsx/esm/api").then((tsx) => tsx.tsImport(${JSON.stringify(WORKER_MODULE)}, ${JSON.stringify(WORKER_MODULE)}));`,
      { eval: true },
    );
  }
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

const started: ThreadWorker[] = [];
function startWorker(): ThreadWorker {
  const w = new ThreadWorker();
  started.push(w);
  return w;
}
afterAll(async () => {
  await Promise.all(started.map((w) => w.thread.terminate()));
});

/** Three classes in 40 features, each lifting every third feature (90 samples). */
function threeClasses(): { X: Matrix; y: string[] } {
  let s = 7;
  const rand = () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
  const n = 90;
  const d = 40;
  const X = new Matrix(n, d);
  const y: string[] = [];
  for (let i = 0; i < n; i++) {
    y.push(["ash", "birch", "cedar"][i % 3]);
    for (let j = 0; j < d; j++) X.data[i * d + j] = rand() + (j % 3 === i % 3 ? 1 : 0);
  }
  return { X, y };
}

/** A model's JSON without its fit report (which holds wall-clock timings). */
function withoutFitInfo(json: object): string {
  const { fitInfo: _timings, ...rest } = json as { fitInfo?: unknown };
  return JSON.stringify(rest);
}

/** A fit that runs for seconds unless cancelled (tol no change reaches). */
const LONG_FIT = { k: 2, tol: 1e-300, maxIter: 1000 };

describe("fitInWorker", () => {
  const { X, y } = threeClasses();

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
    const err = await fitInWorker(worker, { method: "sdspcaan", options: { k: 0 }, X, y }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).argument).toBe("k");
    expect((err as ValidationError).message).toBe(expected.message);
    // The worker answers the next request.
    const model = await fitInWorker(worker, { method: "pca", options: { k: 2 }, X, y });
    expect(model.nComponents).toBe(2);
  });

  it("cancels through shared memory: AbortError, and the worker fits again", async () => {
    const worker = startWorker();
    const channel = new WorkerChannel(worker, { sharedMemory: true });
    expect(channel.sharesMemory).toBe(true);
    const controller = new AbortController();
    let reports = 0;
    const err = await fitInWorker(
      worker,
      { method: "sdspcaan", options: LONG_FIT, X, y },
      {
        signal: controller.signal,
        onProgress: () => {
          reports++;
          controller.abort();
        },
      },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AbortError);
    // Stopped long before its 1000 iterations.
    expect(reports).toBeLessThan(100);
    expect(worker.terminated).toBe(false);
    expect(channel.terminated).toBe(false);
    const model = await fitInWorker(worker, { method: "pca", options: { k: 2 }, X, y });
    expect(model.nComponents).toBe(2);
  });

  it("cancels without shared memory by terminating the worker, which then refuses work", async () => {
    const worker = startWorker();
    const controller = new AbortController();
    const err = await fitInWorker(
      worker,
      { method: "sdspcaan", options: LONG_FIT, X, y },
      { signal: controller.signal, onProgress: () => controller.abort() },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AbortError);
    expect(worker.terminated).toBe(true);
    await expect(
      fitInWorker(worker, { method: "pca", options: { k: 2 }, X, y }),
    ).rejects.toBeInstanceOf(AbortError);
  });

  it("rejects at once, sending nothing, when the signal is already aborted", async () => {
    const worker = startWorker();
    const sent: unknown[] = [];
    const spy: WorkerLike = {
      postMessage: (m) => sent.push(m),
      addEventListener: (t, l) => worker.addEventListener(t, l),
      terminate: () => worker.terminate(),
    };
    await expect(
      fitInWorker(spy, { method: "pca", X, y }, { signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(AbortError);
    expect(sent).toEqual([]);
  });
});
