/**
 * Argument checks shared by the figure builders. Each failure names the argument (with
 * the offending index) and the value, like the rest of the library.
 */
import { ValidationError } from "../core/errors.js";

export function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (value !== null && typeof value === "object") return "an object";
  return String(value);
}

export function checkNonEmptyArray<T>(argument: string, value: unknown): asserts value is T[] {
  if (!Array.isArray(value)) {
    throw new ValidationError(
      argument,
      `'${argument}' must be an array. Got ${show(value)} instead.`,
    );
  }
  if (value.length === 0) {
    throw new ValidationError(argument, `'${argument}' must not be empty.`);
  }
}

export function checkRecord(argument: string, value: unknown): asserts value is object {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ValidationError(
      argument,
      `'${argument}' must be an object. Got ${show(value)} instead.`,
    );
  }
}

export function checkFinite(argument: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new ValidationError(
      argument,
      `'${argument}' must be a finite number. Got ${show(value)} instead.`,
    );
  }
  return value;
}

export function checkInRange(argument: string, value: unknown, lo: number, hi: number): number {
  const v = checkFinite(argument, value);
  if (v < lo || v > hi) {
    throw new ValidationError(
      argument,
      `'${argument}' must be a number in [${lo}, ${hi}]. Got ${v} instead.`,
    );
  }
  return v;
}

export function checkPositive(argument: string, value: unknown): number {
  const v = checkFinite(argument, value);
  if (v <= 0) {
    throw new ValidationError(argument, `'${argument}' must be positive. Got ${v} instead.`);
  }
  return v;
}

/** BCA as a fraction in [0, 1]; a value above 1 is most likely a percentage. */
export function checkBca(argument: string, value: unknown): number {
  const v = checkFinite(argument, value);
  if (v < 0 || v > 1) {
    throw new ValidationError(
      argument,
      `'${argument}' must be a balanced accuracy in [0, 1] (a fraction, not a percentage). Got ${v} instead.`,
    );
  }
  return v;
}

export function checkOptionalText(argument: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw new ValidationError(
      argument,
      `'${argument}' must be a string. Got ${show(value)} instead.`,
    );
  }
  return value;
}

/** A size in pixels for a plot dimension, with a default. */
export function checkSize(argument: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const v = checkFinite(argument, value);
  if (v < 20 || v > 5000) {
    throw new ValidationError(
      argument,
      `'${argument}' must be a size in pixels in [20, 5000]. Got ${v} instead.`,
    );
  }
  return v;
}

/** The figure options every figure takes: checks `options` and returns its title and subtitle. */
export function figureTexts(options: unknown): { title?: string; subtitle?: string } {
  checkRecord("options", options);
  const o = options as { title?: unknown; subtitle?: unknown };
  const title = checkOptionalText("options.title", o.title);
  const subtitle = checkOptionalText("options.subtitle", o.subtitle);
  return {
    ...(title !== undefined ? { title } : {}),
    ...(subtitle !== undefined ? { subtitle } : {}),
  };
}

/**
 * A user-given [low, high] axis domain in percent: two numbers, low < high, each
 * checked by `bound` (finite, or within [0, 100]).
 */
export function checkDomain(
  argument: string,
  given: unknown,
  bound: (argument: string, value: unknown) => number = checkFinite,
): [number, number] {
  if (!Array.isArray(given) || given.length !== 2) {
    throw new ValidationError(
      argument,
      `'${argument}' must be [low, high] in percent. Got ${show(given)} instead.`,
    );
  }
  const lo = bound(`${argument}[0]`, given[0]);
  const hi = bound(`${argument}[1]`, given[1]);
  if (!(lo < hi)) {
    throw new ValidationError(
      argument,
      `'${argument}' must have low < high. Got [${lo}, ${hi}] instead.`,
    );
  }
  return [lo, hi];
}
