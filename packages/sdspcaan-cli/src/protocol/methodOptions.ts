/**
 * The one place where the layers of a method's options are merged. A fit of the
 * protocol is constructed with, from weakest to strongest:
 *
 * 1. the run's common options that the method has (`--max-iter`, `--tol`, ...);
 * 2. the method's own fixed options (`methodOptions[method]`);
 * 3. the options a grid preset fixes for the work unit (`presetUnitOptions`, e.g.
 *    SLNP's PCA dimension under "authors"); they never hold an option of layers 1
 *    and 2, as what the user fixed wins over the preset's choice;
 * 4. k, set by the k grid;
 * 5. the grid point (the tuned multipliers).
 *
 * Layers 1 and 2 are merged once per run into the method's fixed options, which
 * settings.json records (`resolveMethodOptions`); the runner, the workers, the
 * fingerprints and the report's refit all build a fit's options with
 * `fitOptions`, so they cannot disagree on what a fit was run with.
 */
import { createMethod, methodNames, ValidationError } from "sdspcaan";
import type { GridPreset } from "sdspcaan/methods";
import { methodDescriptor, normalizeMethodName } from "sdspcaan/methods";
import { type GridSpec, type Params, tunedParams } from "./grids.js";

type Options = Readonly<Record<string, unknown>>;

/** The layers of one fit's options (see the file comment for their order). */
export interface OptionLayers {
  /** The method's fixed options: common and own, as settings.json records them. */
  readonly fixed?: Options;
  /** Options the grid preset fixes for the unit (a line's `unitOptions`). */
  readonly unit?: Options;
  /** k; absent when the options are wanted without it (fingerprints). */
  readonly k?: number;
  /** The grid point. */
  readonly params?: Params;
}

/** The options a method is constructed with for one fit. */
export function fitOptions(layers: OptionLayers): Record<string, unknown> {
  return {
    ...(layers.fixed ?? {}),
    ...(layers.unit ?? {}),
    ...(layers.k !== undefined ? { k: layers.k } : {}),
    ...(layers.params ?? {}),
  };
}

/**
 * Fixed options per method: the common options the method has, then its own (which
 * win). k and the tuned options are refused (the grids set them), and each method
 * is constructed once so that a bad option fails the run before any fit.
 */
export function resolveMethodOptions(
  methods: readonly string[],
  common: Options | undefined,
  perMethod: Readonly<Record<string, Options>> | undefined,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const given = new Map<string, Options>();
  for (const [name, opts] of Object.entries(perMethod ?? {})) {
    methodDescriptor(name);
    given.set(normalizeMethodName(name), opts);
  }
  for (const m of methods) {
    const schema = methodDescriptor(m).options;
    const commonHere: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(common ?? {})) {
      if (Object.hasOwn(schema, key) && value !== undefined) commonHere[key] = value;
    }
    const opts = { ...commonHere, ...(given.get(m) ?? {}) };
    if (Object.hasOwn(opts, "k")) {
      throw new ValidationError("methodOptions", `'k' of ${m} is set by the k grid ('kGrid').`);
    }
    for (const name of tunedParams(m)) {
      if (Object.hasOwn(opts, name)) {
        throw new ValidationError(
          "methodOptions",
          `'${name}' of ${m} is set by the hyperparameter grid; give a one-value grid (e.g. "${name}=1") instead of a fixed option.`,
        );
      }
    }
    createMethod(m, fitOptions({ fixed: opts }));
    out[m] = opts;
  }
  return out;
}

/**
 * Options a grid preset fixes per (dataset, repeat, method) unit, from the method's
 * descriptor (`presetOptions`). The "authors" preset runs SLNP as the authors'
 * experiment script's "SLNP (PCA)" column, the one that matches the paper's SLNP
 * numbers: on the top-maxK principal-component scores, maxK = the largest k of the
 * unit's k list. An option the user fixed wins over the preset's choice, so it is
 * left out here. Because the options may depend on the k list, a change of the k
 * grid changes these fits; their fingerprints carry it.
 */
export function presetUnitOptions(
  grid: GridSpec,
  method: string,
  ks: readonly number[],
  fixed: Options,
): Record<string, unknown> | null {
  if (typeof grid !== "string" || !methodNames().includes(method)) return null;
  const rule = methodDescriptor(method).presetOptions;
  const chosen = rule ? rule(grid as GridPreset, { ks }) : null;
  if (chosen === null) return null;
  const out = Object.fromEntries(
    Object.entries(chosen).filter(([key]) => !Object.hasOwn(fixed, key)),
  );
  return Object.keys(out).length > 0 ? out : null;
}
