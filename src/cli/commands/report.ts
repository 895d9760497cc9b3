/**
 * `sdspcaan report --out DIR`: rebuilds table.md, table.csv, summary.json, statistics.md and the
 * figures of a results directory from its results.jsonl (e.g. after an
 * interrupted run, or with --compare-paper). It says how complete the run is: an
 * unfinished run's table marks the cells that miss planned fits.
 */
import type { Command } from "commander";
import { writeRunReports } from "../../experiment/reportFiles.node.js";
import { note, oneLineErrors, out } from "./shared.js";

interface ReportFlags {
  out: string;
  comparePaper?: boolean;
  figures?: boolean;
  baselineMethod?: string;
}

export function registerReportCommand(program: Command): void {
  const cmd = program
    .command("report")
    .description(
      "Rebuild table.md, table.csv, summary.json, statistics.md and the figures of a results directory from its results.jsonl, and print the table. An unfinished run is reported as such: a completeness line, and † on the cells that miss planned fits.",
    )
    .requiredOption("--out <dir>", "the results directory of an experiment")
    .option("--compare-paper", "show the paper's Table IV values and our differences")
    .option("--no-figures", "rebuild the tables only")
    .option(
      "--baseline-method <name>",
      "the method the others are tested against per data set in statistics.md (default sdspcaan when it ran, else the best Average)",
    )
    .action(async (flags: ReportFlags) => {
      const report = await writeRunReports(flags.out, {
        comparePaper: flags.comparePaper === true,
        figures: flags.figures !== false,
        ...(flags.baselineMethod !== undefined ? { baselineMethod: flags.baselineMethod } : {}),
      });
      for (const n of report.notes) note(n);
      for (const w of report.warnings) note(`warning: no figure for ${w}`);
      out(report.tableMd);
      // On standard error with the other notes, so standard output stays table.md.
      note(report.statisticsSummary);
      note(`Wrote ${report.files.join(", ")}.`);
    });
  oneLineErrors(cmd);
}
