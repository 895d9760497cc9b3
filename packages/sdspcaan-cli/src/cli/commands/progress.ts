/**
 * Progress of an experiment on standard error: a bar with an ETA on a terminal
 * (cli-progress), and plain lines when the output is a file or a pipe (every
 * `intervalMs`, and at each tenth of the work), so logs stay readable.
 */
import cliProgress from "cli-progress";
import type { FitCallbacks, FitProgress } from "sdspcaan";
import { describeFit, isSkipped } from "../../runner/resultsFile.node.js";
import type { ExperimentProgress } from "../../runner/runner.node.js";
import { formatDuration } from "./output.js";

export interface ProgressDisplayOptions {
  /** Stream to draw on (default process.stderr). */
  readonly stream?: NodeJS.WriteStream;
  /** Milliseconds between plain lines when not on a terminal (default 10 s). */
  readonly intervalMs?: number;
  /** Force the plain-line mode even on a terminal. */
  readonly plain?: boolean;
}

function lastText(p: ExperimentProgress): string {
  const line = p.line;
  if (line === undefined) return "";
  // Repeats from 0, as results.jsonl, the warnings and --repeat count them.
  const what = describeFit(line);
  return isSkipped(line) ? `${what} (refused)` : what;
}

/** Shows experiment progress; call `update` from onProgress and `stop` at the end. */
export class ProgressDisplay {
  private readonly stream: NodeJS.WriteStream;
  private readonly intervalMs: number;
  private readonly bar: cliProgress.SingleBar | null;
  private started = false;
  private lastPrint = 0;
  private lastDecile = -1;
  private latest: ExperimentProgress | null = null;

  constructor(options: ProgressDisplayOptions = {}) {
    this.stream = options.stream ?? process.stderr;
    this.intervalMs = options.intervalMs ?? 10_000;
    this.bar =
      this.stream.isTTY && !options.plain
        ? new cliProgress.SingleBar(
            {
              stream: this.stream,
              format:
                "{bar} {percentage}% | {value}/{total} fits | {elapsed} elapsed | ETA {remaining} | {last}",
              barsize: 24,
              hideCursor: true,
              clearOnComplete: false,
              fps: 5,
            },
            cliProgress.Presets.shades_classic,
          )
        : null;
  }

  update(p: ExperimentProgress): void {
    this.latest = p;
    const payload = {
      elapsed: formatDuration(p.elapsedMs),
      remaining: p.etaMs === null ? "..." : formatDuration(p.etaMs),
      last: lastText(p),
    };
    if (this.bar) {
      if (!this.started) {
        this.bar.start(p.total, p.done, payload);
        this.started = true;
      } else {
        this.bar.update(p.done, payload);
      }
      return;
    }
    const now = p.elapsedMs;
    const decile = p.total > 0 ? Math.floor((10 * p.done) / p.total) : 10;
    if (!this.started || now - this.lastPrint >= this.intervalMs || decile > this.lastDecile) {
      this.started = true;
      this.lastPrint = now;
      this.lastDecile = decile;
      this.stream.write(`${this.plainLine(p)}\n`);
    }
  }

  private plainLine(p: ExperimentProgress): string {
    const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
    const parts = [`experiment: ${p.done}/${p.total} fits (${pct} %)`];
    if (p.resumed > 0) parts.push(`${p.resumed} resumed`);
    if (p.skipped > 0) parts.push(`${p.skipped} refused`);
    parts.push(`${formatDuration(p.elapsedMs)} elapsed`);
    if (p.etaMs !== null && p.done < p.total) parts.push(`ETA ${formatDuration(p.etaMs)}`);
    const last = lastText(p);
    return `${parts.join(", ")}${last ? `; last: ${last}` : ""}`;
  }

  /** Ends the display (draws the last state). */
  stop(): void {
    if (this.bar) {
      if (this.started) this.bar.stop();
      return;
    }
    const p = this.latest;
    if (p !== null && (p.done !== p.total || this.lastDecile < 10)) {
      this.stream.write(`${this.plainLine(p)}\n`);
    }
  }
}

/** lambda as the rank control moves it: a power of two when it is one (2^14), else a number. */
function lambdaText(lambda: number): string {
  const e = Math.log2(lambda);
  return Number.isInteger(e) && Math.abs(e) >= 4 ? `2^${e}` : String(lambda);
}

/**
 * Progress of one long fit (`fit`, `evaluate`) on standard error: on a terminal one
 * line redrawn in place (at most every `redrawMs`), elsewhere a plain line every
 * `intervalMs`. A fit that ends before the first interval prints nothing.
 */
export class FitProgressDisplay {
  private readonly stream: NodeJS.WriteStream;
  private readonly tty: boolean;
  private readonly everyMs: number;
  private readonly t0 = Date.now();
  private lastPrint = this.t0;
  private drawn = false;

  constructor(options: ProgressDisplayOptions & { readonly redrawMs?: number } = {}) {
    this.stream = options.stream ?? process.stderr;
    this.tty = this.stream.isTTY === true && !options.plain;
    this.everyMs = this.tty ? (options.redrawMs ?? 250) : (options.intervalMs ?? 10_000);
  }

  /** The text of one progress report. */
  static line(p: FitProgress, elapsedMs: number): string {
    const parts = [`${p.method}: iteration ${p.iteration}/${p.maxIterations}`];
    if (p.lambda !== null) parts.push(`lambda ${lambdaText(p.lambda)}`);
    // The stop test beside its tolerance: how far a long fit is from stopping.
    if (p.change !== null && p.tol !== null) {
      parts.push(`change ${p.change.toPrecision(3)} (stops below ${p.tol})`);
    }
    if (p.objective !== null) parts.push(`objective ${p.objective.toPrecision(6)}`);
    parts.push(`${formatDuration(elapsedMs)} elapsed`);
    return parts.join(", ");
  }

  update(p: FitProgress): void {
    const now = Date.now();
    if (now - this.lastPrint < this.everyMs) return;
    this.lastPrint = now;
    const text = FitProgressDisplay.line(p, now - this.t0);
    if (this.tty) {
      this.stream.write(`\r\x1b[2K${text} (Ctrl-C stops)`);
      this.drawn = true;
    } else {
      this.stream.write(`${text}\n`);
    }
  }

  /** Clears the in-place line on a terminal. */
  stop(): void {
    if (this.tty && this.drawn) this.stream.write("\r\x1b[2K");
    this.drawn = false;
  }
}

/**
 * Runs one fit on this thread, with a FitProgressDisplay unless `show` is false, and
 * clears the display's line however the fit ends.
 */
export function withFitProgress<T>(show: boolean, run: (callbacks: FitCallbacks) => T): T {
  const display = show ? new FitProgressDisplay() : null;
  try {
    return run(display ? { onProgress: (p) => display.update(p) } : {});
  } finally {
    display?.stop();
  }
}
