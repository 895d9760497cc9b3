/**
 * Argument checks shared by the figure builders. Each failure names the argument (with
 * the offending index) and the value, like the rest of the library.
 */
import { ValidationError } from "sdspcaan";

/**
 * Throws the figures' refusal of an argument: "'<argument>' must be <what>. Got
 * <value> instead."
 */
export function refuse(argument: string, what: string, value: unknown): never {
  throw new ValidationError(argument, `'${argument}' must be ${what}. Got ${show(value)} instead.`);
}

export function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (value !== null && typeof value === "object") return "an object";
  return String(value);
}

export function checkNonEmptyArray<T>(argument: string, value: unknown): asserts value is T[] {
  if (!Array.isArray(value)) {
    refuse(argument, "an array", value);
  }
  if (value.length === 0) {
    throw new ValidationError(argument, `'${argument}' must not be empty.`);
  }
}

export function checkRecord(argument: string, value: unknown): asserts value is object {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    refuse(argument, "an object", value);
  }
}

export function checkFinite(argument: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    refuse(argument, "a finite number", value);
  }
  return value;
}

export function checkInRange(argument: string, value: unknown, lo: number, hi: number): number {
  const v = checkFinite(argument, value);
  if (v < lo || v > hi) {
    refuse(argument, `a number in [${lo}, ${hi}]`, v);
  }
  return v;
}

export function checkPositive(argument: string, value: unknown): number {
  const v = checkFinite(argument, value);
  if (v <= 0) {
    refuse(argument, "positive", v);
  }
  return v;
}

/** BCA as a fraction in [0, 1]; a value above 1 is most likely a percentage. */
export function checkBca(argument: string, value: unknown): number {
  const v = checkFinite(argument, value);
  if (v < 0 || v > 1) {
    refuse(argument, "a balanced accuracy in [0, 1] (a fraction, not a percentage)", v);
  }
  return v;
}

export function checkOptionalText(argument: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    refuse(argument, "a string", value);
  }
  return value;
}

/** A BCA's ±std band in percent, clipped to [0, 100]; `std` is checked as a BCA. */
export function bcaBand(
  argument: string,
  bca: number,
  std: unknown,
): { lower: number; upper: number } {
  const s = checkBca(argument, std);
  return { lower: Math.max(0, 100 * (bca - s)), upper: Math.min(100, 100 * (bca + s)) };
}

/**
 * Refuses the item at `at` when its `key` was seen before ("'<at>' repeats <what>"),
 * and remembers the key.
 */
export function checkUnique(seen: Set<string>, key: string, at: string, what: () => string): void {
  if (seen.has(key)) throw new ValidationError(at, `'${at}' repeats ${what()}`);
  seen.add(key);
}

/** A non-empty string (a name: a method, a panel, a line). */
export function checkName(argument: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0)
    refuse(argument, "a non-empty string", value);
  return value;
}

/** A size in pixels for a plot dimension, with a default. */
export function checkSize(argument: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const v = checkFinite(argument, value);
  if (v < 20 || v > 5000) {
    refuse(argument, "a size in pixels in [20, 5000]", v);
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
 * What every figure builder checks first: its data (`argument`) is a non-empty array,
 * and its options, whose title and subtitle it returns.
 */
export function figureInputs(
  argument: string,
  data: unknown,
  options: unknown,
): { title?: string; subtitle?: string } {
  checkNonEmptyArray(argument, data);
  return figureTexts(options);
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
    refuse(argument, "[low, high] in percent", given);
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
