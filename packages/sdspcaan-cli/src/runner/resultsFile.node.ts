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
 * Every line carries the settings fingerprint of its fit (see plan.ts); lines
 * written before fingerprints existed have none and are read as carrying the
 * fingerprint that settings.json gives them.
 *
 * Crash safety: every line is written with one `write` call; a process killed in
 * the middle of a write leaves at most one partial last line without its "\n".
 * Readers ignore such a tail, and the writer cuts it off before appending. Any
 * other bad line (not JSON, not a results line, or a second line of the same fit
 * with another result) is an error naming the file and line; `--repair` moves
 * such lines to `results.rejected.jsonl`, and the rewrite of `results.jsonl` that
 * follows is atomic (temporary file, then rename).
 *
 * A results file may also be stored gzip-compressed beside its name, as
 * `results.jsonl.gz` (`gzip -9 -n results.jsonl`, or `sdspcaan compress`): the
 * committed runs are, as their plain text is tens of megabytes. Its lines are read
 * exactly as those of the plain file it compresses (same checks, same messages, the
 * .gz file named), before those of a plain file beside it, which is where a resumed
 * run appends (`storedForms`).
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { DataFormatError, ValidationError } from "sdspcaan";
import {
  regularOutputTarget,
  replaceFileDurably,
  writeAll,
  writeAtomically,
} from "../io/atomicWrite.js";
import { describeFileSystemError, fileError, makeFolders } from "../io/fileErrors.js";
import { canonicalJson } from "../protocol/fingerprint.js";
import { type Params, tunableParams } from "../protocol/grids.js";
import {
  canonicalParams,
  checkFingerprintField,
  checkFitRecord,
  type FitIdentity,
  type FitRecord,
  fitKey,
  fitRecordToLine,
} from "../protocol/records.js";
import { forEachLineOfText, forEachResultsLine } from "./resultLines.node.js";

export const RESULTS_FILE = "results.jsonl";
export const SETTINGS_FILE = "settings.json";
/** Where `--repair` moves bad lines of results.jsonl. */
export const REJECTED_FILE = "results.rejected.jsonl";
/** The ending of a results file stored gzip-compressed (results.jsonl.gz). */
export const GZIP_SUFFIX = ".gz";

/** The gzip-compressed form of the results file at `path`. */
export function compressedPath(path: string): string {
  return `${path}${GZIP_SUFFIX}`;
}

/**
 * The files that hold the lines of the results file at `path`, in reading order:
 * its compressed form first (the committed part of a run), then the plain file
 * (which a resumed run appends to). Either may be missing.
 */
export function storedForms(path: string): readonly [compressed: string, plain: string] {
  return [compressedPath(path), path];
}

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
  /** Settings fingerprint, as for fit records (absent in lines written before fingerprints). */
  readonly fingerprint?: string;
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

/** One well-formed line of a results file. */
export interface ResultEntry {
  /** The file the line is in (a .gz file for a compressed one). */
  readonly file: string;
  /** 1-based line number in the file. */
  readonly lineNo: number;
  /** The line as written (without its "\n"). */
  readonly text: string;
  readonly line: ResultLine;
}

/** A line that is not a valid results line. */
export interface InvalidLine {
  /** The file the line is in. */
  readonly file: string;
  readonly lineNo: number;
  readonly text: string;
  readonly reason: string;
}

/** Two lines that record the same fit with different results. */
export interface ConflictingLines {
  readonly first: ResultEntry;
  readonly second: ResultEntry;
  /** What differs, e.g. "testBCA 0.5 vs 0.75". */
  readonly difference: string;
}

/** Every line of a results file, sorted into good and bad, without throwing. */
export interface ScannedResults {
  readonly file: string;
  readonly entries: ResultEntry[];
  readonly invalid: InvalidLine[];
  /** Characters after the last "\n" that were ignored (a write cut short by a crash). */
  readonly ignoredTail: string;
}

/** Checks one line of text as a results line (throws ValidationError naming `where`). */
function checkResultLine(obj: unknown, where: string): ResultLine {
  if (obj !== null && typeof obj === "object" && (obj as SkippedFit).status === "skipped") {
    const skipped = checkSkipped(obj as Record<string, unknown>, where);
    checkFingerprintField((obj as Record<string, unknown>).fingerprint, where);
    return skipped;
  }
  return checkFitRecord(obj, where);
}

/**
 * Bad lines listed before a file counts as no results file at all: --repair moves
 * bad lines aside one by one, which is for a few damaged lines, not for a file of
 * something else.
 */
export const MAX_BAD_LINES = 10_000;

/** Sorts lines into entries and invalid lines as they come (see `scanResultLines`). */
function lineSorter(file: string): {
  readonly visit: (raw: string, lineNo: number) => void;
  readonly entries: ResultEntry[];
  readonly invalid: InvalidLine[];
} {
  const entries: ResultEntry[] = [];
  const invalid: InvalidLine[] = [];
  const bad = (b: InvalidLine) => {
    if (invalid.length === MAX_BAD_LINES) {
      throw new DataFormatError(
        file,
        `more than ${MAX_BAD_LINES} lines are not results lines (the first: ${invalid[0].reason}), so it is not a results file of sdspcaan; --repair does not take it either. Move it away, or remove those lines yourself.`,
      );
    }
    invalid.push(b);
  };
  const visit = (raw: string, lineNo: number) => {
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (err) {
      bad({
        file,
        lineNo,
        text: raw,
        reason: `line ${lineNo} is not valid JSON (${(err as Error).message})`,
      });
      return;
    }
    try {
      entries.push({ file, lineNo, text: raw, line: checkResultLine(obj, `line ${lineNo}`) });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      bad({ file, lineNo, text: raw, reason: err.message });
    }
  };
  return { visit, entries, invalid };
}

/**
 * Sorts the lines of `results.jsonl` into well-formed entries and invalid lines.
 * Blank lines are skipped; text after the last newline is what a run killed
 * mid-write leaves and is ignored (its fit is simply redone). A line longer than
 * MAX_LINE_BYTES, or more than MAX_BAD_LINES bad lines, is a DataFormatError
 * naming `file`.
 */
export function scanResultLines(text: string, file = RESULTS_FILE): ScannedResults {
  const sorter = lineSorter(file);
  const ignoredTail = forEachLineOfText(text, file, sorter.visit);
  return { file, entries: sorter.entries, invalid: sorter.invalid, ignoredTail };
}

/** "X", or "X.gz and X" when the results file at `path` has a compressed part: for messages. */
export function describeStored(path: string): string {
  const present = presentForms(path);
  return present.length === 0 ? path : present.join(" and ");
}

/** The files of `storedForms(path)` that exist, in reading order. */
export function presentForms(path: string): string[] {
  return storedForms(path).filter((p) => existsSync(p));
}

/**
 * Scans the results file at `path` (plain, or gzip-compressed as `*.gz`) as a
 * stream of lines (resultLines.node.ts); a missing file scans as empty.
 */
export function scanResultsFile(path: string): ScannedResults {
  const sorter = lineSorter(path);
  const read = forEachResultsLine(path, sorter.visit);
  return {
    file: path,
    entries: sorter.entries,
    invalid: sorter.invalid,
    ignoredTail: read?.tail ?? "",
  };
}

/** The fields that make a line's result: everything but the timing and the fingerprint. */
function resultFields(line: ResultLine): Record<string, unknown> {
  const { fitMs: _t, fingerprint: _f, ...rest } = line as FitRecord & { fingerprint?: string };
  return rest;
}

/** What differs between two lines of the same fit, for messages. */
function describeDifference(a: ResultLine, b: ResultLine): string {
  const x = resultFields(a);
  const y = resultFields(b);
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])];
  const diffs = keys
    .filter((k) => canonicalJson(x[k]) !== canonicalJson(y[k]))
    .map((k) => `${k} ${canonicalJson(x[k])} vs ${canonicalJson(y[k])}`);
  return diffs.slice(0, 3).join(", ") + (diffs.length > 3 ? `, and ${diffs.length - 3} more` : "");
}

/** "Yale, repeat 0, pca, k = 20, delta = 0.1" for messages. */
export function describeFit(line: FitIdentity): string {
  return `${line.dataset}, repeat ${line.repeat}, ${line.method}, ${describeConfiguration(line)}`;
}

/** The key under which two lines record the same fit: its identity and its fingerprint. */
export function entryKey(line: ResultLine): string {
  return `${fitKey(line)}|${line.fingerprint ?? ""}`;
}

/**
 * Drops repeated lines of the same fit that agree on its result (all fields but
 * fitMs and the fingerprint; the first is kept), and lists those that disagree.
 * `keyOf` says which lines record the same fit (default: identity and fingerprint).
 */
export function dedupeEntries(
  entries: readonly ResultEntry[],
  keyOf: (entry: ResultEntry) => string = (e) => entryKey(e.line),
): { entries: ResultEntry[]; duplicates: number; conflicts: ConflictingLines[] } {
  const first = new Map<string, { entry: ResultEntry; result: string }>();
  const kept: ResultEntry[] = [];
  const conflicts: ConflictingLines[] = [];
  let duplicates = 0;
  for (const entry of entries) {
    const key = keyOf(entry);
    const result = canonicalJson(resultFields(entry.line));
    const seen = first.get(key);
    if (seen === undefined) {
      first.set(key, { entry, result });
      kept.push(entry);
    } else if (seen.result === result) {
      duplicates++;
    } else {
      conflicts.push({
        first: seen.entry,
        second: entry,
        difference: describeDifference(seen.entry.line, entry.line),
      });
    }
  }
  return { entries: kept, duplicates, conflicts };
}

/** How to get out of bad lines, appended to every message about them. */
export const REPAIR_HINT = `To move the bad lines to ${REJECTED_FILE} and redo those fits, run the experiment command again with --repair.`;

/** The message of a conflict between two lines. */
export function describeConflict(c: ConflictingLines): string {
  return `lines ${c.first.lineNo} and ${c.second.lineNo} record the same fit (${describeFit(c.first.line)}) with different results (${c.difference})`;
}

/**
 * The error for bad lines of a results file: names the file and the first
 * problem's line(s), counts the others, and says how to repair.
 */
export function badLinesError(
  file: string,
  invalid: readonly InvalidLine[],
  conflicts: readonly ConflictingLines[],
): DataFormatError {
  const problems = [
    ...invalid.map((b) => ({ at: b.lineNo, text: b.reason, lines: [b.lineNo] })),
    ...conflicts.map((c) => ({
      at: c.second.lineNo,
      text: describeConflict(c),
      lines: [c.first.lineNo, c.second.lineNo],
    })),
  ].sort((a, b) => a.at - b.at);
  const more = problems.slice(1);
  const others =
    more.length === 0
      ? ""
      : `; ${more.length} more bad line${more.length === 1 ? "" : "s"} (line${more.length === 1 ? "" : "s"} ${more
          .slice(0, 10)
          .map((p) => p.lines.join(" and "))
          .join(", ")}${more.length > 10 ? ", ..." : ""})`;
  const text = `${problems[0].text}${others}`;
  // A record's reason may end its sentence itself ("... Got undefined.").
  return new DataFormatError(file, `${text.endsWith(".") ? text : `${text}.`} ${REPAIR_HINT}`);
}

/**
 * Parses the text of `results.jsonl`. Blank lines are skipped; text after the last
 * newline is what a run killed mid-write leaves and is ignored (its fit is simply
 * redone). Repeated lines of the same fit (identity and fingerprint) that agree
 * are read once; a malformed line, or two lines of the same fit with different
 * results, throws a DataFormatError naming `file` and the line numbers.
 */
export function parseResultLines(text: string, file = RESULTS_FILE): ParsedResults {
  return parsedOf(scanResultLines(text, file));
}

function parsedOf(scanned: ScannedResults): ParsedResults {
  const { entries, conflicts } = dedupeEntries(scanned.entries);
  if (scanned.invalid.length > 0 || conflicts.length > 0) {
    throw badLinesError(scanned.file, scanned.invalid, conflicts);
  }
  const records: FitRecord[] = [];
  const skipped: SkippedFit[] = [];
  for (const e of entries) {
    if (isSkipped(e.line)) skipped.push(e.line);
    else records.push(e.line);
  }
  return { records, skipped, ignoredTail: scanned.ignoredTail };
}

/**
 * Reads the results file at `path` (plain, or gzip-compressed when its name ends
 * in .gz); a missing file reads as empty. One file only: `readRunResults` reads a
 * whole results directory.
 */
export function readResultsFile(path: string): ParsedResults {
  return parsedOf(scanResultsFile(path));
}

/** Lines are written to the plain file only; its .gz is written whole (compress.node.ts). */
function refuseCompressed(path: string): void {
  if (path.endsWith(GZIP_SUFFIX)) {
    throw new ValidationError(
      "path",
      `${path} is a compressed results file: lines go to the plain file beside it.`,
    );
  }
}

/**
 * Replaces a results file by the given lines (each without "\n"), atomically:
 * a crash leaves either the old file or the new one.
 */
export function rewriteResultsFile(path: string, lines: readonly string[]): void {
  refuseCompressed(path);
  replaceFileDurably(path, Buffer.from(lines.map((l) => `${l}\n`).join(""), "utf8"));
}

/**
 * Appends lines set aside from a results file to `path` (e.g.
 * results.rejected.jsonl), one JSON object per line: the line number it had,
 * why it was set aside, its text as it was, and (for a line of results.jsonl.gz)
 * the name of the file it was in.
 */
export function appendSetAside(
  path: string,
  lines: ReadonlyArray<{
    readonly lineNo: number;
    readonly text: string;
    readonly reason: string;
    /** The file the line was in, when it was not the results file itself (its .gz). */
    readonly from?: string;
  }>,
): void {
  if (lines.length === 0) return;
  const target = regularOutputTarget(path);
  makeFolders(dirname(target));
  const text = lines
    .map((l) => {
      const entry = { line: l.lineNo, reason: l.reason, text: l.text };
      return `${JSON.stringify(l.from === undefined ? entry : { ...entry, file: l.from })}\n`;
    })
    .join("");
  appendWhole(target, path, Buffer.from(text, "utf8"));
}

/**
 * Appends `bytes` to the file `target` and flushes it; when that fails (a full
 * disk), the file is cut back to its old length, so no part of them stays, and the
 * error names `shown`.
 */
function appendWhole(target: string, shown: string, bytes: Uint8Array): void {
  let fd: number;
  try {
    fd = openSync(target, "a");
  } catch (err) {
    throw fileError(err, "write", shown);
  }
  let size = -1;
  try {
    size = fstatSync(fd).size;
    writeAll(fd, bytes);
    fsyncSync(fd);
  } catch (err) {
    if (size >= 0) {
      try {
        ftruncateSync(fd, size);
      } catch {
        // The write's own error says more.
      }
    }
    throw fileError(err, "write", shown);
  } finally {
    closeSync(fd);
  }
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
    refuseCompressed(path);
    const target = regularOutputTarget(path);
    makeFolders(dirname(target));
    let fd: number;
    try {
      fd = openSync(target, existsSync(target) ? "r+" : "w+");
    } catch (err) {
      throw fileError(err, "write", path);
    }
    try {
      const size = fstatSync(fd).size;
      const keep = lengthThroughLastNewline(fd, size);
      if (keep < size) ftruncateSync(fd, keep);
    } catch (err) {
      closeSync(fd);
      throw fileError(err, "write", path);
    }
    return new ResultsWriter(path, fd);
  }

  /** Writes one line at the end of the file. */
  append(line: ResultLine): void {
    if (this.fd === null) {
      throw new ValidationError("writer", `The results file ${this.path} is already closed.`);
    }
    const bytes = Buffer.from(resultLineText(line), "utf8");
    let size = -1;
    try {
      size = fstatSync(this.fd).size;
      let off = 0;
      while (off < bytes.length)
        off += writeSync(this.fd, bytes, off, bytes.length - off, size + off);
    } catch (err) {
      // A full disk: no part of the line stays (readers would skip it, but the
      // next line would start on it).
      if (size >= 0) {
        try {
          ftruncateSync(this.fd, size);
        } catch {
          // The next open cuts a partial line off anyway.
        }
      }
      throw fileError(err, "write", this.path);
    }
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
  writeAtomically(path, `${JSON.stringify(value, null, 2)}\n`);
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
        : `Cannot read ${path}: ${describeFileSystemError(err) ?? (err as Error).message}.`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DataFormatError(path, `not valid JSON (${(err as Error).message})`);
  }
}

/** The results, settings and rejected-lines files of a results directory. */
export function resultsPaths(dir: string): { results: string; settings: string; rejected: string } {
  return {
    results: join(dir, RESULTS_FILE),
    settings: join(dir, SETTINGS_FILE),
    rejected: join(dir, REJECTED_FILE),
  };
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
  for (const p of tunableParams()) {
    const v = line.params[p];
    if (v !== undefined) parts.push(`${p} = ${v}`);
  }
  return parts.join(", ");
}
