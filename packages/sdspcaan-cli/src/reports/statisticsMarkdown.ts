/**
 * The statistics of a run in words: statistics.md (the per-data-set tests, the
 * Friedman section with its average ranks and the critical difference) and the few
 * lines `report` prints.
 */
import { displayNameOf } from "../protocol/grids.js";
import { WILCOXON_EXACT_AUTO_LIMIT } from "../stats/rankTests.js";
import { markdownText } from "./markdown.js";
import { formatPValue, type MethodStatistics, type PairedComparison } from "./statistics.js";

const title = (method: string): string => displayNameOf(method);

/** A test statistic as shown: two decimals, one from 100 on. */
export function formatStatistic(x: number): string {
  return Math.abs(x) >= 100 ? x.toFixed(1) : x.toFixed(2);
}

/** A comparison as statistics.md shows it: the p-value, in bold with the direction when p < alpha. */
export function comparisonCell(c: PairedComparison | null | undefined): string {
  if (c === null || c === undefined) return "--";
  if (c.test === null) return `n/a (${c.pairedRepeats} repeat${c.pairedRepeats === 1 ? "" : "s"})`;
  if (c.identical) return "1 (identical)";
  const p = formatPValue(c.test.pValue);
  return c.significant ? `**${p}** (${c.direction})` : p;
}

function pairedRepeatsText(row: Readonly<Record<string, PairedComparison | null>>): string {
  const ns = [
    ...new Set(
      Object.values(row)
        .filter((c): c is PairedComparison => c !== null)
        .map((c) => c.pairedRepeats),
    ),
  ].sort((a, b) => a - b);
  if (ns.length === 0) return "--";
  return ns.length === 1 ? String(ns[0]) : `${ns[0]}-${ns[ns.length - 1]}`;
}

/** Display names as statistics.md writes them (markdown.ts). */
const mdTitle = (method: string): string => markdownText(displayNameOf(method));

const listTitles = (methods: readonly string[]) => methods.map(mdTitle).join(", ");

/** `statistics.md`: the per-data-set tests, the ranks, Friedman, Nemenyi, and how to read them. */
export function statisticsMarkdown(stats: MethodStatistics, figure?: string): string {
  const { datasets } = stats;
  const lines: string[] = ["# Which differences are significant", ""];
  lines.push(
    `Tests on the test BCA of the fit selected in each repeat (the numbers behind table.md), at significance level α = ${stats.alpha}.`,
    "",
  );
  const { baseline, methods } = stats;
  if (baseline !== null) {
    const ref = mdTitle(baseline);
    const why =
      stats.baselineChosenBy === "option"
        ? "chosen with --baseline-method"
        : stats.baselineChosenBy === "default"
          ? "the paper's method; another can be chosen with --baseline-method"
          : "SDSPCAAN is not in this report; the method with the best Average row, another can be chosen with --baseline-method";
    lines.push(`## Per data set: Wilcoxon signed-rank test against ${ref}`, "");
    lines.push(
      `Two-sided p-values of the Wilcoxon signed-rank test of each method against ${ref} (${why}) on the per-repeat test BCA, paired by repeat. ` +
        `**Bold**: p < ${stats.alpha}, followed by whether the method is better or worse than ${ref}. ` +
        `Repeats where both have the same BCA are dropped (SciPy's zero_method="wilcox"); "identical": the same BCA on every repeat. ` +
        `The p-value comes from the exact distribution of the signed-rank sum (conditional on the observed ranks when some differences tie) up to ${WILCOXON_EXACT_AUTO_LIMIT} differing repeats, and from the normal approximation with tie and continuity corrections above. ` +
        `"--": a method has no result on the data set. Each data set is a separate test; with many data sets and methods, some p < ${stats.alpha} are expected by chance.`,
      "",
    );
    const others = methods.filter((m) => m !== baseline);
    const columns = methods.map((m) => (m === baseline ? `${mdTitle(m)} (reference)` : mdTitle(m)));
    lines.push(`| Data set | Repeats | ${columns.join(" | ")} |`);
    lines.push(`|---|---|${methods.map(() => "---").join("|")}|`);
    for (const d of datasets) {
      const row = stats.wilcoxon[d] ?? {};
      const cellsText = methods.map((m) => (m === baseline ? "" : comparisonCell(row[m])));
      lines.push(`| ${markdownText(d)} | ${pairedRepeatsText(row)} | ${cellsText.join(" | ")} |`);
    }
    const friedman = stats.friedman;
    if (friedman !== null) {
      const ranks = methods.map((m) => friedman.averageRanks[m].toFixed(2));
      // The ranks come from the data sets where every method has results: when that is
      // not every row above, the row names the ones it is computed from.
      const over =
        friedman.datasets.length === datasets.length
          ? ""
          : ` (${friedman.datasets.map(markdownText).join(", ")} only)`;
      lines.push(`| Average rank${over} | | ${ranks.join(" | ")} |`);
    }
    lines.push("");
    if (others.length > 0 && friedman !== null) {
      lines.push(
        `Average rank: the mean over the ${friedman.datasets.length} data set${friedman.datasets.length === 1 ? "" : "s"} used below of each method's rank by mean test BCA (1 = best).`,
        "",
      );
    }
  }
  lines.push("## Across data sets: average ranks, Friedman test, Nemenyi critical difference", "");
  const friedman = stats.friedman;
  if (friedman === null) {
    lines.push("Not available (see the notes below).", "");
  } else {
    const N = friedman.datasets.length;
    const k = methods.length;
    lines.push(
      `On each data set the methods are ranked by their mean test BCA (1 = best; methods with equal means share the average of their ranks). ` +
        `Data sets used (every method has results there): ${friedman.datasets.map(markdownText).join(", ")} (N = ${N}, k = ${k} methods).` +
        (stats.leftOut.length > 0
          ? ` Left out: ${stats.leftOut.map((l) => `${markdownText(l.dataset)} (no ${listTitles(l.missing)})`).join(", ")}.`
          : ""),
      "",
    );
    const order = [...methods].sort(
      (a, b) =>
        friedman.averageRanks[a] - friedman.averageRanks[b] ||
        methods.indexOf(a) - methods.indexOf(b),
    );
    lines.push(`| Data set | ${order.map(mdTitle).join(" | ")} |`);
    lines.push(`|---|${order.map(() => "---").join("|")}|`);
    for (const d of friedman.datasets) {
      lines.push(`| ${markdownText(d)} | ${order.map((m) => friedman.ranks[d][m]).join(" | ")} |`);
    }
    lines.push(
      `| Average rank | ${order.map((m) => `**${friedman.averageRanks[m].toFixed(2)}**`).join(" | ")} |`,
    );
    lines.push("");
    const t = friedman.test;
    if (t !== null) {
      const id = t.imanDavenport;
      lines.push(
        `- Friedman test (are all methods equally good?): χ²_F = ${formatStatistic(t.chiSquare)} with ${t.df} df${t.tieCorrection < 1 ? " (corrected for tied ranks)" : ""}, p = ${formatPValue(t.pValue)} (chi-square approximation).`,
        id.statistic === null
          ? `- Iman-Davenport variant: F_F = ∞ with ${id.df1} and ${id.df2} df (every data set ranks the methods the same way): the F approximation gives no p-value there.`
          : `- Iman-Davenport variant: F_F = ${formatStatistic(id.statistic)} with ${id.df1} and ${id.df2} df, p = ${formatPValue(id.pValue as number)} (F approximation).`,
      );
      if (t.exact !== null) {
        lines.push(
          t.exact.by === "enumeration"
            ? `- Exact p-value (all ${k}!^${N} orders of the ranks within the data sets equally likely; the same for χ²_F and F_F, which order the outcomes alike): p = ${formatPValue(t.exact.pValue)}.`
            : `- Exact p-value: only the ${k}! rankings repeated on every data set reach this χ²_F, so p = ${k}!^(1-${N}) = ${formatPValue(t.exact.pValue)}.`,
        );
      }
      const by =
        t.decision.by === "exact"
          ? "exact p"
          : t.decision.by === "iman-davenport"
            ? "Iman-Davenport"
            : "Friedman χ², since F_F is infinite";
      lines.push(
        t.decision.rejected
          ? `- The hypothesis that all methods perform equally is rejected at α = ${stats.alpha} (${by}, p = ${formatPValue(t.decision.pValue)}).`
          : `- The hypothesis that all methods perform equally is not rejected at α = ${stats.alpha} (${by}, p = ${formatPValue(t.decision.pValue)}): the differences in average rank may be chance, and the Nemenyi groups below are shown for completeness only (a post-hoc test is normally run only after a rejection).`,
      );
      const nem = friedman.nemenyi;
      if (nem !== null) {
        const formula =
          nem.q === null
            ? ""
            : `q·√(k(k+1)/(6N)) = ${nem.q.toFixed(3)} · √(${k}·${k + 1}/(6·${N})) = ${(nem.asymptoticCriticalDifference as number).toFixed(2)}`;
        if (nem.method === "asymptotic") {
          lines.push(
            `- Nemenyi critical difference (α = ${stats.alpha}, k = ${k}, N = ${N}): CD = ${formula}. ` +
              "Two methods differ significantly when their average ranks are at least CD apart.",
          );
        } else if (nem.criticalDifference !== null) {
          lines.push(
            `- Nemenyi critical difference, exact (α = ${stats.alpha}, k = ${k}, N = ${N}): CD = ${nem.criticalDifference.toFixed(2)}, the smallest range of average ranks that random orders of the ranks within the data sets reach with probability at most α (P = ${formatPValue(nem.level as number)}). ` +
              "Two methods differ significantly when their average ranks are at least CD apart." +
              (formula === ""
                ? ""
                : ` (The asymptotic formula, ${formula}, does not hold for so few data sets or methods.)`),
          );
        } else {
          lines.push(
            `- Nemenyi critical difference, exact (α = ${stats.alpha}, k = ${k}, N = ${N}): none. Even the largest possible difference in average rank arises by chance with probability above α, so with ${N} data sets and ${k} methods no pair of methods can differ significantly.` +
              (formula === ""
                ? ""
                : ` (The asymptotic formula, ${formula}, does not hold for so few data sets or methods.)`),
          );
        }
        const inGroup = new Set(nem.groups.flat());
        const groupsText =
          nem.groups.length === 0
            ? "none: every pair of methods differs significantly"
            : nem.groups
                .map(
                  (g) =>
                    `{${g.map((m) => `${mdTitle(m)} ${friedman.averageRanks[m].toFixed(2)}`).join(", ")}}`,
                )
                .join("; ");
        lines.push(
          `- Groups with no significant difference inside${nem.criticalDifference === null ? "" : " (average ranks less than CD apart)"}: ${groupsText}.`,
        );
        const alone = order.filter((m) => !inGroup.has(m));
        if (alone.length > 0 && nem.groups.length > 0) {
          lines.push(`- Significantly different from every other method: ${listTitles(alone)}.`);
        }
        if (figure !== undefined) {
          lines.push(
            `- Critical-difference diagram: ${figure} (average ranks on the axis, best on the left; a thick bar joins methods that are not significantly different; ${nem.criticalDifference === null ? "no CD bar, since no difference can be significant" : "the bar marked CD shows the critical difference"}).`,
          );
        }
      }
      lines.push("");
    }
  }
  if (stats.notes.length > 0) {
    lines.push("## Notes", "");
    for (const n of stats.notes) lines.push(`- ${markdownText(n)}`);
    lines.push("");
  }
  return `${lines.join("\n")}`;
}

/** A few lines for the console: what is significant, the ranks, Friedman and CD. */
export function statisticsConsoleSummary(stats: MethodStatistics): string {
  const { baseline } = stats;
  if (baseline === null) return `Statistics: ${stats.notes[0] ?? "no test was run."}`;
  const ref = title(baseline);
  const lines = [`Statistics (statistics.md), per data set against ${ref}:`];
  const counts = new Map<string, { better: number; worse: number; tested: number }>();
  for (const row of Object.values(stats.wilcoxon)) {
    for (const [m, c] of Object.entries(row)) {
      if (c === null || c.test === null) continue;
      const entry = counts.get(m) ?? { better: 0, worse: 0, tested: 0 };
      entry.tested++;
      if (c.significant && c.direction === "better") entry.better++;
      if (c.significant && c.direction === "worse") entry.worse++;
      counts.set(m, entry);
    }
  }
  if (counts.size === 0) {
    lines.push("  Wilcoxon signed-rank over repeats: not run (see statistics.md).");
  } else {
    const parts = stats.methods
      .filter((m) => counts.has(m))
      .map((m) => {
        const c = counts.get(m) as { better: number; worse: number; tested: number };
        return `${title(m)} worse on ${c.worse}, better on ${c.better} of ${c.tested}`;
      });
    lines.push(`  Wilcoxon signed-rank over repeats, p < ${stats.alpha}: ${parts.join("; ")}.`);
  }
  const f = stats.friedman;
  if (f !== null) {
    const order = [...stats.methods].sort((a, b) => f.averageRanks[a] - f.averageRanks[b]);
    lines.push(
      `  Average ranks over ${f.datasets.length} data set${f.datasets.length === 1 ? "" : "s"}: ${order.map((m) => `${title(m)} ${f.averageRanks[m].toFixed(2)}`).join(", ")}.`,
    );
    if (f.test !== null) {
      const id = f.test.imanDavenport;
      const nem = f.nemenyi;
      lines.push(
        `  Friedman χ² = ${formatStatistic(f.test.chiSquare)}, p = ${formatPValue(f.test.pValue)}; Iman-Davenport F = ${id.statistic === null ? "∞, no p-value" : `${formatStatistic(id.statistic)}, p = ${formatPValue(id.pValue as number)}`}` +
          (f.test.exact ? `; exact p = ${formatPValue(f.test.exact.pValue)}` : "") +
          `; ${f.test.decision.rejected ? "rejected" : "not rejected"} at α = ${stats.alpha}` +
          (nem === null
            ? "."
            : nem.criticalDifference === null
              ? "; Nemenyi (exact): no difference can be significant."
              : `; Nemenyi CD${nem.method === "exact" ? " (exact)" : ""} = ${nem.criticalDifference.toFixed(2)}.`),
      );
    }
  }
  if (f === null || f.test === null) lines.push("  Friedman test: not run (see statistics.md).");
  return lines.join("\n");
}
