/**
 * The files of a results directory: `results.jsonl` (one JSON line per finished
 * fit, appended as each fit finishes) and `settings.json` (what the run was asked
 * to do, so that a resumed run can refuse different settings).
 *
 * Besides fit records, `results.jsonl` holds "skipped" lines: a configuration the
 * method refused (k above the data rank, SLNP with a class of fewer than 4
 * training samples, ...). They are recorded so that resuming does not retry them
 * and the report can say why a cell is "--".
 *
 * Crash safety: every line is written with one `write` call; a process killed in
 * the middle of a write leaves at most one partial last line without its "\n".
 * Readers ignore such a tail, and the writer cuts it off before appending.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { DataFormatError, ValidationError } from "../core/errors.js";
import { PARAM_NAMES, type Params } from "./grids.js";
import {
  canonicalParams,
  checkFitRecord,
  type FitIdentity,
  type FitRecord,
  fitKey,
  fitRecordToLine,
} from "./records.js";

export const RESULTS_FILE = "results.jsonl";
export const SETTINGS_FILE = "settings.json";

/** A configuration the method refused; stored so that a resumed run does not retry it. */
export interface SkippedFit {
  readonly status: "skipped";
  readonly dataset: string;
  readonly repeat: number;
  readonly method: string;
  readonly k: number;
  readonly params: Params;
  /** The method's error message. */
  readonly reason: string;
  /** The error class, e.g. "ValidationError". */
  readonly error: string;
}

/** One line of `results.jsonl`. */
export type ResultLine = FitRecord | SkippedFit;

/** Whether a results line is a skipped configuration rather than a fit. */
export function isSkipped(line: ResultLine): line is SkippedFit {
  return (line as SkippedFit).status === "skipped";
}

/** The JSON line (with "\n") of a fit record or a skipped configuration. */
export function resultLineText(line: ResultLine): string {
  if (!isSkipped(line)) return fitRecordToLine(line);
  checkSkipped(line as unknown as Record<string, unknown>, "skipped fit");
  return `${JSON.stringify({ ...line, params: canonicalParams(line.params) })}\n`;
}

function checkSkipped(value: Record<string, unknown>, where: string): SkippedFit {
  // The identity fields have the same rules as a fit record's; reuse its checks.
  checkFitRecord(
    {
      dataset: value.dataset,
      repeat: value.repeat,
      method: value.method,
      k: value.k,
      params: value.params,
      valBCA: 0,
      testBCA: 0,
      iterations: 0,
      converged: false,
      fitMs: 0,
    },
    where,
  );
  if (typeof value.reason !== "string" || typeof value.error !== "string") {
    throw new ValidationError(
      "record",
      `${where}: a skipped line needs "reason" and "error" strings. Got ${JSON.stringify(value.reason)} and ${JSON.stringify(value.error)}.`,
    );
  }
  return value as unknown as SkippedFit;
}

/** What `parseResultLines` found. */
export interface ParsedResults {
  readonly records: FitRecord[];
  readonly skipped: SkippedFit[];
  /** Characters after the last "\n" that were ignored (a write cut short by a crash). */
  readonly ignoredTail: string;
}

/**
 * Parses the text of `results.jsonl`. Blank lines are skipped; text after the last
 * newline is what a run killed mid-write leaves and is ignored (its fit is simply
 * redone). Any other malformed line throws naming `file` and the line number.
 */
export function parseResultLines(text: string, file = RESULTS_FILE): ParsedResults {
  const end = text.lastIndexOf("\n") + 1;
  const lines = text.slice(0, end).split("\n");
  const records: FitRecord[] = [];
  const skipped: SkippedFit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === "") continue;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (err) {
      throw new DataFormatError(
        file,
        `line ${i + 1} is not valid JSON (${(err as Error).message})`,
      );
    }
    try {
      if (obj !== null && typeof obj === "object" && (obj as SkippedFit).status === "skipped") {
        skipped.push(checkSkipped(obj as Record<string, unknown>, `line ${i + 1}`));
      } else {
        records.push(checkFitRecord(obj, `line ${i + 1}`));
      }
    } catch (err) {
      if (err instanceof ValidationError) throw new DataFormatError(file, err.message);
      throw err;
    }
  }
  return { records, skipped, ignoredTail: text.slice(end) };
}

/** Reads `results.jsonl` at `path`; a missing file reads as empty. */
export function readResultsFile(path: string): ParsedResults {
  if (!existsSync(path)) return { records: [], skipped: [], ignoredTail: "" };
  return parseResultLines(readFileSync(path, "utf8"), path);
}

/** The fitKeys of every line (fits and skipped configurations): what a resumed run skips. */
export function finishedKeys(parsed: ParsedResults): Set<string> {
  const keys = new Set<string>();
  for (const r of parsed.records) keys.add(fitKey(r));
  for (const s of parsed.skipped) keys.add(fitKey(s));
  return keys;
}

/**
 * Appends result lines to a results file, one `write` per line so that a crash
 * loses at most the line being written. Opening cuts off a partial last line left
 * by an earlier crash, so the next line starts on a line of its own.
 */
export class ResultsWriter {
  readonly path: string;
  private fd: number | null;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.fd = fd;
  }

  /** Opens (creating folders and the file as needed) for appending. */
  static open(path: string): ResultsWriter {
    mkdirSync(dirname(path), { recursive: true });
    const fd = openSync(path, existsSync(path) ? "r+" : "w+");
    try {
      const size = fstatSync(fd).size;
      const keep = lengthThroughLastNewline(fd, size);
      if (keep < size) ftruncateSync(fd, keep);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return new ResultsWriter(path, fd);
  }

  /** Writes one line at the end of the file. */
  append(line: ResultLine): void {
    if (this.fd === null) {
      throw new ValidationError("writer", `The results file ${this.path} is already closed.`);
    }
    const bytes = Buffer.from(resultLineText(line), "utf8");
    const size = fstatSync(this.fd).size;
    let off = 0;
    while (off < bytes.length)
      off += writeSync(this.fd, bytes, off, bytes.length - off, size + off);
  }

  /** Closes the file (idempotent). */
  close(): void {
    if (this.fd !== null) {
      closeSync(this.fd);
      this.fd = null;
    }
  }
}

/** Bytes of the file up to and including its last "\n" (0 when it has none). */
function lengthThroughLastNewline(fd: number, size: number): number {
  const chunk = Buffer.alloc(64 * 1024);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - start, start);
    for (let i = n - 1; i >= 0; i--) if (chunk[i] === 0x0a) return start + i + 1;
    end = start;
  }
  return 0;
}

/** Writes a JSON file atomically (temporary file, then rename). */
export function writeJsonFile(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true }); // nothing half-written stays behind
    throw err;
  }
}

/** Reads a JSON file, naming the file in the error when it does not parse. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ValidationError(
      "path",
      code === "ENOENT"
        ? `${path} does not exist.`
        : `Cannot read ${path}: ${(err as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DataFormatError(path, `not valid JSON (${(err as Error).message})`);
  }
}

/** The results and settings files of a results directory. */
export function resultsPaths(dir: string): { results: string; settings: string } {
  return { results: join(dir, RESULTS_FILE), settings: join(dir, SETTINGS_FILE) };
}

/** A fit identity with its params in canonical order (for messages and sorting). */
export function identityOf(line: FitIdentity): FitIdentity {
  return {
    dataset: line.dataset,
    repeat: line.repeat,
    method: line.method,
    k: line.k,
    params: canonicalParams(line.params),
  };
}

/** "k = 20, delta = 0.1" for messages. */
export function describeConfiguration(line: FitIdentity): string {
  const parts = [`k = ${line.k}`];
  for (const p of PARAM_NAMES) {
    const v = line.params[p];
    if (v !== undefined) parts.push(`${p} = ${v}`);
  }
  return parts.join(", ");
}
