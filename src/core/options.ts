/**
 * Declarative option schemas. Each estimator describes its options once; the same
 * description validates user input (unknown names and out-of-range values are errors
 * naming the option, the allowed range and the value) and documents the defaults.
 */
import { ValidationError } from "./errors.js";

interface BaseSpec {
  /** One-line description, shown in errors, `--help` and generated docs. */
  readonly doc: string;
  /**
   * An option only experts need (stop rules, solver choice, caps): listed after
   * the others in `--help` and the docs, so the first screen shows what most users set.
   */
  readonly expert?: boolean;
}
export interface IntegerSpec extends BaseSpec {
  readonly type: "integer";
  readonly min?: number;
  readonly max?: number;
  /** `null` means "chosen from the data at fit time" (e.g. m = min(15, n - 2)). */
  readonly default: number | null;
}
export interface NumberSpec extends BaseSpec {
  readonly type: "number";
  readonly min?: number;
  readonly max?: number;
  /** Exclude the lower bound itself (e.g. tol > 0). */
  readonly exclusiveMin?: boolean;
  readonly default: number | null;
}
export interface EnumSpec extends BaseSpec {
  readonly type: "enum";
  readonly values: readonly string[];
  readonly default: string;
}
export interface BooleanSpec extends BaseSpec {
  readonly type: "boolean";
  readonly default: boolean;
}
export type OptionSpec = IntegerSpec | NumberSpec | EnumSpec | BooleanSpec;
export type OptionSchema = Readonly<Record<string, OptionSpec>>;

/**
 * The value type an option spec declares: numbers (or null where the default is
 * null, "chosen from the data"), the enum's literal values, or a boolean. Declare a
 * schema `as const` (with `satisfies OptionSchema`) so that enum values and null
 * defaults keep their literal types.
 */
export type OptionValue<S> = S extends { readonly type: "integer" | "number" }
  ? S extends { readonly default: null }
    ? number | null
    : number
  : S extends { readonly type: "enum"; readonly values: readonly (infer V)[] }
    ? V
    : S extends { readonly type: "boolean" }
      ? boolean
      : never;

/** The options object a schema describes (every option present, defaults filled in). */
export type OptionsOf<S extends OptionSchema> = { -readonly [K in keyof S]: OptionValue<S[K]> };

function show(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

function rangeText(spec: IntegerSpec | NumberSpec): string {
  const lo = spec.min ?? Number.NEGATIVE_INFINITY;
  const hi = spec.max ?? Number.POSITIVE_INFINITY;
  const left = spec.type === "number" && spec.exclusiveMin ? "(" : "[";
  const f = (v: number) => (v === Number.POSITIVE_INFINITY ? "inf" : v === -Infinity ? "-inf" : v);
  const right = hi === Number.POSITIVE_INFINITY ? ")" : "]";
  const leftB = lo === Number.NEGATIVE_INFINITY ? "(" : left;
  return `${leftB}${f(lo)}, ${f(hi)}${right}`;
}

function editDistance(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0];
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j];
      dp[j] = Math.min(dp[j] + 1, dp[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length];
}

/** Checks one option value against its spec; returns it unchanged when valid. */
export function checkOption(
  owner: string,
  name: string,
  spec: OptionSpec,
  value: unknown,
): unknown {
  const fail = (expected: string): never => {
    throw new ValidationError(
      name,
      `The '${name}' parameter of ${owner} must be ${expected}. Got ${show(value)} instead.`,
    );
  };
  if (value === null && (spec.type === "integer" || spec.type === "number")) {
    if (spec.default === null) return null;
  }
  switch (spec.type) {
    case "integer":
      if (
        typeof value !== "number" ||
        !Number.isInteger(value) ||
        value < (spec.min ?? Number.NEGATIVE_INFINITY) ||
        value > (spec.max ?? Number.POSITIVE_INFINITY)
      ) {
        fail(`an integer in the range ${rangeText(spec)}`);
      }
      return value;
    case "number": {
      const lo = spec.min ?? Number.NEGATIVE_INFINITY;
      const hi = spec.max ?? Number.POSITIVE_INFINITY;
      if (
        typeof value !== "number" ||
        Number.isNaN(value) ||
        value < lo ||
        (spec.exclusiveMin && value === lo) ||
        value > hi ||
        !Number.isFinite(value) // every number option is finite ("[0, inf)" excludes inf)
      ) {
        fail(`a number in the range ${rangeText(spec)}`);
      }
      return value;
    }
    case "enum":
      if (typeof value !== "string" || !spec.values.includes(value)) {
        fail(`one of ${spec.values.map((v) => JSON.stringify(v)).join(", ")}`);
      }
      return value;
    case "boolean":
      if (typeof value !== "boolean") fail("true or false");
      return value;
  }
}

/**
 * Merges user options over the schema's defaults. Unknown names, wrong types and
 * out-of-range values throw a ValidationError naming the option.
 */
export function resolveOptions<T>(owner: string, schema: OptionSchema, given: unknown): T {
  if (
    given !== undefined &&
    (given === null || typeof given !== "object" || Array.isArray(given))
  ) {
    throw new ValidationError(
      "options",
      `The options of ${owner} must be an object. Got ${show(given)} instead.`,
    );
  }
  const input = (given ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(schema, key)) {
      const names = Object.keys(schema);
      const close = names
        .map((n) => [n, editDistance(key.toLowerCase(), n.toLowerCase())] as const)
        .filter(([, dist]) => dist <= 2)
        .sort((a, b) => a[1] - b[1])[0];
      throw new ValidationError(
        key,
        `${owner} has no option '${key}'${close ? ` (did you mean '${close[0]}'?)` : ""}. Valid options: ${names.length ? names.join(", ") : "none"}.`,
      );
    }
  }
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema)) {
    const value = input[name] === undefined ? spec.default : input[name];
    out[name] = checkOption(owner, name, spec, value);
  }
  return out as T;
}
