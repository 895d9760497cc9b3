/**
 * All the results files of a results directory, read as one: `results.jsonl` of a
 * single-process run and `results.shard-I-of-N.jsonl` of each shard of a job
 * array (shards.ts). Lines of one fit found in two files must agree on its
 * result; two different results for one fit are an error naming both files and
 * lines, as nobody can tell which is right.
 */
import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { DataFormatError } from "sdspcaan";
import type { FitRecord } from "../protocol/records.js";
import { parseShardFileName } from "../protocol/shards.js";
import {
  badLinesError,
  type ConflictingLines,
  dedupeEntries,
  describeFit,
  entryKey,
  type InvalidLine,
  isSkipped,
  RESULTS_FILE,
  type ResultEntry,
  type SkippedFit,
  scanResultsFile,
} from "./resultsFile.node.js";

/** A line of one of the run's results files. */
export interface RunResultEntry extends ResultEntry {
  /** The file the line is in. */
  readonly file: string;
}

/** Every line of a run's results files. */
export interface ScannedRun {
  /** The results files read, in reading order (results.jsonl first, then shards by count and index). */
  readonly files: string[];
  readonly entries: RunResultEntry[];
}

/** The results files of a directory: results.jsonl (when present), then the shards' files. */
export function runResultsFiles(dir: string): string[] {
  const out: string[] = [];
  const single = join(dir, RESULTS_FILE);
  if (existsSync(single)) out.push(single);
  if (!existsSync(dir)) return out;
  const shards = readdirSync(dir)
    .map((name) => ({ name, shard: parseShardFileName(name) }))
    .filter((x) => x.shard !== null)
    .sort(
      (a, b) =>
        (a.shard?.count ?? 0) - (b.shard?.count ?? 0) ||
        (a.shard?.index ?? 0) - (b.shard?.index ?? 0),
    );
  for (const s of shards) out.push(join(dir, s.name));
  return out;
}

/**
 * Reads every results file of a directory. A bad line (not JSON, not a results
 * line, or two lines of one fit in the same file with different results) is an
 * error naming its file, as for a single results file.
 */
export function scanRunResults(dir: string): ScannedRun {
  const files = runResultsFiles(dir);
  const entries: RunResultEntry[] = [];
  for (const file of files) {
    const scanned = scanResultsFile(file);
    if (scanned.invalid.length > 0) throw badLinesError(file, scanned.invalid, []);
    for (const e of scanned.entries) entries.push({ ...e, file });
  }
  return { files, entries };
}

/** The error for two lines of one fit with different results, naming both files and lines. */
export function conflictError(c: ConflictingLines): DataFormatError {
  const a = c.first as RunResultEntry;
  const b = c.second as RunResultEntry;
  if (a.file === undefined || b.file === undefined || a.file === b.file) {
    return badLinesError(b.file ?? RESULTS_FILE, [] as InvalidLine[], [c]);
  }
  return new DataFormatError(
    b.file,
    `line ${b.lineNo} records the same fit as line ${a.lineNo} of ${a.file} (${describeFit(a.line)}) with a different result (${c.difference}). Two processes ran this fit with different outcomes; remove the wrong line (or the file of the shard that made it, and run that shard again).`,
  );
}

/**
 * Keeps one line per fit (as `keyOf` says which lines are of one fit); repeated
 * lines that agree are read once. Throws for the first conflict.
 */
export function mergeRunEntries(
  entries: readonly RunResultEntry[],
  keyOf: (e: ResultEntry) => string,
): RunResultEntry[] {
  const { entries: kept, conflicts } = dedupeEntries(entries, keyOf);
  if (conflicts.length > 0) {
    // Within one file the usual message (with --repair); across files, both named.
    const sameFile = conflicts.filter(
      (c) => (c.first as RunResultEntry).file === (c.second as RunResultEntry).file,
    );
    if (sameFile.length > 0) {
      const file = (sameFile[0].second as RunResultEntry).file;
      throw badLinesError(
        file,
        [],
        sameFile.filter((c) => (c.second as RunResultEntry).file === file),
      );
    }
    throw conflictError(conflicts[0]);
  }
  return kept as RunResultEntry[];
}

/** "results.jsonl and 6 shard files" for notes. */
export function describeFiles(files: readonly string[]): string {
  const shards = files.filter((f) => parseShardFileName(basename(f)) !== null).length;
  const single = files.length - shards;
  const parts: string[] = [];
  if (single > 0) parts.push(RESULTS_FILE);
  if (shards > 0) parts.push(`${shards} shard file${shards === 1 ? "" : "s"}`);
  return parts.join(" and ");
}

/**
 * Every fit record and refused configuration of a directory's results files, one
 * per fit and settings fingerprint (as `readResultsFile` reads one file). Throws a
 * DataFormatError for a bad line or two different results for one fit.
 */
export function readRunResults(dir: string): {
  readonly files: string[];
  readonly records: FitRecord[];
  readonly skipped: SkippedFit[];
} {
  const scanned = scanRunResults(dir);
  const records: FitRecord[] = [];
  const skipped: SkippedFit[] = [];
  for (const e of mergeRunEntries(scanned.entries, (x) => entryKey(x.line))) {
    if (isSkipped(e.line)) skipped.push(e.line);
    else records.push(e.line);
  }
  return { files: scanned.files, records, skipped };
}
