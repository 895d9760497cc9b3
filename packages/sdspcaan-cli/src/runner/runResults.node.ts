/**
 * All the results files of a results directory, read as one: `results.jsonl` of a
 * single-process run and `results.shard-I-of-N.jsonl` of each shard of a job
 * array (shards.ts), each of them also (or only) as its gzip-compressed `.gz`,
 * read before the plain file (resultsFile.node.ts). Lines of one fit found in two
 * files must agree on its result; two different results for one fit are an error
 * naming both files and lines, as nobody can tell which is right.
 */
import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { DataFormatError } from "sdspcaan";
import type { FitRecord } from "../protocol/records.js";
import { parseShardFileName, type ShardSpec, shardFileName } from "../protocol/shards.js";
import {
  badLinesError,
  type ConflictingLines,
  compressedPath,
  dedupeEntries,
  describeFit,
  entryKey,
  GZIP_SUFFIX,
  isSkipped,
  presentForms,
  REPAIR_HINT,
  RESULTS_FILE,
  type ResultEntry,
  type SkippedFit,
  scanResultsFile,
} from "./resultsFile.node.js";

/** A line of one of the run's results files (each entry names its file). */
export type RunResultEntry = ResultEntry;

/** Every line of a run's results files. */
export interface ScannedRun {
  /**
   * The results files read, in reading order: results.jsonl.gz, results.jsonl, then
   * the shards' files by count and index (each shard's .gz before its plain file).
   */
  readonly files: string[];
  readonly entries: RunResultEntry[];
}

/** The shard a file name is the results file of (plain or compressed), or null. */
export function shardOfResultsFile(
  name: string,
): { readonly shard: ShardSpec; readonly compressed: boolean } | null {
  const compressed = name.endsWith(GZIP_SUFFIX);
  const shard = parseShardFileName(compressed ? name.slice(0, -GZIP_SUFFIX.length) : name);
  return shard === null ? null : { shard, compressed };
}

/**
 * The results files of a directory in reading order: results.jsonl.gz and
 * results.jsonl (those present), then the shards' files (a .gz before its plain
 * file).
 */
export function runResultsFiles(dir: string): string[] {
  const out = presentForms(join(dir, RESULTS_FILE));
  if (!existsSync(dir)) return out;
  const shards = readdirSync(dir)
    .map((name) => ({ name, of: shardOfResultsFile(name) }))
    .filter((x) => x.of !== null)
    .map((x) => ({ name: x.name, ...(x.of as NonNullable<typeof x.of>) }))
    .sort(
      (a, b) =>
        a.shard.count - b.shard.count ||
        a.shard.index - b.shard.index ||
        Number(b.compressed) - Number(a.compressed),
    );
  for (const s of shards) out.push(join(dir, s.name));
  return out;
}

/**
 * Reads every results file of a directory. A bad line (not JSON, not a results
 * line, or two lines of one fit in the same file with different results) is an
 * error naming its file, as for a single results file; so is a .gz file that is
 * not gzip or is cut short.
 */
export function scanRunResults(dir: string): ScannedRun {
  const files = runResultsFiles(dir);
  return { files, entries: scanResultsFiles(files) };
}

/** Every line of `files`, read as `scanRunResults` reads a directory's. */
export function scanResultsFiles(files: readonly string[]): RunResultEntry[] {
  const entries: RunResultEntry[] = [];
  for (const file of files) {
    const scanned = scanResultsFile(file);
    if (scanned.invalid.length > 0) throw badLinesError(file, scanned.invalid, []);
    entries.push(...scanned.entries);
  }
  return entries;
}

/** Whether two files are the two forms of one results file (X.gz and X). */
function formsOfOneFile(a: string, b: string): boolean {
  return a === compressedPath(b) || b === compressedPath(a);
}

/** The error for two lines of one fit with different results, naming both files and lines. */
export function conflictError(c: ConflictingLines): DataFormatError {
  const a = c.first;
  const b = c.second;
  if (a.file === b.file) return badLinesError(b.file, [], [c]);
  const clash = `line ${b.lineNo} records the same fit as line ${a.lineNo} of ${a.file} (${describeFit(a.line)}) with a different result (${c.difference})`;
  if (formsOfOneFile(a.file, b.file)) {
    // One results file in two parts: its run's --repair sets both lines aside.
    return new DataFormatError(b.file, `${clash}. ${REPAIR_HINT}`);
  }
  return new DataFormatError(
    b.file,
    `${clash}. Two processes ran this fit with different outcomes; remove the wrong line (or the file of the shard that made it, and run that shard again).`,
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
    const sameFile = conflicts.filter((c) => c.first.file === c.second.file);
    if (sameFile.length > 0) {
      const file = sameFile[0].second.file;
      throw badLinesError(
        file,
        [],
        sameFile.filter((c) => c.second.file === file),
      );
    }
    throw conflictError(conflicts[0]);
  }
  return kept;
}

/** "a, b and c" for notes. */
function listing(parts: readonly string[]): string {
  return parts.length <= 1
    ? (parts[0] ?? "")
    : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

/** "results.jsonl and 6 shard files", "results.jsonl.gz, results.jsonl and 2 shard files" for notes. */
export function describeFiles(files: readonly string[]): string {
  const single = files.map((f) => basename(f)).filter((n) => shardOfResultsFile(n) === null);
  const shards = files.length - single.length;
  const parts = [...single];
  if (shards > 0) parts.push(`${shards} shard file${shards === 1 ? "" : "s"}`);
  return listing(parts);
}

/**
 * What the shards' files among `files` say is missing: for each shard count found,
 * the shards with neither a plain nor a .gz results file, as a sentence for notes
 * ("No results file of shard 2/3 (results.shard-2-of-3.jsonl)."), or null.
 */
export function missingShardsText(files: readonly string[]): string | null {
  const present = new Map<number, Set<number>>();
  for (const f of files) {
    const of = shardOfResultsFile(basename(f));
    if (of === null) continue;
    const seen = present.get(of.shard.count) ?? new Set<number>();
    seen.add(of.shard.index);
    present.set(of.shard.count, seen);
  }
  const missing: ShardSpec[] = [];
  for (const [count, seen] of [...present].sort((a, b) => a[0] - b[0])) {
    for (let index = 0; index < count; index++)
      if (!seen.has(index)) missing.push({ index, count });
  }
  if (missing.length === 0) return null;
  const shown = missing.slice(0, 10);
  const more = missing.length > shown.length ? `, ... (${missing.length} in all)` : "";
  const one = missing.length === 1;
  return `No results file${one ? "" : "s"} of shard${one ? "" : "s"} ${listing(shown.map((m) => `${m.index}/${m.count}`))}${more} (${shown.map(shardFileName).join(", ")}${more}).`;
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
