/**
 * The record of one fit of the protocol: one JSON line of `results.jsonl`. A runner
 * appends a record per (dataset, repeat, method, k, params) and, when resuming,
 * skips every fit whose `fitKey` is already in the file. Reports, selection and
 * figures are pure functions of these records.
 */
import { type FitWarning, ValidationError } from "sdspcaan";
import { checkPreprocessing, type Preprocessing } from "sdspcaan/methods";
import { isFingerprint } from "./fingerprint.js";
import { type Params, tunableParams } from "./grids.js";

export interface FitRecord {
  /** Dataset name as the runner knows it (e.g. "ORL"). */
  readonly dataset: string;
  /** 0-based repeat (split) number. */
  readonly repeat: number;
  /** Lower-case method name (see the method registry). */
  readonly method: string;
  /** Subspace dimension asked for. */
  readonly k: number;
  /** The tuned hyperparameters of this fit (empty for methods tuned over k only). */
  readonly params: Params;
  /** BCA on the validation part, in [0, 1]. */
  readonly valBCA: number;
  /** BCA on the test part, in [0, 1]. */
  readonly testBCA: number;
  /** Outer iterations used (1 for closed-form methods). */
  readonly iterations: number;
  /** Whether the fit met its stop test (true for closed-form methods). */
  readonly converged: boolean;
  /** Wall time of the fit in milliseconds. */
  readonly fitMs: number;
  /** Why the fit stopped ("closed-form", "converged", "max-iterations", "lambda-cap"). */
  readonly stopReason?: string;
  /** The split's derived seed, for reproducing it alone. */
  readonly seed?: number;
  /** Feature preprocessing used. */
  readonly preprocess?: Preprocessing;
  /** Options the grid preset fixed for this (dataset, repeat, method), e.g. SLNP's pcaDimensions. */
  readonly unitOptions?: Readonly<Record<string, unknown>>;
  /** Dimension of the projection actually used by the classifier (JPCDA: c). */
  readonly outputDim?: number;
  /** Training BCA, when the runner measures it. */
  readonly trainBCA?: number;
  /**
   * The fit's warnings (fitInfo.warnings: {code, message, values} each; reports count
   * them by code), written on every line, [] when there were none. Lines written
   * before warnings had codes hold their texts alone, and only when there were some.
   */
  readonly warnings?: readonly (FitWarning | string)[];
  /**
   * Settings fingerprint of the fit (see plan.ts): what a resumed run compares
   * before reusing the line. Absent in lines written before fingerprints existed.
   */
  readonly fingerprint?: string;
}

/** The identity of a fit: what a resuming runner compares. */
export type FitIdentity = Pick<FitRecord, "dataset" | "repeat" | "method" | "k" | "params">;

/** Params with keys in canonical order (alpha, beta, delta, eta), for stable output. */
export function canonicalParams(params: Params): Params {
  const out: Record<string, number> = {};
  for (const p of tunableParams()) {
    const v = params[p];
    if (v !== undefined) out[p] = v;
  }
  return out;
}

/**
 * A stable key of (dataset, repeat, method, k, params): independent of the key
 * order of `params` and of any other field. Numbers print in JavaScript's shortest
 * round-trip form, so 0.1 read back from JSON gives the same key.
 */
export function fitKey(fit: FitIdentity): string {
  const params = canonicalParams(fit.params);
  const entries = Object.entries(params).map(([name, v]) => `${name}=${String(v)}`);
  return JSON.stringify([fit.dataset, fit.repeat, fit.method, fit.k, entries.join(",")]);
}

/** The key of the params alone (e.g. "alpha=1,beta=1,delta=0.1"; "" for none). */
export function paramsKey(params: Params): string {
  return Object.entries(canonicalParams(params))
    .map(([name, v]) => `${name}=${String(v)}`)
    .join(",");
}

function fail(where: string, msg: string): never {
  throw new ValidationError("record", `${where}: ${msg}`);
}

function isNonNegInt(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

function isUnit(v: unknown): v is number {
  return typeof v === "number" && v >= 0 && v <= 1;
}

/** Checks the optional "fingerprint" field of a results line. */
export function checkFingerprintField(value: unknown, where: string): void {
  if (value !== undefined && !isFingerprint(value)) {
    fail(where, `"fingerprint" must be 16 lower-case hex digits. Got ${JSON.stringify(value)}.`);
  }
}

/** Checks a line's "warnings": texts (older lines) or {code, message, values} objects. */
function checkRecordWarnings(value: unknown, where: string): void {
  if (!Array.isArray(value)) {
    fail(where, `"warnings" must be an array. Got ${JSON.stringify(value)}.`);
  }
  value.forEach((w: unknown, i: number) => {
    if (typeof w === "string") return;
    const o = w as Record<string, unknown> | null;
    if (
      o === null ||
      typeof o !== "object" ||
      Array.isArray(o) ||
      typeof o.code !== "string" ||
      typeof o.message !== "string"
    ) {
      fail(
        where,
        `"warnings[${i}]" must be a text or an object with a "code" and a "message". Got ${JSON.stringify(w)}.`,
      );
    }
  });
}

/** Checks that `value` is a well-formed FitRecord; `where` prefixes error messages. */
export function checkFitRecord(value: unknown, where = "record"): FitRecord {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    fail(where, "a fit record must be a JSON object.");
  }
  const r = value as Record<string, unknown>;
  if (typeof r.dataset !== "string" || r.dataset === "") {
    fail(where, `"dataset" must be a non-empty string. Got ${JSON.stringify(r.dataset)}.`);
  }
  if (!isNonNegInt(r.repeat)) {
    fail(where, `"repeat" must be an integer in [0, inf). Got ${JSON.stringify(r.repeat)}.`);
  }
  if (typeof r.method !== "string" || r.method === "") {
    fail(where, `"method" must be a non-empty string. Got ${JSON.stringify(r.method)}.`);
  }
  if (!isNonNegInt(r.k) || r.k < 1) {
    fail(where, `"k" must be an integer in [1, inf). Got ${JSON.stringify(r.k)}.`);
  }
  const params = r.params;
  if (params === null || typeof params !== "object" || Array.isArray(params)) {
    fail(where, `"params" must be an object. Got ${JSON.stringify(params)}.`);
  }
  for (const [name, v] of Object.entries(params as object)) {
    if (!tunableParams().includes(name)) {
      fail(
        where,
        `"params" has an unknown parameter '${name}' (known: ${tunableParams().join(", ")}).`,
      );
    }
    if (typeof v !== "number" || !Number.isFinite(v)) {
      fail(where, `"params.${name}" must be a finite number. Got ${JSON.stringify(v)}.`);
    }
  }
  for (const name of ["valBCA", "testBCA"] as const) {
    if (!isUnit(r[name])) {
      fail(where, `"${name}" must be a number in [0, 1]. Got ${JSON.stringify(r[name])}.`);
    }
  }
  if (r.trainBCA !== undefined && !isUnit(r.trainBCA)) {
    fail(where, `"trainBCA" must be a number in [0, 1]. Got ${JSON.stringify(r.trainBCA)}.`);
  }
  if (!isNonNegInt(r.iterations)) {
    fail(
      where,
      `"iterations" must be an integer in [0, inf). Got ${JSON.stringify(r.iterations)}.`,
    );
  }
  if (typeof r.converged !== "boolean") {
    fail(where, `"converged" must be true or false. Got ${JSON.stringify(r.converged)}.`);
  }
  if (typeof r.fitMs !== "number" || !Number.isFinite(r.fitMs) || r.fitMs < 0) {
    fail(where, `"fitMs" must be a number in [0, inf). Got ${JSON.stringify(r.fitMs)}.`);
  }
  if (r.preprocess !== undefined) checkPreprocessing(r.preprocess, "preprocess");
  if (r.warnings !== undefined) checkRecordWarnings(r.warnings, where);
  checkFingerprintField(r.fingerprint, where);
  return r as unknown as FitRecord;
}

/**
 * One JSON line (with "\n") for `results.jsonl`; params in canonical key order.
 */
export function fitRecordToLine(record: FitRecord): string {
  checkFitRecord(record);
  return `${JSON.stringify({ ...record, params: canonicalParams(record.params) })}\n`;
}

/**
 * Parses `results.jsonl`. Blank lines are skipped. A last line that does not end
 * in a newline and does not parse is what a run killed mid-write leaves: it is
 * dropped (its fit will simply be redone) unless `strict` is set. Lines recording a
 * configuration a method refused (`"status": "skipped"`) are not fits and are
 * passed over. Any other bad line throws naming its line number.
 */
export function parseFitRecords(text: string, { strict = false } = {}): FitRecord[] {
  if (typeof text !== "string") {
    throw new ValidationError(
      "text",
      `The results must be a string of JSON lines. Got ${typeof text}.`,
    );
  }
  const lines = text.split("\n");
  const out: FitRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    const isTruncatedTail = i === lines.length - 1 && !text.endsWith("\n");
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (err) {
      if (isTruncatedTail && !strict) continue;
      fail(`results line ${i + 1}`, `not valid JSON (${(err as Error).message}).`);
    }
    if (
      obj !== null &&
      typeof obj === "object" &&
      (obj as { status?: unknown }).status === "skipped"
    ) {
      continue;
    }
    out.push(checkFitRecord(obj, `results line ${i + 1}`));
  }
  return out;
}
