/**
 * One writer per results file. Two `experiment` processes on the same `--out` (and
 * the same shard) would both run every fit and append both their lines; the second
 * one refuses instead. The shards of one plan write files of their own, so each
 * holds its own lock and they run side by side.
 *
 * The lock is a file beside the results file, made with O_EXCL, holding who owns
 * it. A run that crashed (kill -9, a node lost) must not leave its folder locked
 * for ever, so a lock counts as stale, and is taken over, when its owner is a
 * process of this host that no longer exists, or when its owner (on any host, where
 * no process id can be checked) has not touched it for STALE_AFTER_MS: the owner
 * touches it every HEARTBEAT_MS from a timer.
 *
 * The lock is made whole or not at all (written to a temporary file, then linked
 * into place); the temporary file is removed whatever happens, and one left by a
 * process of this host that was killed meanwhile (or a stale lock it had moved
 * aside) is removed by the next `acquire`.
 */
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { ValidationError } from "sdspcaan";
import { processExists, removeDeadTemporaries, temporaryName } from "../io/atomicWrite.js";
import { fileError, makeFolders } from "../io/fileErrors.js";

/** How often the owner touches its lock. */
export const HEARTBEAT_MS = 30_000;
/**
 * A lock untouched this long is stale. Generous against the heartbeat: an
 * in-process run can block its timer for the length of one fit.
 */
export const STALE_AFTER_MS = 15 * 60_000;

interface LockOwner {
  readonly host: string;
  readonly pid: number;
  readonly started: string;
}

function thisHost(): string {
  return hostname();
}

function readOwner(
  path: string,
): { owner: LockOwner | null; text: string; mtimeMs: number } | null {
  let text: string;
  let mtimeMs: number;
  try {
    text = readFileSync(path, "utf8");
    mtimeMs = statSync(path).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  try {
    const v = JSON.parse(text) as Partial<LockOwner>;
    if (typeof v.host === "string" && typeof v.pid === "number" && typeof v.started === "string") {
      return { owner: { host: v.host, pid: v.pid, started: v.started }, text, mtimeMs };
    }
  } catch {
    // A lock cut short by a crash while it was written: stale once old enough.
  }
  return { owner: null, text, mtimeMs };
}

/** Why the lock at `path` is stale, or null while its owner may still be running. */
function staleness(info: { owner: LockOwner | null; mtimeMs: number }, now: number): string | null {
  const age = now - info.mtimeMs;
  if (age > STALE_AFTER_MS) return `untouched for ${Math.round(age / 60_000)} min`;
  const { owner } = info;
  if (owner !== null && owner.host === thisHost() && !processExists(owner.pid)) {
    return `process ${owner.pid} no longer exists`;
  }
  return null;
}

/** A held lock on one results file; `release` (idempotent) removes it. */
export class RunLock {
  readonly path: string;
  private readonly text: string;
  private timer: ReturnType<typeof setInterval> | null;
  private readonly onExit: () => void;
  /** Why an earlier owner's lock was taken over, when it was. */
  readonly tookOver: string | null;

  private constructor(path: string, text: string, tookOver: string | null) {
    this.path = path;
    this.text = text;
    this.tookOver = tookOver;
    this.timer = setInterval(() => this.touch(), HEARTBEAT_MS);
    this.timer.unref();
    this.onExit = () => this.release();
    process.on("exit", this.onExit);
  }

  /** The lock file of a results file. */
  static pathFor(resultsPath: string): string {
    return `${resultsPath}.lock`;
  }

  /**
   * Takes the lock of `resultsPath`, or throws a `ValidationError` naming `flag`,
   * the folder and the process that holds it.
   */
  static acquire(resultsPath: string, flag = "--out"): RunLock {
    const path = RunLock.pathFor(resultsPath);
    const owner: LockOwner = {
      host: thisHost(),
      pid: process.pid,
      started: new Date().toISOString(),
    };
    const text = `${JSON.stringify(owner)}\n`;
    let tookOver: string | null = null;
    makeFolders(dirname(path));
    removeDeadTemporaries(path, [".tmp", ".stale"]);
    for (let attempt = 0; attempt < 3; attempt++) {
      if (RunLock.tryCreate(path, text)) return new RunLock(path, text, tookOver);
      const info = readOwner(path);
      if (info === null) continue; // released meanwhile: try again
      const stale = staleness(info, Date.now());
      if (stale === null) {
        const who =
          info.owner === null
            ? "another process"
            : `process ${info.owner.pid} on ${info.owner.host}, started ${info.owner.started}`;
        throw new ValidationError(
          flag.replace(/^--/, ""),
          `Another experiment is writing ${resultsPath} (${who}; lock ${path}). Wait for it to finish, or give another ${flag}. A lock left by a crashed run is taken over by itself once its process is gone.`,
        );
      }
      // Move the stale lock aside, then check that what was moved is the stale one
      // and not a lock another process made in between (put that one back).
      const aside = `${path}.stale-${thisHost()}-${process.pid}`;
      try {
        renameSync(path, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw fileError(err, "take over the stale lock", path);
      }
      let moved = "";
      try {
        moved = readFileSync(aside, "utf8");
      } catch {
        // Gone already: nothing to put back.
      }
      if (moved !== info.text) {
        try {
          linkSync(aside, path);
        } catch {
          // Someone holds the lock again; the next attempt finds it.
        }
      }
      rmSync(aside, { force: true });
      tookOver = stale;
    }
    throw new ValidationError(
      flag.replace(/^--/, ""),
      `Could not take the lock ${path}: other processes keep taking it.`,
    );
  }

  /**
   * Creates the lock whole or not at all: written aside, then hard-linked into
   * place; the file written aside is removed whatever happens (a full disk).
   */
  private static tryCreate(path: string, text: string): boolean {
    const tmp = temporaryName(path);
    try {
      const fd = openSync(tmp, "w");
      try {
        writeSync(fd, text);
      } finally {
        closeSync(fd);
      }
      linkSync(tmp, path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw fileError(err, "create the lock", path);
    } finally {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // Removed by the next acquire once this process is gone.
      }
    }
  }

  private touch(): void {
    try {
      const now = new Date();
      utimesSync(this.path, now, now);
    } catch {
      // A lock removed under us is found by the next run; the fits go on.
    }
  }

  /** Removes the lock if it is still this process's. */
  release(): void {
    if (this.timer === null) return;
    clearInterval(this.timer);
    this.timer = null;
    process.off("exit", this.onExit);
    try {
      if (readFileSync(this.path, "utf8") === this.text) rmSync(this.path, { force: true });
    } catch {
      // Already gone.
    }
  }
}
