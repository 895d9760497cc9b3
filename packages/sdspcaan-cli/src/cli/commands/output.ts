/**
 * What a command writes to the terminal: its result on standard output, notes and
 * warnings on standard error, durations in words.
 */
import { plural } from "../../plural.js";

/** Writes a line (or lines) to standard output. */
export function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Writes a line to standard error (notes, progress, warnings). */
export function note(text: string): void {
  process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}

/**
 * Writes each warning of a fit to standard error as one line "warning: ..." (standard
 * output stays the command's result, e.g. evaluate's JSON).
 */
export function noteWarnings(warnings: readonly { readonly message: string }[]): void {
  for (const w of warnings) note(`warning: ${w.message.replace(/\s*\n\s*/g, " ")}`);
}

/** Formats milliseconds as "850 ms", "12.3 s", "4m 05s" or "1h 02m". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, "0")}m` : `${m}m ${String(sec).padStart(2, "0")}s`;
}

/**
 * How a fit ended, in words: "closed form" for a method that computes its projection
 * in one step (PCA, LDA, ...: zero iterations would read as if nothing had run), else
 * its iterations and whether they converged, e.g. "40 iteration(s), not converged
 * (max-iterations)".
 */
export function fitEnding(info: {
  readonly iterations: number;
  readonly converged: boolean;
  readonly stopReason: string;
}): string {
  if (info.stopReason === "closed-form") return "closed form";
  return `${plural(info.iterations, "iteration")}, ${info.converged ? "converged" : `not converged (${info.stopReason})`}`;
}
