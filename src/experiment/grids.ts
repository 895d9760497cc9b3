/**
 * Hyperparameter grids of the protocol (SPEC 5). Every method is also tuned over k
 * (see kGrid.ts); these grids cover the rest. Parameter names are the method
 * classes' option names: `alpha`, `beta`, `delta` (the multipliers a, b, c of the
 * trace-scaled weights) and `eta` (JPCDA's ridge weight).
 *
 * Presets:
 * - "paper": each of a, b, c in {0.01, 0.1, 1, 10, 100} where the method has it
 *   (SDSPCA a, b; SDSPCA-LPP and SDSPCAAN a, b, c); JPCDA eta in the same set.
 * - "authors": what the released scripts ran (demo.m of the authors' repository):
 *   a = b = 1, c in {0.01, ..., 100} for SDSPCA-LPP and SDSPCAAN, SDSPCA untuned
 *   (a = b = 1), JPCDA eta in {0.01, ..., 100}; SLNP on PCA scores (the runner's
 *   presetUnitOptions sets pcaDimensions = the largest k of each data set).
 * - "quick": a small grid for demos: a = b = 1, c and eta in {0.1, 1, 10}.
 * Baseline, PCA, PCAN, SPCAN, SLNP, LDA and LPP have nothing to tune beyond k.
 *
 * Enumeration order (which decides ties in selection): parameters in the method's
 * order (alpha, beta, delta, or eta), the first varying slowest and the last
 * fastest (like nested loops, or Python's itertools.product), each over its values
 * in the order given (ascending in the presets).
 */
import { ValidationError } from "../core/errors.js";

/** The method names of the protocol, in the order of the paper's Table IV, then extras. */
export const METHOD_NAMES = [
  "baseline",
  "pca",
  "jpcda",
  "sdspca",
  "slnp",
  "spcan",
  "sdspca-lpp",
  "sdspcaan",
  "pcan",
  "lda",
  "lpp",
] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

/** Display names as in the paper's tables. */
export const METHOD_DISPLAY_NAMES: Readonly<Record<MethodName, string>> = Object.freeze({
  baseline: "Baseline",
  pca: "PCA",
  jpcda: "JPCDA",
  sdspca: "SDSPCA",
  slnp: "SLNP",
  spcan: "SPCAN",
  "sdspca-lpp": "SDSPCA-LPP",
  sdspcaan: "SDSPCAAN",
  pcan: "PCAN",
  lda: "LDA",
  lpp: "LPP",
});

/** All tunable parameter names, in their canonical order. */
export const PARAM_NAMES = ["alpha", "beta", "delta", "eta"] as const;
export type ParamName = (typeof PARAM_NAMES)[number];

/** The parameters each method is tuned over (besides k), in enumeration order. */
export const METHOD_PARAMS: Readonly<Record<MethodName, readonly ParamName[]>> = Object.freeze({
  baseline: [],
  pca: [],
  jpcda: ["eta"],
  sdspca: ["alpha", "beta"],
  slnp: [],
  spcan: [],
  "sdspca-lpp": ["alpha", "beta", "delta"],
  sdspcaan: ["alpha", "beta", "delta"],
  pcan: [],
  lda: [],
  lpp: [],
});

/** The multiplier grid {0.01, 0.1, 1, 10, 100}. */
export const MULTIPLIER_GRID: readonly number[] = Object.freeze([0.01, 0.1, 1, 10, 100]);

export const GRID_PRESETS = ["paper", "authors", "quick"] as const;
export type GridPreset = (typeof GRID_PRESETS)[number];

/** Values per parameter. Key order does not matter: enumeration uses PARAM_NAMES order. */
export type ParamGrid = Readonly<Partial<Record<ParamName, readonly number[]>>>;

/** One point of a grid: a value for each tuned parameter. */
export type Params = Readonly<Partial<Record<ParamName, number>>>;

/** A custom grid for all methods, or one per method name. */
export type GridSpec = GridPreset | ParamGrid | Readonly<Partial<Record<MethodName, ParamGrid>>>;

/** Checks a method name; throws listing the valid names. */
export function checkMethodName(value: unknown, name = "method"): MethodName {
  if (typeof value !== "string" || !(METHOD_NAMES as readonly string[]).includes(value)) {
    throw new ValidationError(
      name,
      `The '${name}' must be one of ${METHOD_NAMES.join(", ")}. Got ${JSON.stringify(value)} instead.`,
    );
  }
  return value as MethodName;
}

function presetGrid(method: MethodName, preset: GridPreset): ParamGrid {
  const one = [1];
  const quick = [0.1, 1, 10];
  switch (method) {
    case "sdspca":
      return preset === "paper"
        ? { alpha: MULTIPLIER_GRID, beta: MULTIPLIER_GRID }
        : { alpha: one, beta: one };
    case "sdspca-lpp":
    case "sdspcaan":
      if (preset === "paper") {
        return { alpha: MULTIPLIER_GRID, beta: MULTIPLIER_GRID, delta: MULTIPLIER_GRID };
      }
      return { alpha: one, beta: one, delta: preset === "authors" ? MULTIPLIER_GRID : quick };
    case "jpcda":
      return { eta: preset === "quick" ? quick : MULTIPLIER_GRID };
    default:
      return {};
  }
}

function checkValues(param: string, values: unknown, where: string): number[] {
  const list = Array.isArray(values) ? values : [values];
  if (list.length === 0) {
    throw new ValidationError("grid", `${where}: '${param}' needs at least one value.`);
  }
  const out: number[] = [];
  for (const v of list) {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new ValidationError(
        "grid",
        `${where}: every value of '${param}' must be a finite number in [0, inf). Got ${JSON.stringify(v)} instead.`,
      );
    }
    if (out.includes(v)) {
      throw new ValidationError(
        "grid",
        `${where}: '${param}' lists ${v} twice; each grid value must appear once.`,
      );
    }
    out.push(v);
  }
  return out;
}

/** Validates a ParamGrid object (values may be a number or a list). */
export function checkParamGrid(grid: unknown, where = "grid"): ParamGrid {
  if (grid === null || typeof grid !== "object" || Array.isArray(grid)) {
    throw new ValidationError(
      "grid",
      `${where} must be an object mapping parameter names (${PARAM_NAMES.join(", ")}) to lists of values. Got ${JSON.stringify(grid)}.`,
    );
  }
  const out: Partial<Record<ParamName, number[]>> = {};
  for (const [key, values] of Object.entries(grid)) {
    if (!(PARAM_NAMES as readonly string[]).includes(key)) {
      throw new ValidationError(
        "grid",
        `${where}: unknown parameter '${key}'. Tunable parameters: ${PARAM_NAMES.join(", ")} (alpha, beta, delta are the multipliers a, b, c; eta is JPCDA's).`,
      );
    }
    out[key as ParamName] = checkValues(key, values, where);
  }
  return out;
}

/**
 * Parses a custom grid: either JSON (`{"delta": [0.1, 1], "beta": 1}`, or keyed by
 * method: `{"sdspcaan": {"delta": [0.1, 1]}, "jpcda": {"eta": [1]}}`) or the compact
 * form `alpha=0.1,1;beta=1;delta=0.01,0.1,1` (parameters separated by `;`, values
 * by `,`).
 */
export function parseGridSpec(text: string): ParamGrid | Partial<Record<MethodName, ParamGrid>> {
  if (typeof text !== "string" || text.trim() === "") {
    throw new ValidationError(
      "grid",
      `A custom grid must be a non-empty string such as "alpha=0.1,1;beta=1;delta=0.01,0.1,1". Got ${JSON.stringify(text)}.`,
    );
  }
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    let obj: unknown;
    try {
      obj = JSON.parse(trimmed);
    } catch (err) {
      throw new ValidationError("grid", `The grid is not valid JSON: ${(err as Error).message}`);
    }
    return checkGridObject(obj);
  }
  const out: Partial<Record<ParamName, number[]>> = {};
  for (const part of trimmed.split(";")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    if (eq < 0) {
      throw new ValidationError(
        "grid",
        `Grid part ${JSON.stringify(part.trim())} has no '='; write name=value,value (e.g. "delta=0.1,1").`,
      );
    }
    const name = part.slice(0, eq).trim();
    if (Object.hasOwn(out, name)) {
      throw new ValidationError("grid", `The grid names '${name}' twice.`);
    }
    const values = part
      .slice(eq + 1)
      .split(",")
      .map((v) => v.trim());
    const nums = values.map((v) => {
      const x = v === "" ? Number.NaN : Number(v);
      if (!Number.isFinite(x)) {
        throw new ValidationError(
          "grid",
          `The value ${JSON.stringify(v)} of '${name}' is not a finite number.`,
        );
      }
      return x;
    });
    Object.assign(out, checkParamGrid({ [name]: nums }));
  }
  if (Object.keys(out).length === 0) {
    throw new ValidationError("grid", `The grid ${JSON.stringify(text)} names no parameter.`);
  }
  return out;
}

function isPerMethod(obj: object): boolean {
  const keys = Object.keys(obj);
  return keys.length > 0 && keys.every((k) => (METHOD_NAMES as readonly string[]).includes(k));
}

function checkGridObject(obj: unknown): ParamGrid | Partial<Record<MethodName, ParamGrid>> {
  if (obj !== null && typeof obj === "object" && !Array.isArray(obj) && isPerMethod(obj)) {
    const out: Partial<Record<MethodName, ParamGrid>> = {};
    for (const [method, grid] of Object.entries(obj)) {
      out[method as MethodName] = checkParamGrid(grid, `grid of ${method}`);
    }
    return out;
  }
  return checkParamGrid(obj);
}

/**
 * The grid of `method` under `spec`: a preset name, a custom grid for every method
 * (parameters the method does not have are ignored; parameters it has but the
 * grid omits keep the method's default and are not recorded), or custom grids per
 * method name (a method without an entry is tuned over k only).
 */
export function methodGrid(method: string, spec: GridSpec = "paper"): ParamGrid {
  const m = checkMethodName(method);
  if (typeof spec === "string") {
    if (!(GRID_PRESETS as readonly string[]).includes(spec)) {
      throw new ValidationError(
        "grid",
        `The grid preset must be one of ${GRID_PRESETS.map((p) => JSON.stringify(p)).join(", ")} (or a custom grid). Got ${JSON.stringify(spec)} instead.`,
      );
    }
    return presetGrid(m, spec as GridPreset);
  }
  const checked = checkGridObject(spec);
  const own: ParamGrid = isPerMethod(checked)
    ? ((checked as Partial<Record<MethodName, ParamGrid>>)[m] ?? {})
    : (checked as ParamGrid);
  const out: Partial<Record<ParamName, readonly number[]>> = {};
  for (const p of METHOD_PARAMS[m]) {
    const values = own[p];
    if (values !== undefined) out[p] = values;
  }
  return out;
}

/**
 * Every point of a grid in the documented order (first parameter slowest). A grid
 * with no parameter has exactly one point, `{}`.
 */
export function enumerateGrid(grid: ParamGrid): Params[] {
  const names = PARAM_NAMES.filter((p) => grid[p] !== undefined);
  let points: Array<Partial<Record<ParamName, number>>> = [{}];
  for (const name of names) {
    const values = grid[name] as readonly number[];
    const next: Array<Partial<Record<ParamName, number>>> = [];
    for (const point of points) for (const v of values) next.push({ ...point, [name]: v });
    points = next;
  }
  return points;
}

/** `enumerateGrid(methodGrid(method, spec))`: the parameter points fitted for each k. */
export function hyperparameterGrid(method: string, spec: GridSpec = "paper"): Params[] {
  return enumerateGrid(methodGrid(method, spec));
}
