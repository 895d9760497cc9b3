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
  /**
   * The model format version that added the option: a saved model of an older version,
   * which lacks it, loads with the option's default (the fit it records had none).
   */
  readonly since?: number;
}
export interface IntegerSpec extends BaseSpec {
  readonly type: "integer";
  readonly min?: number;
  readonly max?: number;
  /**
   * Also accepts a fraction 0 < value < 1, whose meaning the doc says (PCA's k: the
   * share of the variance to keep).
   */
  readonly fraction?: boolean;
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

/**
 * Optimal-string-alignment distance: insertions, deletions, substitutions and swaps
 * of two neighbouring characters ("alpah" -> "alpha") each cost 1.
 */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2][j - 2] + 1);
      }
      d[i][j] = v;
    }
  }
  return d[a.length][b.length];
}

/**
 * The option of `names` that `given` is most likely a misspelling of, or null. The
 * edits may touch at most a third of the longer name, or one character when the
 * longer name has two or more ('kk' -> 'k'), so a one-letter name is never
 * "corrected" into another one ('m' is not a typo of 'k') and 'delta' is not offered
 * for 'beta'; ties are refused rather than guessed.
 */
export function closestName(given: string, names: readonly string[]): string | null {
  const key = given.toLowerCase();
  let best: string | null = null;
  let bestDist = Number.POSITIVE_INFINITY;
  let tie = false;
  for (const name of names) {
    const dist = editDistance(key, name.toLowerCase());
    const longer = Math.max(key.length, name.length);
    const allowed = Math.max(Math.floor(longer / 3), longer >= 2 ? 1 : 0);
    if (dist > allowed) continue;
    if (dist < bestDist) {
      best = name;
      bestDist = dist;
      tie = false;
    } else if (dist === bestDist) tie = true;
  }
  return tie ? null : best;
}

/**
 * The names of an options type, written once as `{ name: true, ... }`: the type
 * argument makes the compiler insist on every name of T and no other, so the list a
 * call checks at run time cannot drift from the type its users see.
 */
export function optionNames<T extends object>(
  names: {
    readonly [K in keyof Required<T>]: true;
  },
): readonly string[] {
  return Object.freeze(Object.keys(names));
}

/**
 * Refuses an options object holding a name not among `names`, naming it and, when one
 * name is clearly closest, the name it is likely a misspelling of: plain JavaScript
 * callers would otherwise have a misspelt option ignored without a word. `owner` is
 * the function or class as the user called it ("SDSPCAAN", "Pipeline.fit").
 */
export function checkOptionNames(owner: string, given: object, names: readonly string[]): void {
  for (const key of Object.keys(given)) {
    if (!names.includes(key)) {
      const close = closestName(key, names);
      throw new ValidationError(
        key,
        `${owner} has no option '${key}'${close ? ` (did you mean '${close}'?)` : ""}. Valid options: ${names.length ? names.join(", ") : "none"}.`,
      );
    }
  }
}

/**
 * The options of `names` that `given` holds: what an entry taking more options hands
 * to a narrower one it calls (which refuses names it does not take).
 */
export function pickOptions<T extends object>(given: T, names: readonly string[]): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    if (Object.hasOwn(given, name)) out[name] = (given as Record<string, unknown>)[name];
  }
  return out as Partial<T>;
}

/**
 * What a valid value of the option looks like ("an integer in [1, inf)"),
 * or null when `value` is valid.
 */
export function optionProblem(spec: OptionSpec, value: unknown): string | null {
  if (value === null && (spec.type === "integer" || spec.type === "number")) {
    if (spec.default === null) return null;
  }
  switch (spec.type) {
    case "integer":
      if (spec.fraction && typeof value === "number" && value > 0 && value < 1) return null;
      if (
        typeof value !== "number" ||
        !Number.isInteger(value) ||
        value < (spec.min ?? Number.NEGATIVE_INFINITY) ||
        value > (spec.max ?? Number.POSITIVE_INFINITY)
      ) {
        const fraction = spec.fraction ? " or a fraction in (0, 1)" : "";
        return `an integer in ${rangeText(spec)}${fraction}`;
      }
      return null;
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
        return `a number in ${rangeText(spec)}`;
      }
      return null;
    }
    case "enum":
      if (typeof value !== "string" || !spec.values.includes(value)) {
        return `one of ${spec.values.map((v) => JSON.stringify(v)).join(", ")}`;
      }
      return null;
    case "boolean":
      return typeof value === "boolean" ? null : "true or false";
  }
}

/** Checks one option value against its spec; returns it unchanged when valid. */
export function checkOption(
  owner: string,
  name: string,
  spec: OptionSpec,
  value: unknown,
): unknown {
  const expected = optionProblem(spec, value);
  if (expected !== null) {
    throw new ValidationError(
      name,
      `The '${name}' parameter of ${owner} must be ${expected}. Got ${show(value)} instead.`,
    );
  }
  return value;
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
  checkOptionNames(owner, input, Object.keys(schema));
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(schema)) {
    const value = input[name] === undefined ? spec.default : input[name];
    out[name] = checkOption(owner, name, spec, value);
  }
  return out as T;
}

const OPTION_TYPES = ["integer", "number", "enum", "boolean"] as const;

/** A declared value as written in the declaration: "integr" quoted, -5, [1, 2], a function. */
function declared(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (typeof value === "number" || value === undefined) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The fields each type of option declares (BaseSpec's, then the type's own). */
const SPEC_FIELDS: Readonly<Record<OptionSpec["type"], readonly string[]>> = {
  integer: ["type", "doc", "default", "expert", "since", "min", "max", "fraction"],
  number: ["type", "doc", "default", "expert", "since", "min", "max", "exclusiveMin"],
  enum: ["type", "doc", "default", "expert", "since", "values"],
  boolean: ["type", "doc", "default", "expert", "since"],
};

/**
 * An option's name is a flag of the CLI (`maxIter` is `--max-iter`) and a key of the
 * options object and of the model file: a letter, then letters and digits.
 */
const OPTION_NAME = /^[A-Za-z][A-Za-z0-9]*$/;

/**
 * Refuses a schema that is not a declaration of options, once, where the method is
 * declared: each option's name, type, fields, range and default. Otherwise the mistake
 * surfaces later as a refusal of the user's value ("must be an integer in [10, 1]",
 * "must be undefined") or of nothing the user gave (a default outside its own range).
 * `owner` names the method in the ValidationError ("Method randproj"); its argument is
 * "descriptor", the declaration (registerMethod's argument), as for a name taken twice.
 */
export function checkOptionSchema(owner: string, schema: unknown): asserts schema is OptionSchema {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    throw new ValidationError(
      "descriptor",
      `${owner}'s options must be an object of option declarations ({ k: { type: "integer", min: 1, default: 2, doc: "..." } }). Got ${declared(schema)} instead.`,
    );
  }
  for (const [name, spec] of Object.entries(schema)) {
    const refuse: (problem: string) => never = (problem) => {
      throw new ValidationError("descriptor", `${owner}'s option '${name}' ${problem}.`);
    };
    if (!OPTION_NAME.test(name)) {
      throw new ValidationError(
        "descriptor",
        `${owner}'s option name ${JSON.stringify(name)} is not one: an option's name is a letter, then letters and digits (camelCase, e.g. "maxIter"), as it becomes a flag of the CLI (--max-iter).`,
      );
    }
    if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
      refuse(`must be declared by an object ({ type, default, doc, ... }); got ${declared(spec)}`);
    }
    checkOptionSpec(spec as Record<string, unknown>, refuse);
  }
}

function checkOptionSpec(spec: Record<string, unknown>, refuse: (problem: string) => never): void {
  const type = spec.type as OptionSpec["type"];
  if (!OPTION_TYPES.includes(type)) {
    const close = typeof type === "string" ? closestName(type, OPTION_TYPES) : null;
    refuse(
      `has the type ${declared(type)}${close ? ` (did you mean "${close}"?)` : ""}; an option's type is one of ${OPTION_TYPES.map((t) => `"${t}"`).join(", ")}`,
    );
  }
  const fields = SPEC_FIELDS[type];
  for (const field of Object.keys(spec)) {
    if (!fields.includes(field)) {
      const close = closestName(field, fields);
      refuse(
        `has a field '${field}'${close ? ` (did you mean '${close}'?)` : ""} that ${type} options do not have (${fields.join(", ")})`,
      );
    }
  }
  if (typeof spec.doc !== "string" || spec.doc.trim() === "") {
    refuse(
      `needs a doc, a one-line description for --help and the errors; got ${declared(spec.doc)}`,
    );
  }
  for (const flag of ["expert", "fraction", "exclusiveMin"]) {
    if (spec[flag] !== undefined && typeof spec[flag] !== "boolean") {
      refuse(`has ${flag} ${declared(spec[flag])}; it is true or false`);
    }
  }
  if (
    spec.since !== undefined &&
    (typeof spec.since !== "number" || !Number.isInteger(spec.since) || spec.since < 1)
  ) {
    refuse(`has since ${declared(spec.since)}; it is a model format version (an integer from 1)`);
  }
  if (type === "integer" || type === "number") {
    for (const bound of ["min", "max"]) {
      const v = spec[bound];
      if (v !== undefined && (typeof v !== "number" || Number.isNaN(v))) {
        refuse(`has ${bound} ${declared(v)}; a bound is a number`);
      }
    }
    const lo = (spec.min as number | undefined) ?? Number.NEGATIVE_INFINITY;
    const hi = (spec.max as number | undefined) ?? Number.POSITIVE_INFINITY;
    if (lo > hi || (spec.exclusiveMin === true && lo === hi)) {
      refuse(`has min ${lo} and max ${hi}, a range no value is in`);
    }
  } else if (type === "enum") {
    const values = spec.values;
    if (
      !Array.isArray(values) ||
      values.length === 0 ||
      values.some((v) => typeof v !== "string") ||
      new Set(values).size !== values.length
    ) {
      refuse(`has values ${declared(values)}; they are a non-empty list of distinct strings`);
    }
  }
  if (spec.default === undefined) refuse("has no default (null for a number chosen at fit time)");
  if (spec.default === null && type !== "integer" && type !== "number") {
    refuse(`has the default null, which only number options take ("chosen from the data")`);
  }
  const problem = optionProblem(spec as unknown as OptionSpec, spec.default);
  if (problem !== null) {
    refuse(
      `has the default ${declared(spec.default)}, which its own declaration refuses: it must be ${problem}`,
    );
  }
}
