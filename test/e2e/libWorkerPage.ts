/**
 * A page that fits through sdspcaan/worker as a user's page would: the e2e test
 * (playground.e2e.test.ts) builds it with libWorker.ts and drives `libWorkerPage`.
 */
import { AbortError, type ModelJSON, ValidationError } from "sdspcaan";
import { fitInWorker } from "sdspcaan/worker";

interface Data {
  readonly X: number[][];
  readonly y: number[];
}

const worker = new Worker(new URL("lib-worker.js", import.meta.url), { type: "module" });

/** Fits in the worker; counts the progress reports and the page's timer ticks meanwhile. */
async function fit(
  data: Data,
  options: Record<string, unknown>,
): Promise<{ model: ModelJSON; reports: number; ticks: number }> {
  let reports = 0;
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  try {
    const model = await fitInWorker(
      worker,
      { method: "sdspcaan", options, X: data.X, y: data.y },
      { onProgress: () => reports++ },
    );
    return { model: model.toJSON(), reports, ticks };
  } finally {
    clearInterval(timer);
  }
}

/** Starts a fit and cancels it at its first progress report. */
async function cancel(
  data: Data,
  options: Record<string, unknown>,
): Promise<{ name: string; isAbortError: boolean; reports: number }> {
  const controller = new AbortController();
  let reports = 0;
  try {
    await fitInWorker(
      worker,
      { method: "sdspcaan", options, X: data.X, y: data.y },
      {
        signal: controller.signal,
        onProgress: () => {
          reports++;
          controller.abort();
        },
      },
    );
    return { name: "no error", isAbortError: false, reports };
  } catch (err) {
    return { name: (err as Error).name, isAbortError: err instanceof AbortError, reports };
  }
}

/** A fit with a bad option: the error's class, argument and message. */
async function badOption(
  data: Data,
  options: Record<string, unknown>,
): Promise<{ isValidationError: boolean; argument: string | null; message: string }> {
  try {
    await fitInWorker(worker, { method: "sdspcaan", options, X: data.X, y: data.y });
    return { isValidationError: false, argument: null, message: "no error" };
  } catch (err) {
    return {
      isValidationError: err instanceof ValidationError,
      argument: err instanceof ValidationError ? err.argument : null,
      message: (err as Error).message,
    };
  }
}

/** A fit that may be refused (after a cancel that ended the worker): its outcome, never a wait. */
async function tryFit(
  data: Data,
  options: Record<string, unknown>,
): Promise<{ outcome: "fitted" | "refused"; name: string; message: string }> {
  try {
    await fitInWorker(worker, { method: "sdspcaan", options, X: data.X, y: data.y });
    return { outcome: "fitted", name: "", message: "" };
  } catch (err) {
    return { outcome: "refused", name: (err as Error).name, message: (err as Error).message };
  }
}

(globalThis as { libWorkerPage?: unknown }).libWorkerPage = { fit, cancel, badOption, tryFit };

/** What the page offers the test, on `globalThis.libWorkerPage`. */
export interface LibWorkerPage {
  fit: typeof fit;
  cancel: typeof cancel;
  badOption: typeof badOption;
  tryFit: typeof tryFit;
}
