/**
 * A method is one descriptor: its name, display name, whether it needs labels, its
 * options (type, range, default, doc), which options the protocol's grids tune and
 * over which values, its bounds on k, its column in the paper's Table IV, and how to
 * build an estimator. The registry, the grid presets, the table's column order, the
 * CLI's flags and `--help`, and the runner's per-method rules are all read from
 * here, so a new method is one file that declares a descriptor and registers it.
 */
import type { OptionSchema, OptionsOf } from "../core/options.js";
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

/**
 * Declares a method (checks the declaration's own consistency: tuned options must be
 * number options of the method). Register it with `registerMethod`.
 */
export function defineMethod<S extends OptionSchema>(d: MethodDescriptor<S>): MethodDescriptor<S> {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(d.name)) {
    throw new TypeError(
      `A method name must be lower-case words joined by '-' (e.g. "sdspca-lpp"). Got ${JSON.stringify(d.name)}.`,
    );
  }
  for (const name of Object.keys(d.tuned ?? {})) {
    const spec = d.options[name];
    if (spec === undefined || (spec.type !== "number" && spec.type !== "integer")) {
      throw new TypeError(
        `Method ${d.name} tunes '${name}', which is not one of its number options (${Object.keys(d.options).join(", ")}).`,
      );
    }
  }
  return Object.freeze(d);
}
