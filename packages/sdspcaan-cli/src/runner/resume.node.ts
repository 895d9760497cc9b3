/**
 * Resuming a run in its results directory: which lines of the results file are
 * reused (their fit is planned and their settings fingerprint is the planned one),
 * which are refused or, with --force / --repair, set aside. Lines written before
 * fingerprints existed get the fingerprint the recorded settings.json gives them.
 */
import { existsSync } from "node:fs";
import { ValidationError } from "sdspcaan";
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
  RESULTS_FILE,
  type ResultEntry,
  type ResultLine,
  resultLineText,
  rewriteResultsFile,
  SETTINGS_FILE,
  scanResultsFile,
} from "./resultsFile.node.js";
import type { ExperimentOptions, Plan } from "./runPlan.node.js";
import { readRunSettings, settingsDifferences } from "./settingsFile.node.js";

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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function lineList(entries: ReadonlyArray<{ readonly lineNo: number }>): string {
  const nums = entries.map((e) => e.lineNo).sort((a, b) => a - b);
  return nums.slice(0, 10).join(", ") + (nums.length > 10 ? `, ... (${nums.length} in all)` : "");
}

/**
 * Reads the results directory of a run and decides, line by line, what is reused.
 * A line is reused when its fit is planned and its fingerprint (for an old line
 * without one: the fingerprint settings.json gives it) is the planned one.
 * Refuses (unless `force`) settings that differ from settings.json and lines of
 * planned fits made with other settings; refuses (unless `repair`) bad lines.
 * With `force`/`repair`, sets the other lines aside and rewrites results.jsonl
 * atomically; before settings.json changes, old lines without a fingerprint get
 * the one settings.json gives them, so they keep their meaning.
 */
export function prepareResume(
  dir: string,
  plan: Plan,
  options: Pick<ExperimentOptions, "force" | "repair">,
  scope: ResumeScope,
): ResumeState {
  const paths = scope.files;
  const scanned = scanResultsFile(paths.results);
  const old = readRunSettings(dir);
  const notes: string[] = [];
  if (scanned.entries.length + scanned.invalid.length === 0) return { reused: [], notes };

  const legacy = old !== null ? legacyFingerprints(old, plan) : null;
  const effective = new Map<ResultEntry, string | null>();
  for (const e of scanned.entries) {
    effective.set(e, e.line.fingerprint ?? legacy?.ofLine(e.line) ?? null);
  }
  const keyOf = (e: ResultEntry) => `${fitKey(e.line)}|${effective.get(e) ?? "unknown"}`;
  const { entries, conflicts } = dedupeEntries(scanned.entries, keyOf);

  // Bad lines: an error naming them, or (repair) set aside with every line of a conflicting fit.
  const rejected: Array<{ lineNo: number; text: string; reason: string }> = [];
  let kept = entries;
  if (scanned.invalid.length > 0 || conflicts.length > 0) {
    if (!options.repair) throw badLinesError(paths.results, scanned.invalid, conflicts);
    // Every line of a fit with conflicting lines goes: which of them is right is unknown.
    const conflicting = new Map<string, ConflictingLines>();
    for (const c of conflicts)
      if (!conflicting.has(keyOf(c.first))) conflicting.set(keyOf(c.first), c);
    for (const b of scanned.invalid) rejected.push(b);
    for (const e of scanned.entries) {
      const c = conflicting.get(keyOf(e));
      if (c !== undefined)
        rejected.push({ lineNo: e.lineNo, text: e.text, reason: describeConflict(c) });
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
    const forced = `--force (force) reuses the ${plural(reused.length, "fit")} whose settings fingerprint matches, moves the other ${plural(stale.length + orphans.length, "line")} to ${RESULTS_FILE}.old-N, and runs the ${plural(toRun, "fit")} left`;
    if (diffs.length > 0) {
      throw new ValidationError(
        "out",
        `${dir} holds results of a run with different settings (${diffs.map((d) => d.message).join("; ")}). Use another output directory, or go on with ${forced}.`,
      );
    }
    const example = stale[0] ?? orphans[0];
    throw new ValidationError(
      "out",
      `${paths.results} holds ${plural(stale.length + orphans.length, "line")} made with other settings than this run${old === null ? ` (there is no ${SETTINGS_FILE} to say which)` : ""}: their settings fingerprint is not this run's, e.g. line ${example.lineNo} (${describeFit(example.line)}). Use another output directory, or go on with ${forced}.`,
    );
  }

  const setAside = [...stale, ...orphans];
  const legacyLines = kept.filter((e) => e.line.fingerprint === undefined);
  // Rewrite when lines leave the file, or when old lines must get their fingerprint
  // written down before settings.json, which gives it to them, changes.
  const stamp = legacyLines.length > 0 && settingsChange;
  if (setAside.length > 0 || rejected.length > 0 || stamp) {
    const leaving = new Set<number>([...setAside, ...rejected].map((e) => e.lineNo));
    const lines: string[] = [];
    let stamped = 0;
    for (const e of kept) {
      if (leaving.has(e.lineNo)) continue;
      const fp = effective.get(e) ?? null;
      if (e.line.fingerprint === undefined && fp !== null) {
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
        [...setAside].sort((a, b) => a.lineNo - b.lineNo).map((e) => e.text),
      );
    }
    appendSetAside(
      paths.rejected,
      [...rejected].sort((a, b) => a.lineNo - b.lineNo),
    );
    rewriteResultsFile(paths.results, lines);
    if (rejected.length > 0) {
      notes.push(
        `--repair: moved ${plural(rejected.length, "bad line")} of ${paths.results} (line${rejected.length === 1 ? "" : "s"} ${lineList(rejected)}) to ${paths.rejected}; their fits are redone.`,
      );
    }
    if (aside !== null) {
      notes.push(
        `--force: moved ${plural(setAside.length, "line")} made with other settings to ${aside}.`,
      );
    }
    if (stamped > 0) {
      notes.push(
        `Wrote the settings fingerprint that ${SETTINGS_FILE} gives them into ${plural(stamped, "line")} of ${paths.results} made before lines carried one.`,
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

/** A free name "results.jsonl.old-N" beside the results file, for setting old results aside. */
function asideName(path: string): string {
  for (let i = 1; ; i++) {
    const candidate = `${path}.old-${i}`;
    if (!existsSync(candidate)) return candidate;
  }
}
