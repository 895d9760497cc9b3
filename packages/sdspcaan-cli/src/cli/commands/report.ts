/**
 * `sdspcaan report --out DIR`: rebuilds table.md, table.csv, summary.json, statistics.md and the
 * figures of a results directory from its results.jsonl (e.g. after an
 * interrupted run, or with --compare-paper). It says how complete the run is: an
 * unfinished run's table marks the cells that miss planned fits. `--methods` and
 * `--datasets` report part of the run, into the folder `--to` names.
 */
import type { Command } from "commander";
import { checkOutputDirectory } from "../outputs.js";
import { oneLineErrors } from "./commandErrors.js";
import { parseList } from "./flags.js";
import { note, out } from "./output.js";
import { addPluginOption } from "./pluginFlag.js";

interface ReportFlags {
  out: string;
  comparePaper?: boolean;
  figures?: boolean;
  baselineMethod?: string;
  methods?: string;
  datasets?: string;
  to?: string;
}

export function registerReportCommand(program: Command): void {
  const cmd = program
    .command("report")
    .description(
      "Rebuild table.md, table.csv, summary.json, statistics.md and the figures of a results directory from its results.jsonl, and print the table. An unfinished run is reported as such: a completeness line, and † on the cells that miss planned fits. With --methods or --datasets only those enter the report (tables, statistics, figures, completeness), which goes to the folder --to names: a report of part of the run never replaces the run's own report unless --to names the results directory itself.",
    )
    .requiredOption("--out <dir>", "the results directory of an experiment")
    .option("--compare-paper", "show the paper's Table IV values and our differences")
    .option("--no-figures", "rebuild the tables only")
    .option(
      "--baseline-method <name>",
      "the method the others are tested against per data set in statistics.md (default sdspcaan when it ran, else the best Average)",
    )
    .option(
      "--methods <list>",
      "report only these methods (comma-separated, as experiment --methods takes them); needs --to",
    )
    .option(
      "--datasets <list>",
      "report only these data sets (comma-separated, names as in settings.json); needs --to",
    )
    .option(
      "--to <dir>",
      "write the report files into <dir> (created when missing) instead of the results directory",
    )
    .action(async (flags: ReportFlags) => {
      if (flags.to !== undefined) checkOutputDirectory("--to", flags.to);
      const methods = parseList(flags.methods);
      const datasets = parseList(flags.datasets);
      // Loaded when the command runs: the other commands start without the renderer.
      const { writeRunReports } = await import("../../reports/reportFiles.node.js");
      const report = await writeRunReports(flags.out, {
        comparePaper: flags.comparePaper === true,
        figures: flags.figures !== false,
        ...(flags.baselineMethod !== undefined ? { baselineMethod: flags.baselineMethod } : {}),
        ...(methods !== undefined ? { methods } : {}),
        ...(datasets !== undefined ? { datasets } : {}),
        ...(flags.to !== undefined ? { to: flags.to } : {}),
      });
      for (const n of report.notes) note(`note: ${n}`);
      for (const w of report.warnings) note(`warning: no figure for ${w}`);
      out(report.tableMd);
      // On standard error with the other notes, so standard output stays table.md.
      note(report.statisticsSummary);
      note(`Wrote ${report.files.join(", ")}.`);
    });
  addPluginOption(cmd);
  oneLineErrors(cmd);
}
