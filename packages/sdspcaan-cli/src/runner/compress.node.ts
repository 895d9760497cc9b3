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
 *   compared, and only then is the plain file removed. A crash leaves the old
 *   files, or the new .gz beside the plain file whose lines it repeats: read
 *   together they give the same results, and compressing again finishes the job.
 *
 * The .gz is gzip at level 9 with no file name and no time in its header (as
 * `gzip -9 -n`, though two deflate implementations give different bytes), so the
 * same lines always give the same file.
 */
import { lstatSync, statSync, unlinkSync } from "node:fs";
import { basename } from "node:path";
import { gzipSync, constants as zlibConstants } from "node:zlib";
import { SdspcaanError, ValidationError } from "sdspcaan";
import { replaceFileDurably } from "../io/atomicWrite.js";
import {
  badLinesError,
  compressedPath,
  entryKey,
  GZIP_SUFFIX,
  RESULTS_FILE,
  readResultsText,
  scanResultLines,
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
  /** Bytes of the plain file and the old .gz, and of the new .gz. */
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /** Characters after the last newline of either file (a write cut short by a crash), dropped. */
  readonly droppedTail: number;
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
export function gzipResults(text: string): Uint8Array {
  return gzipSync(Buffer.from(text, "utf8"), { level: zlibConstants.Z_BEST_COMPRESSION });
}

/** A results file read and checked, with the text its .gz is to hold. */
interface Prepared extends Omit<CompressedFile, "bytesAfter"> {
  readonly text: string;
}

/** Reads and checks both forms of the results file `plain`; writes nothing. */
function prepare(plain: string): Prepared {
  const compressed = compressedPath(plain);
  const bytesBefore = regularSize(plain) + regularSize(compressed);
  const before = readResultsText(compressed) ?? "";
  const added = readResultsText(plain) ?? "";
  const scans = [scanResultLines(before, compressed), scanResultLines(added, plain)];
  for (const s of scans) if (s.invalid.length > 0) throw badLinesError(s.file, s.invalid, []);
  mergeRunEntries(
    scans.flatMap((s) => s.entries),
    (e) => entryKey(e.line),
  );
  // Whole lines only: a .gz whose text ended inside a line would glue that part to
  // the first line added.
  const [old, add] = scans.map((s) => s.ignoredTail.length);
  return {
    plain,
    compressed,
    text: before.slice(0, before.length - old) + added.slice(0, added.length - add),
    linesBefore: scans[0].entries.length,
    linesAdded: scans[1].entries.length,
    bytesBefore,
    droppedTail: old + add,
  };
}

/** Writes the .gz of a prepared file, reads it back, and then removes the plain file. */
function commit(p: Prepared): CompressedFile {
  const { text, ...rest } = p;
  const bytes = gzipResults(text);
  replaceFileDurably(p.compressed, bytes);
  if (readResultsText(p.compressed) !== text) {
    throw new SdspcaanError(
      `${p.compressed} does not read back as the lines written into it; ${p.plain} is kept.`,
    );
  }
  unlinkSync(p.plain);
  return { ...rest, bytesAfter: bytes.length };
}

/**
 * Compresses every plain results file of the results directory `dir` into its .gz
 * (see the top of this file). Throws a ValidationError when `dir` is not a folder
 * holding results, when a run holds one of its locks, or when a file is not a
 * regular file; a DataFormatError for a bad line (nothing is then written).
 */
export function compressRunResults(dir: string): CompressResult {
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
    // Every file is read and checked before any is written.
    const files = plains.map(prepare).map(commit);
    for (const f of files) {
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
