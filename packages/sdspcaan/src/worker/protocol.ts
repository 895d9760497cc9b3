/**
 * The messages between a page's WorkerChannel (client.ts) and a worker's
 * serveRequests (server.ts). Every message carries `channel: "sdspcaan"`, so that a
 * worker or page with messages of its own can share the port; each request's id is
 * repeated by its progress reports and by its one answer.
 *
 * Errors cross as plain data (structured cloning keeps only an Error's message) and
 * are rebuilt on the page as the library's own classes, so `instanceof
 * ValidationError` and its `argument` work as for a fit in the page's thread.
 */
// The library's error classes, each rebuilt by name from its payload below.
import * as errors from "../core/errors.js";

export const CHANNEL = "sdspcaan";

/**
 * An event a worker or its scope delivers: a message's `data`, or an error's
 * `message` (DOM and Node events both fit this shape).
 */
export interface WorkerEventLike {
  readonly data?: unknown;
  readonly message?: string;
  preventDefault?(): void;
}

/** A page's request: its body is the worker's business, `cancel` the shared flag or null. */
export interface RequestMessage {
  readonly channel: typeof CHANNEL;
  readonly kind: "request";
  readonly id: number;
  readonly body: unknown;
  /**
   * One Int32 the page sets to 1 to cancel, where the page may share memory (it is
   * cross-origin isolated); without it the page cancels by terminating the worker.
   */
  readonly cancel: SharedArrayBuffer | null;
}

export type AnswerMessage =
  | {
      readonly channel: typeof CHANNEL;
      readonly kind: "progress";
      readonly id: number;
      readonly progress: unknown;
    }
  | {
      readonly channel: typeof CHANNEL;
      readonly kind: "result";
      readonly id: number;
      readonly result: unknown;
    }
  | {
      readonly channel: typeof CHANNEL;
      readonly kind: "error";
      readonly id: number;
      readonly error: ErrorPayload;
    };

/** A failed request's error as data: its class name, message and the fields its class has. */
export interface ErrorPayload {
  readonly name: string;
  readonly message: string;
  /** A ValidationError's argument or option (e.g. "k", "X"). */
  readonly argument?: string;
  /** A DataFormatError's file. */
  readonly file?: string;
  /** A RowValueError's row (from 0). */
  readonly row?: number;
  /** A ModelFormatError's field. */
  readonly field?: string;
  /** What a RowValueError, ModelFormatError or DataFormatError says is wrong. */
  readonly problem?: string;
}

export function isChannelMessage(
  data: unknown,
): data is { channel: typeof CHANNEL; kind: string; id: number } {
  return (
    data !== null &&
    typeof data === "object" &&
    (data as { channel?: unknown }).channel === CHANNEL &&
    typeof (data as { id?: unknown }).id === "number"
  );
}

export function errorPayload(err: unknown): ErrorPayload {
  const e = err instanceof Error ? err : new Error(String(err));
  const payload: { -readonly [K in keyof ErrorPayload]: ErrorPayload[K] } = {
    name: e.name,
    message: e.message,
  };
  if (e instanceof errors.ValidationError) payload.argument = e.argument;
  if (e instanceof errors.RowValueError) {
    payload.row = e.row;
    payload.problem = e.problem;
  }
  if (e instanceof errors.ModelFormatError) {
    payload.field = e.field;
    payload.problem = e.problem;
  }
  if (e instanceof errors.DataFormatError) {
    payload.file = e.file;
    payload.problem = e.problem;
  }
  return payload;
}

/** The error `payload` describes, as an instance of the library's class of that name. */
export function errorFromPayload(payload: ErrorPayload): Error {
  const { name, message } = payload;
  let err: Error;
  switch (name) {
    case "ValidationError":
      err = new errors.ValidationError(payload.argument ?? "", message);
      break;
    case "RowValueError":
      err = new errors.RowValueError(
        payload.argument ?? "",
        payload.row ?? 0,
        payload.problem ?? "",
      );
      break;
    case "ModelFormatError":
      err = new errors.ModelFormatError(payload.field ?? "", payload.problem ?? "");
      break;
    case "DataFormatError":
      err = new errors.DataFormatError(payload.file ?? "", payload.problem ?? "");
      break;
    case "NotFittedError":
      err = new errors.NotFittedError("");
      break;
    case "AbortError":
      err = new errors.AbortError(message);
      break;
    case "ConvergenceError":
      err = new errors.ConvergenceError(message);
      break;
    case "SdspcaanError":
      err = new errors.SdspcaanError(message);
      break;
    default:
      err = new Error(message);
      err.name = name;
  }
  // The worker's exact words: the constructors above rebuild them from parts.
  err.message = message;
  return err;
}

/** A part of a message that cannot cross to a worker: where it is and what it is. */
export interface UnsendablePart {
  /** From the root's name: "options.whiten", "y[3]". */
  readonly path: string;
  /** "a function", "Symbol(a)", "a WeakMap". */
  readonly what: string;
}

function clones(value: object): boolean {
  if (typeof structuredClone !== "function") return true;
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first part of `value` (named `path`) that structured cloning, which postMessage
 * uses, refuses: postMessage's own DataCloneError says what the value is but not where
 * it sits in the request ("() => 1 could not be cloned").
 */
export function unsendablePart(
  value: unknown,
  path: string,
  seen: Set<object> = new Set(),
): UnsendablePart | null {
  if (typeof value === "function") return { path, what: "a function" };
  if (typeof value === "symbol") return { path, what: String(value) };
  if (value === null || typeof value !== "object" || seen.has(value)) return null;
  seen.add(value);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const part = unsendablePart(value[i], `${path}[${i}]`, seen);
      if (part !== null) return part;
    }
    return null;
  }
  const proto = Object.getPrototypeOf(value);
  const plain = proto === Object.prototype || proto === null;
  // Maps, dates and class instances clone by rules of their own: asked of the cloner.
  if (!plain && clones(value)) return null;
  for (const key of Object.keys(value)) {
    const part = unsendablePart((value as Record<string, unknown>)[key], `${path}.${key}`, seen);
    if (part !== null) return part;
  }
  return plain ? null : { path, what: `a ${value.constructor?.name ?? "object"}` };
}
