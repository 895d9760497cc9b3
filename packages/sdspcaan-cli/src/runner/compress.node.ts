/**
 * Compressing the results of a run: each plain results file of a results directory
 * (results.jsonl, results.shard-I-of-N.jsonl) goes into its gzip-compressed form
 * beside it (results.jsonl.gz: resultsFile.node.ts), after the lines that form
 * already holds, so that a finished run is committed at a tenth of its size and a
 * resumed one (whose new fits went to the plain file) is compressed again. What
 * `report`, `plot` and a resumed run read is the same before and after.
 *
 * As safe as the runner's own writes:
 * - each results file's run lock is held throughout, so a run writing the folder
 *   makes it refuse, and no run starts meanwhile;
 * - every line is checked first: a bad line, or two lines of one fit with different
 *   results, refuses the whole compression (`experiment --repair` first), as a bad
 *   line is harder to mend inside a .gz;
 * - both files must be regular files: a link, FIFO or device at either name is
 *   refused, as replacing or removing it would not do what it says;
 * - the .gz is written beside, flushed and renamed over the old one, read back and
 *   compared, and only then is the plain file removed;
 * - each line goes into the .gz once: a line of the plain file that the .gz already
 *   holds is not added again. So a compression killed at any point leaves what the
 *   next one finishes without doubling a line: the old files (and the lock and a
 *   temporary file of a process that no longer exists, which the next run removes:
 *   io/atomicWrite.ts, runLock.node.ts), or the new .gz beside the plain file whose
 *   lines it already holds (read together they give the same results; compressing
 *   again removes the plain file);
 * - a failure (a full disk) leaves the files as they were, with no temporary file
 *   and no lock left behind, and names the file that could not be written.
 *
 * The .gz is gzip at level 9 with no file name and no time in its header (as
 * `gzip -9 -n`, though two deflate implementations give different bytes), so the
 * same lines always give the same file.
 */
import { existsSync, lstatSync, readFileSync, statSync, unlinkSync } from "node:fs";
import { basename } from "node:path";
import { gzipSync, constants as zlibConstants } from "node:zlib";
import { SdspcaanError, ValidationError } from "sdspcaan";
import { replaceFileDurably } from "../io/atomicWrite.js";
import { fileError } from "../io/fileErrors.js";
import { gunzipResults } from "./resultLines.node.js";
import {
  badLinesError,
  compressedPath,
  entryKey,
  GZIP_SUFFIX,
  RESULTS_FILE,
  scanResultsFile,
} from "./resultsFile.node.js";
import { RunLock } from "./runLock.node.js";
import { mergeRunEntries, runResultsFiles } from "./runResults.node.js";

/** What compressing one results file did. */
export interface CompressedFile {
  /** The plain file compressed (removed). */
  readonly plain: string;
  /** The .gz that now holds its lines. */
  readonly compressed: string;
  /** Lines of the .gz before, and lines moved in from the plain file. */
  readonly linesBefore: number;
  readonly linesAdded: number;
  /**
   * Lines of the plain file that the .gz held already (a compression stopped
   * between writing the .gz and removing the plain file), and lines the .gz held
   * twice: neither is written again.
   */
  readonly linesRepeated: number;
  /** Bytes of the plain file and the old .gz, and of the new .gz. */
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /** Characters after the last newline of either file (a write cut short by a crash), dropped. */
  readonly droppedTail: number;
}

/** A step of `compressRunResults` done, for progress (`onStep`). */
export type CompressStep =
  /** Every lock is held. */
  | "locked"
  /** Every file is read and checked; nothing is written yet. */
  | "checked"
  /** The .gz of `file` is in place (flushed), the plain file still there. */
  | "written"
  /** The .gz of `file` reads back as the lines written. */
  | "verified"
  /** The plain `file` is removed. */
  | "removed";

export interface CompressOptions {
  /** Called after each step (with the plain results file it was about, where one). */
  readonly onStep?: (step: CompressStep, file: string | null) => void;
}

/** What `compressRunResults` did. */
export interface CompressResult {
  readonly files: CompressedFile[];
  readonly notes: string[];
}

/**
 * Refuses anything but a regular file (not followed through a link) at `path`;
 * its size, or 0 when there is nothing there.
 */
function regularSize(path: string): number {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw err;
  }
  if (st.isFile()) return st.size;
  throw new ValidationError(
    "out",
    st.isSymbolicLink()
      ? `${path} is a symbolic link: compressing would replace or remove the link, not the file it names. Put the file itself there, or compress it yourself.`
      : `${path} is not a regular file (a FIFO, a device or a folder), so it is not compressed.`,
  );
}

/** The gzip bytes of `text`: level 9, no name, no time (zlib writes neither). */
export function gzipResults(text: string | Uint8Array): Uint8Array {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  return gzipSync(bytes, { level: zlibConstants.Z_BEST_COMPRESSION });
}

/** A results file read and checked, with the text its .gz is to hold. */
interface Prepared extends Omit<CompressedFile, "bytesAfter"> {
  readonly text: Buffer;
}

/** Reads and checks both forms of the results file `plain`, line by line; writes nothing. */
function prepare(plain: string): Prepared {
  const compressed = compressedPath(plain);
  const bytesBefore = regularSize(plain) + regularSize(compressed);
  const scans = [scanResultsFile(compressed), scanResultsFile(plain)];
  for (const s of scans) if (s.invalid.length > 0) throw badLinesError(s.file, s.invalid, []);
  mergeRunEntries(
    scans.flatMap((s) => s.entries),
    (e) => entryKey(e.line),
  );
  // Whole lines only, each once (see the top of this file); blank lines go.
  const seen = new Set<string>();
  const lines: string[] = [];
  const kept = [0, 0];
  let repeated = 0;
  scans.forEach((s, i) => {
    for (const e of s.entries) {
      if (seen.has(e.text)) {
        repeated++;
        continue;
      }
      seen.add(e.text);
      lines.push(`${e.text}\n`);
      kept[i]++;
    }
  });
  return {
    plain,
    compressed,
    text: Buffer.from(lines.join(""), "utf8"),
    linesBefore: kept[0],
    linesAdded: kept[1],
    linesRepeated: repeated,
    bytesBefore,
    droppedTail: scans[0].ignoredTail.length + scans[1].ignoredTail.length,
  };
}

/** Writes the .gz of a prepared file, reads it back, and then removes the plain file. */
function commit(p: Prepared, step: (s: CompressStep, file: string) => void): CompressedFile {
  const { text, ...rest } = p;
  const bytes = gzipResults(text);
  replaceFileDurably(p.compressed, bytes);
  step("written", p.plain);
  let back: Buffer;
  try {
    back = gunzipResults(readFileSync(p.compressed), p.compressed);
  } catch (err) {
    throw fileError(err, "read", p.compressed);
  }
  if (!back.equals(text)) {
    throw new SdspcaanError(
      `${p.compressed} does not read back as the lines written into it; ${p.plain} is kept.`,
    );
  }
  step("verified", p.plain);
  try {
    unlinkSync(p.plain);
  } catch (err) {
    throw fileError(err, "remove", p.plain);
  }
  step("removed", p.plain);
  return { ...rest, bytesAfter: bytes.length };
}

/**
 * Removes the lock of the results file `plain` when a process that no longer
 * exists left it (a compression killed after it removed the plain file); a lock a
 * run holds stays, as does its run.
 */
function removeStaleLock(plain: string, notes: string[]): void {
  if (!existsSync(RunLock.pathFor(plain))) return;
  let lock: RunLock;
  try {
    lock = RunLock.acquire(plain);
  } catch (err) {
    if (err instanceof ValidationError) return;
    throw err;
  }
  lock.release();
  if (lock.tookOver !== null) {
    notes.push(`Removed the lock an earlier run left on ${plain} (${lock.tookOver}).`);
  }
}

/**
 * Compresses every plain results file of the results directory `dir` into its .gz
 * (see the top of this file). Throws a ValidationError when `dir` is not a folder
 * holding results, when a run holds one of its locks, or when a file is not a
 * regular file; a DataFormatError for a bad line (nothing is then written).
 */
export function compressRunResults(dir: string, options: CompressOptions = {}): CompressResult {
  const step = (s: CompressStep, file: string | null) => options.onStep?.(s, file);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // Missing: said below.
  }
  if (!isDir) {
    throw new ValidationError("out", `${dir} is not a results directory (no such folder).`);
  }
  // Its results files as readers list them (results.jsonl's, then the shards' by
  // count and index); the plain ones are what is compressed.
  const files = runResultsFiles(dir);
  const plains = files.filter((f) => !f.endsWith(GZIP_SUFFIX));
  const notes: string[] = [];
  if (plains.length === 0) {
    const compressed = files.map((f) => basename(f));
    if (compressed.length === 0) {
      throw new ValidationError(
        "out",
        `${dir} holds no results file (${RESULTS_FILE}, or a shard's results.shard-I-of-N.jsonl).`,
      );
    }
    notes.push(
      `Nothing to compress: ${compressed.join(", ")} ${compressed.length === 1 ? "is" : "are"} compressed already.`,
    );
    for (const f of files) removeStaleLock(f.slice(0, -GZIP_SUFFIX.length), notes);
    return { files: [], notes };
  }
  // Every lock first, so that a run writing any of the files refuses the whole command.
  const locks: RunLock[] = [];
  try {
    for (const plain of plains) {
      const lock = RunLock.acquire(plain);
      locks.push(lock);
      if (lock.tookOver) {
        notes.push(`Took over the lock of an earlier run of ${plain} (${lock.tookOver}).`);
      }
    }
    step("locked", null);
    // Every file is read and checked before any is written.
    const prepared = plains.map(prepare);
    step("checked", null);
    const files = prepared.map((p) => commit(p, step));
    for (const f of files) {
      if (f.linesRepeated > 0) {
        notes.push(
          `${f.linesRepeated} line${f.linesRepeated === 1 ? "" : "s"} of ${basename(f.plain)} or ${basename(f.compressed)} ${f.linesRepeated === 1 ? "was" : "were"} in ${basename(f.compressed)} already (a compression stopped before it removed ${basename(f.plain)}, or a line written twice); ${f.linesRepeated === 1 ? "it is" : "they are"} kept once.`,
        );
      }
      if (f.droppedTail > 0) {
        notes.push(
          `Dropped ${f.droppedTail} characters after the last line of ${basename(f.plain)} or ${basename(f.compressed)} (a write cut short by a crash, which readers ignore).`,
        );
      }
    }
    return { files, notes };
  } finally {
    for (const lock of locks) lock.release();
  }
}
