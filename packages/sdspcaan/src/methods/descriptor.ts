/**
 * A method is one descriptor: its name, display name, whether it needs labels, its
 * options (type, range, default, doc), which options the protocol's grids tune and
 * over which values, its bounds on k, its column in the paper's Table IV, and how to
 * build an estimator. The registry, the grid presets, the table's column order, the
 * CLI's flags and `--help`, and the runner's per-method rules are all read from
 * here, so a new method is one file that declares a descriptor and registers it.
 */
import { ValidationError } from "../core/errors.js";
import { checkOptionSchema, type OptionSchema, type OptionsOf } from "../core/options.js";
import { describeValue } from "../core/validate.js";
import type { Estimator, MethodIdentity } from "./estimator.js";

/** The grid presets of the protocol (see protocol/grids.ts). */
export const GRID_PRESETS = ["paper", "authors", "quick"] as const;
export type GridPreset = (typeof GRID_PRESETS)[number];

/** The values a tuned option takes under each grid preset. */
export type PresetValues = Readonly<Record<GridPreset, readonly number[]>>;

/** The multiplier grid {0.01, 0.1, 1, 10, 100} of the paper's Section III-C. */
export const MULTIPLIER_GRID: readonly number[] = Object.freeze([0.01, 0.1, 1, 10, 100]);

/** Facts about a data set that bound the k a method can use on it. */
export interface KBoundsContext {
  /** Number of classes c. */
  readonly classes: number;
}

/** A method's own bounds on k in the protocol, replacing the paper's c <= k (see kGrid). */
export interface KBounds {
  readonly minK?: number;
  readonly maxK?: number;
}

/** What a method may fix per work unit under a grid preset (e.g. SLNP's PCA dimension). */
export interface PresetContext {
  /** The k values the unit will fit, ascending. */
  readonly ks: readonly number[];
}

export interface MethodDescriptor<S extends OptionSchema = OptionSchema> extends MethodIdentity<S> {
  /** One line for `--help`, `datasets`-style listings and the docs. */
  readonly summary: string;
  /**
   * The options the protocol tunes besides k, with their values per grid preset,
   * in enumeration order (the first varies slowest). Options not listed keep their
   * value (the default, or what the user fixed).
   */
  readonly tuned?: Readonly<Partial<Record<keyof S & string, PresetValues>>>;
  /** Bounds on k that differ from the paper's c <= k <= min(n, d). */
  readonly kBounds?: (context: KBoundsContext) => KBounds;
  /** Options a grid preset fixes per work unit (null when none). */
  readonly presetOptions?: (
    preset: GridPreset,
    context: PresetContext,
  ) => Partial<OptionsOf<S>> | null;
  /** 0-based column in the paper's Table IV; absent for methods the paper does not compare. */
  readonly paperColumn?: number;
  /** A new, unfitted estimator with these options (validated by the estimator). */
  readonly create: (options?: Partial<OptionsOf<S>>) => Estimator<OptionsOf<S>>;
}

/** Declarations already checked (defineMethod freezes what it checked). */
const CHECKED = new WeakSet<object>();

/**
 * Refuses a declaration that is not a method's, once (defineMethod, and registerMethod
 * for a descriptor written without it): each mistake would otherwise surface later, as
 * a refusal of a user's value or a TypeError in the CLI. The errors name the method and
 * the field or option at fault; their argument is "descriptor", the declaration.
 */
export function checkMethodDeclaration(d: unknown): asserts d is MethodDescriptor {
  if (d !== null && typeof d === "object" && CHECKED.has(d)) return;
  if (d === null || typeof d !== "object") {
    throw new ValidationError(
      "descriptor",
      `A method's declaration is an object (defineMethod({ name, displayName, summary, supervised, options, create })). Got ${describeValue(d)} instead.`,
    );
  }
  const m = d as Partial<Record<keyof MethodDescriptor, unknown>>;
  if (typeof m.name !== "string" || !/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(m.name)) {
    throw new ValidationError(
      "descriptor",
      `A method name must be lower-case words joined by '-' (e.g. "sdspca-lpp"). Got ${describeValue(m.name)}.`,
    );
  }
  const owner = `Method ${m.name}`;
  const refuse = (field: string, what: string): never => {
    throw new ValidationError(
      "descriptor",
      `${owner}'s ${field} ${what}. Got ${describeValue(m[field as keyof MethodDescriptor])} instead.`,
    );
  };
  for (const field of ["displayName", "summary"] as const) {
    if (typeof m[field] !== "string" || (m[field] as string).trim() === "") {
      refuse(field, "must be a non-empty string");
    }
  }
  if (typeof m.supervised !== "boolean") refuse("supervised", "must be true or false");
  if (typeof m.create !== "function") {
    refuse("create", "must be a function returning a new estimator (options) => new Mine(options)");
  }
  for (const field of ["kBounds", "presetOptions"] as const) {
    if (m[field] !== undefined && typeof m[field] !== "function")
      refuse(field, "must be a function");
  }
  if (
    m.paperColumn !== undefined &&
    (typeof m.paperColumn !== "number" || !Number.isInteger(m.paperColumn) || m.paperColumn < 0)
  ) {
    refuse("paperColumn", "must be an integer from 0");
  }
  checkOptionSchema(owner, m.options);
  const options = m.options;
  const tuned = m.tuned ?? {};
  if (tuned === null || typeof tuned !== "object") refuse("tuned", "must be an object");
  for (const name of Object.keys(tuned as object)) {
    const spec = options[name];
    if (spec === undefined || (spec.type !== "number" && spec.type !== "integer")) {
      throw new ValidationError(
        "descriptor",
        `${owner} tunes '${name}', which is not one of its number options (${Object.keys(options).join(", ")}).`,
      );
    }
  }
  CHECKED.add(d);
}

/**
 * Declares a method, checking the declaration (checkMethodDeclaration). Register it
 * with `registerMethod`.
 */
export function defineMethod<S extends OptionSchema>(d: MethodDescriptor<S>): MethodDescriptor<S> {
  checkMethodDeclaration(d);
  return Object.freeze(d);
}
