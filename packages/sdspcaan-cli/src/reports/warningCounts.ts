/**
 * The fits' warnings in a report: per (dataset, method), how many of the selected fits
 * (one per repeat, the ones the table's numbers come from) gave each warning code
 * (fitInfo.warnings, stored on each results line), and the lines under table.md that
 * say so ("SDSPCAAN on Yale: 10 of 10 selected fits stopped at the lambda cap").
 *
 * Lines written before warnings had codes hold their texts alone (or nothing): their
 * codes are read from the texts' words (`warningFromText`) and a stop at maxIter from
 * the line's stopReason, as the warnings of that time said everything else; whether
 * lambda cycled was never recorded then, and is reported as unknown.
 */
import type { FitWarningCode } from "sdspcaan";
import { FIT_WARNING_CODES, methodDescriptors, warningFromText } from "sdspcaan/methods";
import { displayNameOf } from "../protocol/grids.js";
import type { FitRecord } from "../protocol/records.js";

/** How many of a cell's selected fits gave each warning. */
export interface WarningCounts {
  /** Fits counted (the selected fit of each repeat). */
  readonly fits: number;
  /** Fits with each code met, once per fit however often it warned. */
  readonly byCode: Readonly<Partial<Record<FitWarningCode, number>>>;
  /** Fits that stopped at the lambda cap (stopReason "lambda-cap"). */
  readonly stoppedAtCap: number;
  /**
   * Fits that stopped at maxIter, of a method with lambda, whose lines were written
   * before warnings had codes: whether lambda cycled in them is not known.
   */
  readonly cycleUnknown: number;
}

/** The codes of a results line's warnings, and whether the line recorded codes itself. */
export function recordWarningCodes(r: FitRecord): {
  readonly codes: ReadonlySet<FitWarningCode>;
  readonly coded: boolean;
} {
  const list = r.warnings ?? [];
  const coded = r.warnings !== undefined && list.every((w) => typeof w !== "string");
  const codes = new Set<FitWarningCode>(
    list.map((w) => (typeof w === "string" ? warningFromText(w).code : w.code)),
  );
  // The warning every fit now gives at maxIter; older lines say it by their stopReason.
  if (!coded && r.stopReason === "max-iterations") codes.add("max-iterations");
  return { codes, coded };
}

/** Whether the method has the rank control's lambda (a lambdaCap option); unknown methods may. */
function hasLambda(method: string): boolean {
  const d = methodDescriptors().find((x) => x.name === method);
  return d === undefined || "lambdaCap" in d.options;
}

/** Counts the warnings of a cell's selected fits (byCode in FIT_WARNING_CODES's order). */
export function countWarnings(records: readonly FitRecord[]): WarningCounts {
  const counts = new Map<FitWarningCode, number>();
  let stoppedAtCap = 0;
  let cycleUnknown = 0;
  for (const r of records) {
    const { codes, coded } = recordWarningCodes(r);
    for (const code of codes) counts.set(code, (counts.get(code) ?? 0) + 1);
    if (r.stopReason === "lambda-cap") stoppedAtCap++;
    if (!coded && codes.has("max-iterations") && hasLambda(r.method)) cycleUnknown++;
  }
  const byCode: Partial<Record<FitWarningCode, number>> = {};
  for (const code of FIT_WARNING_CODES) {
    const n = counts.get(code);
    if (n !== undefined) byCode[code] = n;
  }
  return { fits: records.length, byCode, stoppedAtCap, cycleUnknown };
}

/** What a fit with each code did, as the lines under the table say it. */
const PHRASES: Readonly<Record<FitWarningCode, string>> = {
  "max-iterations": "stopped at maxIter without converging",
  "lambda-cycle": "had lambda cycling (the graph flipping around c components)",
  "lambda-cap": "reached the lambda cap",
  "eigensolver-tolerance": "had an LOBPCG solve short of its tolerance",
  "small-classes": "had a class with fewer than m + 1 training samples",
  "unit-scale": "ran on data far from standardised",
  "k-above-rank": "asked for k above the rank of the training data",
  "k-below-classes": "had k below c - 1",
  "between-class-rank": "had a between-class scatter of rank below k",
  "pca-dimensions-above-rank": "asked for more PCA dimensions than the rank of the training data",
  "tied-neighbours": "had samples with every neighbour at distance 0",
  "isolated-samples": "had samples of zero degree in the graph",
  other: "gave another warning",
};

/** One cell's line, or null when none of its selected fits warned. */
function cellLine(dataset: string, method: string, c: WarningCounts): string | null {
  const parts: string[] = [];
  for (const code of FIT_WARNING_CODES) {
    const count = c.byCode[code] ?? 0;
    if (count === 0) continue;
    let phrase = PHRASES[code];
    if (code === "lambda-cap") {
      phrase =
        c.stoppedAtCap === count
          ? "stopped at the lambda cap"
          : `reached the lambda cap (${c.stoppedAtCap} of them stopped there)`;
    }
    if (code === "max-iterations" && c.cycleUnknown > 0) {
      phrase += ` (whether lambda cycled is unknown for ${c.cycleUnknown === count ? "them" : `${c.cycleUnknown} of them`}: their results lines predate warning codes)`;
    }
    parts.push(`${count} of ${c.fits} ${phrase}`);
  }
  if (parts.length === 0) return null;
  const [first, ...rest] = parts;
  const head = first.replace(/^(\d+ of \d+) /, "$1 selected fits ");
  return `- ${displayNameOf(method)} on ${dataset}: ${[head, ...rest].join("; ")}.`;
}

/**
 * What the lines are made from: a report's summary (summary.ts's ResultsSummary, whose
 * cells hold these counts; named by shape so that the two files do not import each other).
 */
export interface WarnedCells {
  readonly datasets: readonly string[];
  readonly methods: readonly string[];
  readonly cells: Readonly<
    Record<string, Readonly<Record<string, { readonly warnings: WarningCounts } | undefined>>>
  >;
}

/**
 * The lines under table.md: one per cell whose selected fits warned, or none at all
 * when no selected fit did.
 */
export function warningLines(summary: WarnedCells): string[] {
  const lines: string[] = [];
  for (const d of summary.datasets) {
    for (const m of summary.methods) {
      const counts = summary.cells[d][m]?.warnings;
      if (counts === undefined) continue;
      const line = cellLine(d, m, counts);
      if (line !== null) lines.push(line);
    }
  }
  if (lines.length === 0) return [];
  return [
    "Warnings of the selected fits (the fit of each repeat that the table's numbers come from; `sdspcaan evaluate` with the same split and options prints them in full):",
    "",
    ...lines,
  ];
}
