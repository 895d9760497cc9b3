/**
 * Resuming a run in its results directory: which lines of the results file are
 * reused (their fit is planned and their settings fingerprint is the planned one),
 * which are refused or, with --force / --repair, set aside. Lines written before
 * fingerprints existed get the fingerprint the recorded settings.json gives them.
 *
 * The results file may be stored in two parts (resultsFile.node.ts): a
 * gzip-compressed results.jsonl.gz (a committed run) read first, and the plain
 * results.jsonl that new fits are appended to. Both are read as one file. When
 * lines must leave or change (--force, --repair, fingerprints written into old
 * lines), the plain file is rewritten atomically, as always; the .gz is left as it
 * is when none of its own lines leaves or changes. When some do, the lines it
 * keeps go into the rewritten plain file, ahead of the plain file's own, and the
 * .gz is removed once that file is durably in place (never the other way round,
 * which could lose lines). The .gz must then be a regular file: a link, FIFO or
 * device there is refused before anything is written, as removing it would not
 * remove what it names. A crash between the rename and the removal leaves both
 * files, the plain one holding every line kept; read together they give the same
 * fits, and what the .gz still holds of the lines set aside is set aside again by
 * the next --force or --repair. The folded file stays uncompressed (new fits are
 * appended to it); `sdspcaan compress` compresses it again.
 */
import { existsSync, lstatSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { type DataFormatError, ValidationError } from "sdspcaan";
import { plural } from "../plural.js";
import { splitsChecksum } from "../protocol/fingerprint.js";
import { FitFingerprints, planSplit, type RunSettings } from "../protocol/plan.js";
import { fitKey } from "../protocol/records.js";
import {
  appendSetAside,
  badLinesError,
  type ConflictingLines,
  dedupeEntries,
  describeConflict,
  describeFit,
  entryKey,
  type InvalidLine,
  RESULTS_FILE,
  type ResultEntry,
  type ResultLine,
  resultLineText,
  rewriteResultsFile,
  SETTINGS_FILE,
  scanResultsFile,
  storedForms,
} from "./resultsFile.node.js";
import type { ExperimentOptions, Plan } from "./runPlan.node.js";
import {
  conflictError,
  describeFiles,
  mergeRunEntries,
  runResultsFiles,
  scanResultsFiles,
  shardOfResultsFile,
} from "./runResults.node.js";
import { pluginDifferences, readRunSettings, settingsDifferences } from "./settingsFile.node.js";

/**
 * Fingerprints of lines written before fingerprints existed, from the settings.json
 * they were made under (`old`). A split is recreated from the old settings (seeded),
 * or taken from this run when it has the very splits the old run had (explicit);
 * when neither is possible the line gets no fingerprint and cannot be reused.
 */
function legacyFingerprints(old: RunSettings, plan: Plan): FitFingerprints {
  const now = new Map(
    plan.datasets.map((d, i) => [d.data.name, { loaded: d, entry: plan.settings.datasets[i] }]),
  );
  return new FitFingerprints(old, (dataset, repeat) => {
    const entry = old.datasets[dataset];
    const current = now.get(entry.name);
    if (entry.splitsChecksum !== null) {
      const splits = current?.loaded.splits ?? null;
      if (splits === null || repeat >= old.repeats || splits.length < old.repeats) return null;
      return splitsChecksum(splits.slice(0, old.repeats)) === entry.splitsChecksum
        ? splits[repeat]
        : null;
    }
    if (old.stratify) {
      // A stratified split needs the labels: only this run's data, if it is the same data.
      if (current === undefined || current.entry.checksum !== entry.checksum) return null;
      return planSplit(old, dataset, { y: current.loaded.data.y, splits: null }, repeat);
    }
    return planSplit(old, dataset, { y: null, splits: null }, repeat);
  });
}

/**
 * The part of the run this process resumes: the whole run, or one shard with its
 * own results file. Lines of fits outside it are not this process's results.
 */
export interface ResumeScope {
  /** The results file and where --repair moves its bad lines. */
  readonly files: { readonly results: string; readonly rejected: string };
  /** fitKey -> planned fingerprint of every fit in the scope. */
  readonly fingerprints: ReadonlyMap<string, string>;
  /** Fits in the scope. */
  readonly total: number;
}

/** What a resumed run found in its results directory, and what it does about it. */
export interface ResumeState {
  /** Lines reused as results of this run. */
  readonly reused: ResultLine[];
  readonly notes: string[];
}

function lineList(entries: ReadonlyArray<{ readonly lineNo: number }>): string {
  const nums = entries.map((e) => e.lineNo).sort((a, b) => a - b);
  return nums.slice(0, 10).join(", ") + (nums.length > 10 ? `, ... (${nums.length} in all)` : "");
}

/** A line of the results file, as it is set aside. */
interface SetAsideLine {
  readonly file: string;
  readonly lineNo: number;
  readonly text: string;
  readonly reason: string;
}

/** "X (lines 3, 5)", or "X.gz (line 2) and X (lines 3, 5)": where lines were, for notes. */
function linesIn(files: readonly string[], lines: readonly SetAsideLine[]): string {
  return files
    .map((file) => {
      const here = lines.filter((l) => l.file === file);
      if (here.length === 0) return null;
      return `${file} (line${here.length === 1 ? "" : "s"} ${lineList(here)})`;
    })
    .filter((x) => x !== null)
    .join(" and ");
}

/**
 * The error for bad lines of a results file in its two parts: the first file (in
 * reading order) with bad lines of its own, named as for one file; else the first
 * conflict between the two files, naming both.
 */
function storedLinesError(
  files: readonly string[],
  invalid: readonly InvalidLine[],
  conflicts: readonly ConflictingLines[],
): DataFormatError {
  for (const file of files) {
    const bad = invalid.filter((b) => b.file === file);
    const clashes = conflicts.filter((c) => c.first.file === file && c.second.file === file);
    if (bad.length + clashes.length > 0) return badLinesError(file, bad, clashes);
  }
  return conflictError(conflicts[0]);
}

/**
 * Refuses to fold a .gz that is not a regular file (see the top of this file):
 * checked before anything is written.
 */
function checkRemovable(path: string): void {
  const st = lstatSync(path);
  if (st.isFile()) return;
  const what = st.isSymbolicLink() ? "a symbolic link" : "not a regular file";
  throw new ValidationError(
    "out",
    `${path} is ${what}: this run would move its lines into the plain results file and remove it. Put a regular file there (or gunzip it into the plain file yourself) and run again.`,
  );
}

/**
 * A run (or shard) with no lines of its own yet, in a directory whose other results
 * files were made by another content of a plug-in: refused, naming the plug-in and
 * the method, since the merged report would mix the two (settings.json, rewritten
 * by this run, would disown the other files' fits of that method).
 */
function refuseOtherPlugins(dir: string, old: RunSettings, plan: Plan, own: string): void {
  const diffs = pluginDifferences(old, plan.settings);
  if (diffs.length === 0) return;
  const others = runResultsFiles(dir).filter((f) => !storedForms(own).includes(f));
  if (others.length === 0) return;
  throw new ValidationError(
    "out",
    `${dir} holds results (${others.map((f) => basename(f)).join(", ")}) of a run with another plug-in (${diffs.map((d) => d.message).join("; ")}). Run every shard with the same plug-in file, use another output directory, or go on with --force (the report then leaves out the other files' fits of that method).`,
  );
}

/**
 * Reads the results directory of a run and decides, line by line, what is reused.
 * A line is reused when its fit is planned and its fingerprint (for an old line
 * without one: the fingerprint settings.json gives it) is the planned one.
 * Refuses (unless `force`) settings that differ from settings.json and lines of
 * planned fits made with other settings; refuses (unless `repair`) bad lines.
 * With `force`/`repair`, sets the other lines aside and rewrites results.jsonl
 * atomically (folding results.jsonl.gz into it when lines of the .gz leave or
 * change; see the top of this file); before settings.json changes, old lines
 * without a fingerprint get the one settings.json gives them, so they keep their
 * meaning.
 */
export function prepareResume(
  dir: string,
  plan: Plan,
  options: Pick<ExperimentOptions, "force" | "repair">,
  scope: ResumeScope,
): ResumeState {
  const paths = scope.files;
  const [compressed, plain] = storedForms(paths.results);
  const scans = [scanResultsFile(compressed), scanResultsFile(plain)];
  const all = scans.flatMap((s) => s.entries);
  const invalid = scans.flatMap((s) => s.invalid);
  const old = readRunSettings(dir);
  const notes: string[] = [];
  if (all.length + invalid.length === 0) {
    if (old !== null && !options.force) refuseOtherPlugins(dir, old, plan, paths.results);
    return { reused: [], notes };
  }
  // The files that hold lines, for messages: "X", or "X.gz and X".
  const held = scans.filter((s) => s.entries.length + s.invalid.length > 0).map((s) => s.file);
  const where = held.join(" and ");

  const legacy = old !== null ? legacyFingerprints(old, plan) : null;
  const effective = new Map<ResultEntry, string | null>();
  for (const e of all) {
    effective.set(e, e.line.fingerprint ?? legacy?.ofLine(e.line) ?? null);
  }
  const keyOf = (e: ResultEntry) => `${fitKey(e.line)}|${effective.get(e) ?? "unknown"}`;
  const { entries, conflicts } = dedupeEntries(all, keyOf);

  // Bad lines: an error naming them, or (repair) set aside with every line of a conflicting fit.
  const rejected: SetAsideLine[] = [];
  let kept = entries;
  if (invalid.length > 0 || conflicts.length > 0) {
    if (!options.repair) throw storedLinesError(held, invalid, conflicts);
    // Every line of a fit with conflicting lines goes: which of them is right is unknown.
    const conflicting = new Map<string, ConflictingLines>();
    for (const c of conflicts)
      if (!conflicting.has(keyOf(c.first))) conflicting.set(keyOf(c.first), c);
    for (const b of invalid) rejected.push(b);
    for (const e of all) {
      const c = conflicting.get(keyOf(e));
      if (c !== undefined) rejected.push({ ...e, reason: describeConflict(c) });
    }
    kept = entries.filter((e) => !conflicting.has(keyOf(e)));
  }

  const diffs = old !== null ? settingsDifferences(old, plan.settings) : [];
  const reused: ResultEntry[] = [];
  const stale: ResultEntry[] = [];
  const unverifiable: ResultEntry[] = [];
  for (const e of kept) {
    const planned = scope.fingerprints.get(fitKey(e.line));
    const fp = effective.get(e) ?? null;
    if (planned !== undefined) {
      if (fp === planned) reused.push(e);
      else stale.push(e);
    } else if (fp === null) {
      // Outside this run and without a fingerprint that settings.json could give it.
      unverifiable.push(e);
    }
  }
  // Lines outside the run without a fingerprint lose their meaning once settings.json changes.
  const settingsChange = old === null || diffs.length > 0;
  const orphans = settingsChange ? unverifiable : [];
  const toRun = scope.total - reused.length;

  if (!options.force && (diffs.length > 0 || stale.length > 0 || orphans.length > 0)) {
    const forced = `--force, which reuses the ${plural(reused.length, "fit")} whose settings fingerprint matches, moves the other ${plural(stale.length + orphans.length, "line")} to ${RESULTS_FILE}.old-N, and runs the ${plural(toRun, "fit")} left`;
    if (diffs.length > 0) {
      throw new ValidationError(
        "out",
        `${dir} holds results of a run with different settings (${diffs.map((d) => d.message).join("; ")}). Use another output directory, or go on with ${forced}.`,
      );
    }
    const example = stale[0] ?? orphans[0];
    throw new ValidationError(
      "out",
      `${where} ${held.length === 1 ? "holds" : "hold"} ${plural(stale.length + orphans.length, "line")} made with other settings than this run${old === null ? ` (there is no ${SETTINGS_FILE} to say which)` : ""}: their settings fingerprint is not this run's, e.g. line ${example.lineNo}${held.length === 1 ? "" : ` of ${example.file}`} (${describeFit(example.line)}). Use another output directory, or go on with ${forced}.`,
    );
  }

  const setAside = [...stale, ...orphans];
  const legacyLines = kept.filter((e) => e.line.fingerprint === undefined);
  // Rewrite when lines leave the file, or when old lines must get their fingerprint
  // written down before settings.json, which gives it to them, changes.
  const stamp = legacyLines.length > 0 && settingsChange;
  if (setAside.length > 0 || rejected.length > 0 || stamp) {
    const leaving = new Set<ResultEntry>(setAside);
    const stays = kept.filter((e) => !leaving.has(e));
    const stampOf = (e: ResultEntry) =>
      e.line.fingerprint === undefined ? (effective.get(e) ?? null) : null;
    // The .gz is folded into the plain file when a line of its own leaves or changes.
    const fold =
      [...setAside, ...rejected].some((l) => l.file === compressed) ||
      stays.some((e) => e.file === compressed && stampOf(e) !== null);
    if (fold) checkRemovable(compressed);
    const lines: string[] = [];
    let stamped = 0;
    for (const e of stays) {
      if (!fold && e.file === compressed) continue;
      const fp = stampOf(e);
      if (fp !== null) {
        lines.push(resultLineText({ ...e.line, fingerprint: fp }).trimEnd());
        stamped++;
      } else {
        lines.push(e.text);
      }
    }
    let aside: string | null = null;
    if (setAside.length > 0) {
      aside = asideName(paths.results);
      rewriteResultsFile(
        aside,
        inFileOrder(held, setAside).map((e) => e.text),
      );
    }
    appendSetAside(
      paths.rejected,
      inFileOrder(held, rejected).map((l) => ({
        lineNo: l.lineNo,
        text: l.text,
        reason: l.reason,
        ...(l.file === compressed ? { from: basename(compressed) } : {}),
      })),
    );
    rewriteResultsFile(plain, lines);
    // Its lines are safely in the plain file now; already gone is fine.
    if (fold) rmSync(compressed, { force: true });
    if (rejected.length > 0) {
      notes.push(
        `--repair: moved ${plural(rejected.length, "bad line")} of ${linesIn(held, rejected)} to ${paths.rejected}; their fits are redone.`,
      );
    }
    if (aside !== null) {
      notes.push(
        `--force: moved ${plural(setAside.length, "line")} made with other settings to ${aside}.`,
      );
    }
    if (stamped > 0) {
      notes.push(
        `Wrote the settings fingerprint that ${SETTINGS_FILE} gives them into ${plural(stamped, "line")} of ${plain} made before lines carried one.`,
      );
    }
    if (fold) {
      notes.push(
        `Moved the remaining lines of ${compressed} into ${plain} (uncompressed; 'sdspcaan compress' compresses it again) and removed ${compressed}.`,
      );
    }
  }
  if (reused.length > 0 || options.force) {
    notes.push(
      `${options.force ? "--force: reusing" : "Resuming: reusing"} ${plural(reused.length, "finished fit")} of ${scope.total} (their settings fingerprint matches this run); ${plural(toRun, "fit")} to run.`,
    );
  }
  return { reused: reused.map((e) => e.line), notes };
}

/** Lines in the order they had: by file (reading order), then by line number. */
function inFileOrder<T extends { readonly file: string; readonly lineNo: number }>(
  files: readonly string[],
  lines: readonly T[],
): T[] {
  return [...lines].sort(
    (a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.lineNo - b.lineNo,
  );
}

/** A free name "results.jsonl.old-N" beside the results file, for setting old results aside. */
function asideName(path: string): string {
  for (let i = 1; ; i++) {
    const candidate = `${path}.old-${i}`;
    if (!existsSync(candidate)) return candidate;
  }
}

/**
 * A run of the whole plan (no shard) in a directory whose fits were made by shards:
 * the lines of the shards' results files (results.shard-I-of-N.jsonl, and their
 * .gz) of planned fits with the planned fingerprint, not among `reused` already,
 * read as the report reads them (a bad line, or two lines of one fit with different
 * results, is an error naming the file). They are reused as they are: the shards'
 * files are not written, new fits go to results.jsonl, and the report merges all.
 */
export function reuseShardResults(
  dir: string,
  scope: Pick<ResumeScope, "fingerprints" | "total">,
  reused: readonly ResultLine[],
): ResumeState {
  const files = runResultsFiles(dir).filter((f) => shardOfResultsFile(basename(f)) !== null);
  const entries = scanResultsFiles(files);
  const done = new Set(reused.map((l) => fitKey(l)));
  const found: ResultLine[] = [];
  for (const e of mergeRunEntries(entries, (x) => entryKey(x.line))) {
    const key = fitKey(e.line);
    if (done.has(key) || scope.fingerprints.get(key) !== e.line.fingerprint) continue;
    done.add(key);
    found.push(e.line);
  }
  if (found.length === 0) return { reused: [], notes: [] };
  const left = scope.total - done.size;
  return {
    reused: found,
    notes: [
      `Resuming: reusing ${plural(found.length, reused.length > 0 ? "more finished fit" : "finished fit")} of ${scope.total} from ${describeFiles(files)} (their settings fingerprint matches this run); ${plural(left, "fit")} to run${left > 0 ? `, written to ${RESULTS_FILE}` : ""}.`,
    ],
  };
}
