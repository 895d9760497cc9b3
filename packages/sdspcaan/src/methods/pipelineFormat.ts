/**
 * The saved pipeline format: versioned JSON with the fitted method's own model JSON
 * (its standardisation and feature names included) under "model" and the 1-NN
 * classifier under "classifier". Checked field by field like a model file: a
 * pipeline loads exactly as saved or a ModelFormatError names the field.
 */

import { NearestNeighbour1, type NearestNeighbourOptions } from "../classify/nearestNeighbour.js";
import { ModelFormatError, ValidationError } from "../core/errors.js";
import type { Label } from "../core/validate.js";
import { type ModelJSON, shown } from "./modelFormat.js";

export const PIPELINE_FORMAT = "sdspcaan-pipeline";
export const PIPELINE_VERSION = 1;
/** The versions `checkPipelineJSON` reads. */
export const PIPELINE_VERSIONS_READ: readonly number[] = [1];

/** The classifier's part of a saved pipeline. */
export interface PipelineClassifierJSON {
  /** The paper's classifier: 1-NN on the standardised projection. */
  method: "1-nn";
  params: NearestNeighbourOptions;
  /**
   * The training projection (n x k, row-major) the queries are compared with, or
   * null when the pipeline was saved without it (it then transforms but cannot predict).
   */
  referenceSet: { rows: number; cols: number; data: number[] } | null;
  /** The training labels, one per row of referenceSet (null with it). */
  labels: Label[] | null;
}

/** The JSON form of a fitted {@link Pipeline}. */
export interface PipelineJSON {
  /** Always "sdspcaan-pipeline": what `loadModel` dispatches on. */
  format: typeof PIPELINE_FORMAT;
  /** The file format's version. */
  version: number;
  /** The fitted method's model (with the input standardisation and feature names). */
  model: ModelJSON;
  /** The 1-NN classifier's options and, unless saved without it, its reference set. */
  classifier: PipelineClassifierJSON;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function fail(field: string, problem: string): never {
  throw new ModelFormatError(field, problem);
}

function exactFields(obj: Record<string, unknown>, known: readonly string[], prefix: string) {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) {
      fail(
        `${prefix}${key}`,
        `is not part of the pipeline format (known fields: ${known.join(", ")})`,
      );
    }
  }
  for (const key of known) if (!(key in obj)) fail(`${prefix}${key}`, "is missing");
}

/** True when `obj` says it is a pipeline (the loader then checks the rest). */
export function isPipelineDocument(obj: unknown): obj is Record<string, unknown> {
  return isRecord(obj) && obj.format === PIPELINE_FORMAT;
}

/** Checks the pipeline's own top level: format, version, and exactly its fields. */
export function checkPipelineHeader(obj: Record<string, unknown>): void {
  if (obj.format !== PIPELINE_FORMAT) {
    fail("format", `must be "${PIPELINE_FORMAT}"; got ${shown(obj.format)}`);
  }
  if (!PIPELINE_VERSIONS_READ.includes(obj.version as number)) {
    fail(
      "version",
      `must be one of ${PIPELINE_VERSIONS_READ.join(", ")} (the pipeline versions this library reads); got ${shown(obj.version)}`,
    );
  }
  exactFields(obj, ["format", "version", "model", "classifier"], "");
}

/**
 * Checks a pipeline JSON whose header (`checkPipelineHeader`) and model (with output
 * dimension `k` and `classes`) are checked: the classifier against the model.
 */
export function checkPipelineJSON(
  obj: Record<string, unknown>,
  k: number,
  classes: readonly Label[] | undefined,
): PipelineJSON {
  if (classes === undefined) {
    fail("model.classes", "is missing; a pipeline's model is fitted with the class labels");
  }
  const c = obj.classifier;
  if (!isRecord(c)) fail("classifier", `must be an object; got ${shown(c)}`);
  exactFields(c, ["method", "params", "referenceSet", "labels"], "classifier.");
  if (c.method !== "1-nn") fail("classifier.method", `must be "1-nn"; got ${shown(c.method)}`);
  checkClassifierParams(c.params);
  if (c.referenceSet === null) {
    if (c.labels !== null) {
      fail("classifier.labels", `must be null when referenceSet is null; got ${shown(c.labels)}`);
    }
  } else {
    const n = checkReferenceSet(c.referenceSet, k);
    checkLabels(c.labels, n, classes);
  }
  return obj as unknown as PipelineJSON;
}

function checkClassifierParams(p: unknown): void {
  if (!isRecord(p)) fail("classifier.params", `must be an object; got ${shown(p)}`);
  const names = Object.keys(new NearestNeighbour1().params);
  exactFields(p, names, "classifier.params.");
  try {
    new NearestNeighbour1(p as Partial<NearestNeighbourOptions>);
  } catch (err) {
    // Stryker disable next-line ConditionalExpression: NearestNeighbour1's options are refused only with ValidationError
    if (!(err instanceof ValidationError)) throw err;
    fail(`classifier.params.${err.argument}`, `is not valid: ${err.message.replace(/\.$/, "")}`);
  }
}

function checkReferenceSet(r: unknown, k: number): number {
  const field = "classifier.referenceSet";
  if (!isRecord(r)) fail(field, `must be null or an object {rows, cols, data}; got ${shown(r)}`);
  exactFields(r, ["rows", "cols", "data"], `${field}.`);
  const n = r.rows as number;
  // (Number.isInteger and Number.isFinite are false for anything that is not a number.)
  if (!Number.isInteger(n) || n < 1) {
    fail(`${field}.rows`, `must be an integer >= 1; got ${shown(n)}`);
  }
  if (r.cols !== k) {
    fail(`${field}.cols`, `must equal the model's components.cols = ${k}; got ${shown(r.cols)}`);
  }
  const data = r.data;
  if (!Array.isArray(data) || data.length !== n * k) {
    fail(
      `${field}.data`,
      `must be an array of ${n * k} finite numbers (${n} x ${k}, row-major); got ${Array.isArray(data) ? `${data.length} entries` : shown(data)}`,
    );
  }
  for (let t = 0; t < data.length; t++) {
    const x = data[t];
    if (!Number.isFinite(x)) {
      fail(`${field}.data[${t}]`, `must be a finite number; got ${shown(x)}`);
    }
  }
  return n;
}

function checkLabels(v: unknown, n: number, classes: readonly Label[]): void {
  const field = "classifier.labels";
  if (!Array.isArray(v) || v.length !== n) {
    fail(
      field,
      `must be an array of ${n} class labels (one per row of referenceSet); got ${Array.isArray(v) ? `${v.length} labels` : shown(v)}`,
    );
  }
  const known = new Set<unknown>(classes);
  for (let i = 0; i < v.length; i++) {
    if (!known.has(v[i])) {
      fail(
        `${field}[${i}]`,
        `must be one of the model's classes (${shown(classes)}); got ${shown(v[i])}`,
      );
    }
  }
}
