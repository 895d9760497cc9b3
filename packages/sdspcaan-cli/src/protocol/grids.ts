/**
 * Hyperparameter grids of the protocol (SPEC 5). Every method is also tuned over k
 * (see kGrid.ts); these grids cover the rest. Which options a method tunes, and
 * their values under each preset, are declared in the method's descriptor
 * (`tuned`, see src/methods/descriptor.ts): `alpha`, `beta`, `delta` (the
 * multipliers a, b, c of the trace-scaled weights) and `eta` (JPCDA's ridge weight)
 * for the built-in methods.
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
 * declared order (alpha, beta, delta, or eta), the first varying slowest and the last
 * fastest (like nested loops, or Python's itertools.product), each over its values
 * in the order given (ascending in the presets).
 */
import { methodNames, ValidationError } from "sdspcaan";
import {
  GRID_PRESETS,
  type GridPreset,
  type MethodDescriptor,
  MULTIPLIER_GRID,
  methodDescriptor,
  methodDescriptors,
} from "sdspcaan/methods";

export { GRID_PRESETS, type GridPreset, MULTIPLIER_GRID };

/** A registered method's name (lower case, see the registry). */
export type MethodName = string;
/** A tuned option's name (e.g. alpha, beta, delta, eta). */
export type ParamName = string;

/** Values per parameter. Key order does not matter: enumeration follows the method's order. */
export type ParamGrid = Readonly<Record<ParamName, readonly number[]>>;

/** One point of a grid: a value for each tuned parameter. */
export type Params = Readonly<Record<ParamName, number>>;

/** A custom grid for all methods, or one per method name. */
export type GridSpec = GridPreset | ParamGrid | Readonly<Record<MethodName, ParamGrid>>;

/** The options a method tunes besides k, in enumeration order (its descriptor's `tuned`). */
export function tunedParams(method: string): string[] {
  return Object.keys(methodDescriptor(method).tuned ?? {});
}

/**
 * Every tunable parameter of the registered methods, in canonical order: first
 * appearance in registration order (alpha, beta, delta, eta for the built-ins). Records
 * list their params in this order.
 */
export function tunableParams(): string[] {
  const out: string[] = [];
  for (const d of methodDescriptors()) {
    for (const p of Object.keys(d.tuned ?? {})) if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** A method's name as the paper's tables write it (the name itself when it is not registered). */
export function displayNameOf(method: string): string {
  return methodNames().includes(method) ? methodDescriptor(method).displayName : method;
}

/** Checks a method name; throws listing the valid names. */
export function checkMethodName(value: unknown, name = "method"): MethodName {
  if (typeof value !== "string" || !methodNames().includes(value)) {
    throw new ValidationError(
      name,
      `The '${name}' must be one of ${methodNames().join(", ")}. Got ${JSON.stringify(value)} instead.`,
    );
  }
  return value;
}

function presetGrid(d: MethodDescriptor, preset: GridPreset): ParamGrid {
  const out: Record<string, readonly number[]> = {};
  for (const [p, values] of Object.entries(d.tuned ?? {})) {
    if (values !== undefined) out[p] = values[preset];
  }
  return out;
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
      `${where} must be an object mapping parameter names (${tunableParams().join(", ")}) to lists of values. Got ${JSON.stringify(grid)}.`,
    );
  }
  const out: Record<ParamName, number[]> = {};
  const known = tunableParams();
  for (const [key, values] of Object.entries(grid)) {
    if (!known.includes(key)) {
      throw new ValidationError(
        "grid",
        `${where}: unknown parameter '${key}'. Tunable parameters: ${known.join(", ")} (alpha, beta, delta are the multipliers a, b, c; eta is JPCDA's).`,
      );
    }
    out[key] = checkValues(key, values, where);
  }
  return out;
}

/**
 * Parses a custom grid: either JSON (`{"delta": [0.1, 1], "beta": 1}`, or keyed by
 * method: `{"sdspcaan": {"delta": [0.1, 1]}, "jpcda": {"eta": [1]}}`) or the compact
 * form `alpha=0.1,1;beta=1;delta=0.01,0.1,1` (parameters separated by `;`, values
 * by `,`).
 */
export function parseGridSpec(text: string): ParamGrid | Readonly<Record<MethodName, ParamGrid>> {
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
  const out: Record<ParamName, number[]> = {};
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
  const names = methodNames();
  return keys.length > 0 && keys.every((k) => names.includes(k));
}

function checkGridObject(obj: unknown): ParamGrid | Readonly<Record<MethodName, ParamGrid>> {
  if (obj !== null && typeof obj === "object" && !Array.isArray(obj) && isPerMethod(obj)) {
    const out: Record<MethodName, ParamGrid> = {};
    for (const [method, grid] of Object.entries(obj)) {
      out[method] = checkParamGrid(grid, `grid of ${method}`);
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
    return presetGrid(methodDescriptor(m), spec as GridPreset);
  }
  const checked = checkGridObject(spec);
  const own: ParamGrid = isPerMethod(checked)
    ? ((checked as Readonly<Record<MethodName, ParamGrid>>)[m] ?? {})
    : (checked as ParamGrid);
  const out: Record<ParamName, readonly number[]> = {};
  for (const p of tunedParams(m)) {
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
  const canonical = tunableParams();
  const names = [
    ...canonical.filter((p) => grid[p] !== undefined),
    ...Object.keys(grid).filter((p) => !canonical.includes(p)),
  ];
  let points: Array<Record<ParamName, number>> = [{}];
  for (const name of names) {
    const values = grid[name] as readonly number[];
    const next: Array<Record<ParamName, number>> = [];
    for (const point of points) for (const v of values) next.push({ ...point, [name]: v });
    points = next;
  }
  return points;
}

/** `enumerateGrid(methodGrid(method, spec))`: the parameter points fitted for each k. */
export function hyperparameterGrid(method: string, spec: GridSpec = "paper"): Params[] {
  return enumerateGrid(methodGrid(method, spec));
}
