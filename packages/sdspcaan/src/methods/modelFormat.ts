/**
 * The saved model format: versioned JSON (`toJSON` writes it, `loadModel` and
 * `fromJSON` read it), and its field-by-field validation: a model loads exactly as
 * saved or is refused with a ModelFormatError naming the field.
 */
import { ModelFormatError } from "../core/errors.js";
import { type OptionSchema, optionProblem } from "../core/options.js";
import { compareLabels, type Label } from "../core/validate.js";
import type { StandardizerJSON } from "../linalg/standardizer.js";
import type { FitInfo } from "./fitReport.js";
import { FIT_WARNING_CODES, warningFromText } from "./fitWarnings.js";
import { isBuiltInMethod } from "./methodPlugins.js";
import { checkModelDepth, parseModelText } from "./modelText.js";

export const MODEL_FORMAT = "sdspcaan-model";
/**
 * Version 2 always writes "preprocessing" (null when none). Version 1 left it out
 * when there was none, which cannot be told from a file that lost it, so a version 1
 * model without it is refused with the fix (see `checkModelJSON`). The optional
 * "featureNamesIn" (the training columns' names) is written only when the fit had
 * names, so files without it read as they always did. Version 3 writes each of
 * fitInfo's warnings as an object {code, message, values}; versions 1 and 2 wrote
 * their texts alone, which are read with the code their words show (see
 * `warningFromText`). Version 4 adds options to some methods (PCA's `whiten`), each
 * declared with the version that added it (the option spec's `since`): an older file
 * lacks it and loads with its default; and a PCA model's fitInfo.details gain
 * `explainedVarianceRatio`, `singularValues` and `totalVariance`.
 */
export const MODEL_VERSION = 4;

/** The versions `checkModelJSON` reads. */
export const MODEL_VERSIONS_READ: readonly number[] = [1, 2, 3, 4];

/**
 * How the standardisation of a model was computed: the protocol's "train-zscore"
 * (training rows' statistics) or "dataset-zscore" (every row's, as the authors did),
 * or "custom" for any other x -> (x - center) / scale a library user applied.
 */
export const PREPROCESSING_METHODS = ["train-zscore", "dataset-zscore", "custom"] as const;

/**
 * A feature standardisation applied to the data before the method saw it (e.g. the
 * protocol's train-zscore): transform applies x -> (x - center) / scale first. It is
 * the JSON form of linalg/standardizer.ts's Standardizer; `method` is one of
 * {@link PREPROCESSING_METHODS}.
 */
export type InputPreprocessing = StandardizerJSON;

/** The JSON form of a fitted model. */
export interface ModelJSON {
  /** Always "sdspcaan-model": what `loadModel` dispatches on. */
  format: typeof MODEL_FORMAT;
  /** The file format's version. */
  version: number;
  /** The method's lower-case name, e.g. "sdspcaan". */
  method: string;
  /**
   * The plug-in the method comes from (its file name), for a method that is not built
   * in; absent for the built-ins. Loading the model needs that plug-in loaded.
   */
  plugin?: string;
  /** The method's validated options, defaults filled in. */
  params: Record<string, unknown>;
  /** Number of features (columns of X) seen in fit. */
  nFeaturesIn: number;
  /** Training column means, removed before the projection. */
  mean: number[];
  /** W, d x k, row-major. */
  components: {
    /** d, the number of features. */
    rows: number;
    /** k, the output dimension. */
    cols: number;
    /** rows * cols entries, row-major. */
    data: number[];
  };
  /** Training class labels in sorted order, when the fit had labels. */
  classes?: Label[];
  /** Standardisation applied before the projection (see setPreprocessing); null when none. */
  preprocessing: InputPreprocessing | null;
  /** The names of the training columns (one per feature), when the fit was given them. */
  featureNamesIn?: string[];
  /** The fit's report (iterations, stop reason, timings, warnings, ...). */
  fitInfo: FitInfo;
}

/**
 * A value as a message shows it: JSON, cut short; a number JSON cannot write
 * (Infinity, NaN) as itself, not as JSON's null.
 */
export function shown(v: unknown): string {
  if (v === undefined) return "nothing";
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

type Fail = (field: string, problem: string) => never;

/** `v` when it is a JSON object (not an array), else the failure for `field`. */
function objectField(v: unknown, field: string, fail: Fail): Record<string, unknown> {
  if (!isRecord(v)) fail(field, `must be an object; got ${shown(v)}`);
  return v as Record<string, unknown>;
}

const failModel: Fail = (field, problem) => {
  throw new ModelFormatError(field, problem);
};

/**
 * Refuses fields a writer never puts there (a typo would otherwise be dropped
 * silently) and, when `optional` is given, requires every known field not in it.
 */
function onlyKnownFields(
  obj: Record<string, unknown>,
  known: readonly string[],
  prefix: string,
  fail: Fail,
  optional?: readonly string[],
): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) {
      fail(
        `${prefix}${key}`,
        `is not part of the model format (known fields: ${known.join(", ")})`,
      );
    }
  }
  if (optional === undefined) return;
  for (const key of known) {
    if (!optional.includes(key) && !(key in obj)) fail(`${prefix}${key}`, "is missing");
  }
}

/** Checks an array of `length` finite numbers (non-zero too when `nonZero`). */
function finiteArray(
  v: unknown,
  length: number,
  field: string,
  what: string,
  fail: Fail,
  nonZero = false,
): number[] {
  if (!Array.isArray(v)) fail(field, `must be an array of ${length} ${what}; got ${shown(v)}`);
  const a = v as unknown[];
  if (a.length !== length) {
    fail(field, `must hold ${length} ${what}; got ${a.length}`);
  }
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    // (Number.isFinite is false for anything that is not a number.)
    if (!Number.isFinite(x) || (nonZero && x === 0)) {
      fail(
        `${field}[${i}]`,
        `must be a finite${nonZero ? " non-zero" : ""} number; got ${shown(x)}`,
      );
    }
  }
  return a as number[];
}

function positiveInteger(v: unknown, field: string, fail: Fail, min = 1): number {
  // (Number.isInteger is false for anything that is not a number.)
  if (!Number.isInteger(v) || (v as number) < min) {
    fail(field, `must be an integer >= ${min}; got ${shown(v)}`);
  }
  return v as number;
}

/**
 * Checks a standardisation against d features. The sizes come first: a mismatch
 * there is the likelier mistake (the model of another data set).
 */
export function checkPreprocessing(p: unknown, d: number, field: string, fail: Fail): void {
  if (!isRecord(p)) {
    fail(field, `must be null or an object {method, center, scale}; got ${shown(p)}`);
  }
  const q = p as Record<string, unknown>;
  onlyKnownFields(q, ["method", "center", "scale"], `${field}.`, fail);
  finiteArray(q.center, d, `${field}.center`, "finite numbers (one per feature)", fail);
  finiteArray(
    q.scale,
    d,
    `${field}.scale`,
    "finite non-zero numbers (one per feature)",
    fail,
    true,
  );
  if (!(PREPROCESSING_METHODS as readonly string[]).includes(q.method as string)) {
    fail(
      `${field}.method`,
      `must be one of ${PREPROCESSING_METHODS.map((m) => JSON.stringify(m)).join(", ")}; got ${shown(q.method)}`,
    );
  }
  // A z-score's scale is a standard deviation, or 1 for a constant column
  // (Standardizer.fit): never below zero. A custom one may flip a sign.
  if (q.method === "custom") return;
  (q.scale as number[]).forEach((x, j) => {
    if (x < 0) {
      fail(
        `${field}.scale[${j}]`,
        `must be a positive number under ${shown(q.method)} (a standard deviation, 1 for a constant column); got ${shown(x)}`,
      );
    }
  });
}

/** Column names as fit records them: nFeaturesIn distinct non-empty strings. */
function checkNames(v: unknown, d: number, fail: Fail): void {
  if (!Array.isArray(v)) {
    fail("featureNamesIn", `must be an array of ${d} column names; got ${shown(v)}`);
  }
  const a = v as unknown[];
  if (a.length !== d) fail("featureNamesIn", `must hold ${d} names (nFeaturesIn); got ${a.length}`);
  const seen = new Set<unknown>();
  a.forEach((x, j) => {
    if (typeof x !== "string" || x === "") {
      fail(`featureNamesIn[${j}]`, `must be a non-empty string; got ${shown(x)}`);
    }
    if (seen.has(x)) fail(`featureNamesIn[${j}]`, `repeats the name ${shown(x)}`);
    seen.add(x);
  });
}

const STOP_REASONS = ["closed-form", "converged", "max-iterations", "lambda-cap"];
const FIT_INFO_FIELDS = [
  "iterations",
  "converged",
  "stopReason",
  "objective",
  "lambdaTrace",
  "warnings",
  "timings",
  "solver",
  "details",
];
const TIMING_FIELDS = ["totalMs", "eigenMs", "graphMs", "otherMs"];

const WARNING_FIELDS = ["code", "message", "values"];

/** fitInfo.warnings as version 3 writes them: {code, message, values} each. */
function checkWarnings(v: unknown, fail: Fail): void {
  if (!Array.isArray(v)) {
    fail("fitInfo.warnings", `must be an array of warnings; got ${shown(v)}`);
  }
  (v as unknown[]).forEach((w, i) => {
    const field = `fitInfo.warnings[${i}]`;
    const o = objectField(w, field, fail);
    // Stryker disable next-line ArrayDeclaration: a name that is no field of a warning makes none optional either
    onlyKnownFields(o, WARNING_FIELDS, `${field}.`, fail, []);
    if (!(FIT_WARNING_CODES as readonly string[]).includes(o.code as string)) {
      fail(
        `${field}.code`,
        `must be one of ${FIT_WARNING_CODES.map((c) => JSON.stringify(c)).join(", ")}; got ${shown(o.code)}`,
      );
    }
    if (typeof o.message !== "string") {
      fail(`${field}.message`, `must be a string; got ${shown(o.message)}`);
    }
    const values = objectField(o.values, `${field}.values`, fail);
    for (const [name, x] of Object.entries(values)) {
      // JSON writes a non-finite number as null.
      if (x !== null && !Number.isFinite(x)) {
        fail(`${field}.values.${name}`, `must be a number or null; got ${shown(x)}`);
      }
    }
  });
}

function checkFitInfo(v: unknown, version: number, fail: Fail): void {
  const f = objectField(v, "fitInfo", fail);
  // Stryker disable next-line ArrayDeclaration: a name that is no field of fitInfo makes none optional either
  onlyKnownFields(f, FIT_INFO_FIELDS, "fitInfo.", fail, []);
  positiveInteger(f.iterations, "fitInfo.iterations", fail, 0);
  if (typeof f.converged !== "boolean") {
    fail("fitInfo.converged", `must be true or false; got ${shown(f.converged)}`);
  }
  if (!STOP_REASONS.includes(f.stopReason as string)) {
    fail(
      "fitInfo.stopReason",
      `must be one of ${STOP_REASONS.map((r) => JSON.stringify(r)).join(", ")}; got ${shown(f.stopReason)}`,
    );
  }
  for (const key of ["objective", "lambdaTrace"]) {
    const a = f[key];
    if (!Array.isArray(a)) fail(`fitInfo.${key}`, `must be an array of numbers; got ${shown(a)}`);
    // JSON writes a non-finite number as null; such a trace entry is kept as it is.
    (a as unknown[]).forEach((x, i) => {
      if (x !== null && typeof x !== "number") {
        fail(`fitInfo.${key}[${i}]`, `must be a number; got ${shown(x)}`);
      }
    });
  }
  if (version >= 3) checkWarnings(f.warnings, fail);
  else if (!Array.isArray(f.warnings) || !f.warnings.every((w) => typeof w === "string")) {
    fail(
      "fitInfo.warnings",
      `must be an array of strings (model format version ${version}); got ${shown(f.warnings)}`,
    );
  }
  const t = objectField(f.timings, "fitInfo.timings", fail);
  onlyKnownFields(t, TIMING_FIELDS, "fitInfo.timings.", fail);
  for (const key of TIMING_FIELDS) {
    const x = t[key];
    if (!Number.isFinite(x) || (x as number) < 0) {
      fail(`fitInfo.timings.${key}`, `must be a finite number >= 0; got ${shown(x)}`);
    }
  }
  if (typeof f.solver !== "string")
    fail("fitInfo.solver", `must be a string; got ${shown(f.solver)}`);
  objectField(f.details, "fitInfo.details", fail);
}

/** Class labels as fit records them: all numbers (finite) or all strings, sorted, distinct. */
function checkClasses(v: unknown, fail: Fail): void {
  if (!Array.isArray(v) || v.length === 0) {
    fail("classes", `must be a non-empty array of class labels; got ${shown(v)}`);
  }
  const a = v as unknown[];
  const kind = typeof a[0];
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (
      (typeof x !== "number" && typeof x !== "string") ||
      typeof x !== kind ||
      (typeof x === "number" && !Number.isFinite(x))
    ) {
      fail(
        `classes[${i}]`,
        `must be a ${kind === "string" ? "string" : "finite number"} like the other classes; got ${shown(x)}`,
      );
    }
    if (i > 0 && compareLabels(a[i - 1] as Label, x as Label) >= 0) {
      fail(
        `classes[${i}]`,
        `must come after ${shown(a[i - 1])}: the classes are saved sorted and distinct; got ${shown(x)}`,
      );
    }
  }
}

/**
 * Checks the saved params against the method's option declarations: every option,
 * valid, and no other; an option added after the file's model format `version` (its
 * spec's `since`) may be missing, and then takes its default.
 */
export function checkParams(
  params: Record<string, unknown>,
  schema: OptionSchema,
  owner: string,
  version = MODEL_VERSION,
): void {
  const names = Object.keys(schema);
  for (const key of Object.keys(params)) {
    if (!Object.hasOwn(schema, key)) {
      failModel(
        `params.${key}`,
        `is not an option of ${owner} (its options: ${names.join(", ") || "none"})`,
      );
    }
  }
  for (const name of names) {
    if (!Object.hasOwn(params, name)) {
      // An option without `since` is as old as the format.
      if (version < (schema[name].since ?? 0)) continue;
      failModel(`params.${name}`, `is missing; a saved ${owner} model records every option`);
    }
    const expected = optionProblem(schema[name], params[name]);
    if (expected !== null)
      failModel(`params.${name}`, `must be ${expected}; got ${shown(params[name])}`);
  }
}

const MODEL_FIELDS = [
  "format",
  "version",
  "method",
  "plugin",
  "params",
  "nFeaturesIn",
  "mean",
  "components",
  "classes",
  "preprocessing",
  "featureNamesIn",
  "fitInfo",
];

/**
 * A model or pipeline document from its JSON text (parsed as parseModelText does:
 * size, byte-order mark, depth, numbers) or as a value (its depth checked), before
 * any field is read; a ModelFormatError says what is wrong with the whole.
 */
export function modelDocument(json: unknown): unknown {
  if (typeof json === "string") return parseModelText(json, failModel);
  checkModelDepth(json, failModel);
  return json;
}

/**
 * Validates a model JSON (object or string) field by field, as `toJSON` writes it,
 * and returns it typed; a ModelFormatError names the first field at fault. The
 * method-specific checks (params against the method's options, W's width against k)
 * are made by `fromJSON`, which `loadModel` calls next.
 */
export function checkModelJSON(json: unknown): ModelJSON {
  const obj = modelDocument(json);
  const fail = failModel;
  if (!isRecord(obj)) return fail("", `expected a JSON object; got ${shown(obj)}`);
  const m = obj;
  if (m.format !== MODEL_FORMAT)
    fail("format", `must be "${MODEL_FORMAT}"; got ${shown(m.format)}`);
  if (!MODEL_VERSIONS_READ.includes(m.version as number)) {
    fail(
      "version",
      `must be one of ${MODEL_VERSIONS_READ.join(", ")} (the versions this library reads); got ${shown(m.version)}`,
    );
  }
  onlyKnownFields(m, MODEL_FIELDS, "", fail, [
    "plugin",
    "classes",
    "preprocessing",
    "featureNamesIn",
  ]);
  if (typeof m.method !== "string") fail("method", `must be a method name; got ${shown(m.method)}`);
  if (m.plugin !== undefined && (typeof m.plugin !== "string" || m.plugin.trim() === "")) {
    fail("plugin", `must be the name of a plug-in; got ${shown(m.plugin)}`);
  }
  // toJSON writes "plugin" only for a method setMethodPlugin recorded, never a built-in.
  if (m.plugin !== undefined && isBuiltInMethod(m.method as string)) {
    fail(
      "plugin",
      `must be left out: ${shown(m.method)} is a built-in method, whose model names no plug-in; got ${shown(m.plugin)}`,
    );
  }
  objectField(m.params, "params", fail);
  const d = positiveInteger(m.nFeaturesIn, "nFeaturesIn", fail);
  finiteArray(m.mean, d, "mean", "finite numbers (nFeaturesIn)", fail);
  if (!isRecord(m.components)) {
    return fail("components", `must be an object {rows, cols, data}; got ${shown(m.components)}`);
  }
  const c = m.components;
  onlyKnownFields(c, ["rows", "cols", "data"], "components.", fail);
  if (c.rows !== d) fail("components.rows", `must equal nFeaturesIn = ${d}; got ${shown(c.rows)}`);
  const k = positiveInteger(c.cols, "components.cols", fail);
  finiteArray(c.data, d * k, "components.data", `finite numbers (${d} x ${k}, row-major)`, fail);
  if (m.classes !== undefined) checkClasses(m.classes, fail);
  if (!("preprocessing" in m)) {
    fail(
      "preprocessing",
      m.version === 1
        ? 'is missing. Version 1 model files left it out when no standardisation was applied, which cannot be told from a file that lost it: if the model was fitted on data as it is (fit --preprocess none, or no setPreprocessing), add "preprocessing": null; otherwise fit the model again'
        : "is missing; it is null when no standardisation was applied, else {method, center, scale}",
    );
  }
  if (m.preprocessing !== null) checkPreprocessing(m.preprocessing, d, "preprocessing", fail);
  if (m.featureNamesIn !== undefined) checkNames(m.featureNamesIn, d, fail);
  checkFitInfo(m.fitInfo, m.version as number, fail);
  if ((m.version as number) < 3) {
    // Read as the version 3 document it stands for: the texts of versions 1 and 2
    // become warnings with codes. Version 3, not the newest: the options added since
    // (e.g. PCA's whiten, version 4) are missing from such a file and take their
    // defaults. The caller's object is left as it is.
    const info = m.fitInfo as Record<string, unknown>;
    const warnings = (info.warnings as string[]).map(warningFromText);
    return { ...m, version: 3, fitInfo: { ...info, warnings } } as unknown as ModelJSON;
  }
  return m as unknown as ModelJSON;
}
