/**
 * Error types of sdspcaan. Every error the library throws on purpose is a
 * `SdspcaanError`, so callers can tell our diagnostics from bugs.
 */

/** Base class of every error sdspcaan throws on purpose. */
export class SdspcaanError extends Error {
  /** The class name, as `instanceof` would tell. */
  override name = "SdspcaanError";
}

/**
 * A bad argument or option: names the argument, what is allowed and what was given
 * (the scikit-learn style: "The 'k' parameter of SDSPCAAN must be an integer in
 * [1, 483]. Got 0 instead.").
 */
export class ValidationError extends SdspcaanError {
  /** The class name, as `instanceof` would tell. */
  override name = "ValidationError";
  /** The argument or option at fault (e.g. "k", "X", "y"). */
  readonly argument: string;
  constructor(argument: string, message: string) {
    super(message);
    this.argument = argument;
  }
}

/**
 * A bad value in one row (sample) of an input matrix: `row` counts from 0, so that
 * a caller that read the matrix from a file can name the file and its line.
 */
export class RowValueError extends ValidationError {
  /** The class name, as `instanceof` would tell. */
  override name = "RowValueError";
  /** The row at fault, counting from 0. */
  readonly row: number;
  /** What is wrong with the row, without naming it ("projecting it overflows ..."). */
  readonly problem: string;
  constructor(argument: string, row: number, problem: string) {
    super(argument, `Row ${row} of ${argument} (counting from 0): ${problem}.`);
    this.row = row;
    this.problem = problem;
  }
}

/**
 * A saved model (its JSON) that is not what `toJSON` writes: names the field at fault
 * ("preprocessing.method", "components.data[12]"), what it must be and what it is.
 * Its argument is "json"; callers reading a file put the file's name in front.
 */
export class ModelFormatError extends ValidationError {
  /** The class name, as `instanceof` would tell. */
  override name = "ModelFormatError";
  /** The field at fault as a path into the JSON ("" for the whole document). */
  readonly field: string;
  /** What is wrong, without the field: "must be one of ...; got \"bogus\"". */
  readonly problem: string;
  constructor(field: string, problem: string) {
    super(
      "json",
      `Not a valid sdspcaan model: ${field === "" ? "" : `field '${field}' `}${problem}.`,
    );
    this.field = field;
    this.problem = problem;
  }
}

/** A fitted attribute or `transform` was used before `fit`. */
export class NotFittedError extends SdspcaanError {
  /** The class name, as `instanceof` would tell. */
  override name = "NotFittedError";
  constructor(owner: string) {
    super(
      `This ${owner} instance is not fitted yet. Call 'fit' with appropriate arguments before using this estimator.`,
    );
  }
}

/** Work stopped because its AbortSignal fired. `name` is "AbortError" as in the DOM. */
export class AbortError extends SdspcaanError {
  /** The class name, as `instanceof` would tell. */
  override name = "AbortError";
  constructor(message = "The operation was aborted.") {
    super(message);
  }
}

/** A file could not be read as data: names the file and what is wrong with it. */
export class DataFormatError extends SdspcaanError {
  /** The class name, as `instanceof` would tell. */
  override name = "DataFormatError";
  /** The file (or data set name) at fault, as the caller named it. */
  readonly file: string;
  /** What is wrong with it, without the file's name. */
  readonly problem: string;
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.file = file;
    this.problem = problem;
  }
}

/** Throws the DataFormatError of `file` with `problem` (the file readers' one way to refuse). */
export function failDataFormat(file: string, problem: string): never {
  throw new DataFormatError(file, problem);
}

/** A numerical routine failed to reach its tolerance where that is fatal. */
export class ConvergenceError extends SdspcaanError {
  /** The class name, as `instanceof` would tell. */
  override name = "ConvergenceError";
}

/**
 * A method's fit broke the estimator contract: its `fitCore` returned components
 * that are not a d x k `Matrix` of the fitted data. A bug of that method (a plug-in's,
 * as the built-ins keep it), which a protocol run records as a failed configuration.
 */
export class ContractError extends SdspcaanError {
  /** The class name, as `instanceof` would tell. */
  override name = "ContractError";
}

/** Throws an AbortError when the signal has fired (call between units of work). */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortErrorOf(signal);
}

/**
 * The AbortError of a fired signal, with its reason when one was given: what `fit`
 * throws, and what a fit in a worker rejects with, so both say the same.
 */
export function abortErrorOf(signal: AbortSignal): AbortError {
  const reason: unknown = signal.reason;
  if (reason instanceof AbortError) return reason;
  const detail =
    reason instanceof Error ? reason.message : reason === undefined ? "" : String(reason);
  return new AbortError(
    detail && detail !== "This operation was aborted"
      ? `The operation was aborted: ${detail}`
      : undefined,
  );
}
