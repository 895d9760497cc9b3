/**
 * Worker-thread entry of the experiment runner. The main thread sends work units
 * one at a time; the worker fits them (see units.node.ts) and posts every result
 * line as soon as its fit finishes, then "done". The data sets arrive once, in
 * `workerData`, as SharedArrayBuffers (read, never copied or written).
 */
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { installNativeOnHelper } from "sdspcaan/node";
import { loadPlugin } from "./plugins.node.js";
import type { ResultLine } from "./resultsFile.node.js";
import {
  datasetFromShared,
  type SharedDatasetMessage,
  UnitRunner,
  type UnitSettings,
  type WorkUnit,
} from "./units.node.js";

/** What the main thread puts in `workerData`. */
export interface WorkerInit {
  readonly kind: "sdspcaan-experiment-worker";
  readonly datasets: readonly SharedDatasetMessage[];
  readonly settings: UnitSettings;
  /** Run the kernels' GEMM natively, as the main thread does (the same bits either way). */
  readonly native?: boolean;
  /** The run's plug-ins, loaded before any unit (a file whose hash differs is refused). */
  readonly plugins?: readonly { readonly path: string; readonly sha256: string }[];
}

/** Main thread -> worker. */
export type ToWorker = { readonly type: "unit"; readonly unit: WorkUnit };

/** A thrown error in a form that survives postMessage with its class name. */
export interface ErrorMessage {
  readonly name: string;
  readonly message: string;
  readonly argument?: string;
  readonly stack?: string;
}

/** Worker -> main thread. */
export type FromWorker =
  | { readonly type: "line"; readonly unit: number; readonly line: ResultLine }
  | { readonly type: "done"; readonly unit: number }
  | { readonly type: "error"; readonly unit: number; readonly error: ErrorMessage };

/** Serialises an error for postMessage. */
export function errorMessage(err: unknown): ErrorMessage {
  if (err instanceof Error) {
    const argument = (err as { argument?: unknown }).argument;
    return {
      name: err.name,
      message: err.message,
      ...(typeof argument === "string" ? { argument } : {}),
      ...(err.stack ? { stack: err.stack } : {}),
    };
  }
  return { name: "Error", message: String(err) };
}

async function start(init: WorkerInit): Promise<void> {
  const port = parentPort;
  if (port === null) return;
  // Where the addon does not load here, the WebAssembly kernel gives the same bits.
  if (init.native === true) installNativeOnHelper();
  // Units sent meanwhile wait in the port's queue until the listener below is attached.
  try {
    for (const p of init.plugins ?? []) await loadPlugin(p.path, { expectedSha256: p.sha256 });
  } catch (err) {
    port.postMessage({ type: "error", unit: -1, error: errorMessage(err) } satisfies FromWorker);
    return;
  }
  const runner = new UnitRunner(init.datasets.map(datasetFromShared), init.settings);
  port.on("message", (msg: ToWorker) => {
    if (msg.type !== "unit") return;
    const { unit } = msg;
    const post = (m: FromWorker) => port.postMessage(m);
    runner
      .run(unit, (line) => post({ type: "line", unit: unit.id, line }))
      .then(
        () => post({ type: "done", unit: unit.id }),
        (err: unknown) => post({ type: "error", unit: unit.id, error: errorMessage(err) }),
      );
  });
}

const init = workerData as WorkerInit | undefined;
if (!isMainThread && init?.kind === "sdspcaan-experiment-worker") void start(init);
