/**
 * `sdspcaan report --out DIR`: rebuilds table.md, table.csv, summary.json, statistics.md and the
 * figures of a results directory from its results.jsonl (e.g. after an
 * interrupted run, or with --compare-paper). It says how complete the run is: an
 * unfinished run's table marks the cells that miss planned fits. `--methods` and
 * `--datasets` report part of the run, into the folder `--to` names.
 */
import type { Command } from "commander";
import { ValidationError } from "sdspcaan";
import { checkOutputDirectory } from "../outputs.js";
import { inFlagWords, oneLineErrors } from "./commandErrors.js";
import { type ListValue, parseList } from "./flags.js";
import { checkRunFolder } from "./folders.js";
import { note, out } from "./output.js";
import { addPluginOption } from "./pluginFlag.js";

/** The options of writeRunReports that report's flags give. */
const REPORT_FLAGS = {
  methods: "--methods",
  datasets: "--datasets",
  to: "--to",
  baselineMethod: "--baseline-method",
} as const;

interface ReportFlags {
  out: string;
  comparePaper?: boolean;
  figures?: boolean;
  baselineMethod?: string;
  methods?: ListValue;
  datasets?: ListValue;
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
      "--methods <names...>",
      "report only these methods (separated by commas or spaces, as experiment --methods takes them); needs --to",
    )
    .option(
      "--datasets <names...>",
      "report only these data sets (separated by commas or spaces, names as in settings.json, any case); needs --to",
    )
    .option(
      "--to <dir>",
      "write the report files into <dir> (created when missing) instead of the results directory",
    )
    .action(async (flags: ReportFlags) => {
      checkRunFolder("--out", flags.out);
      const methods = parseList(flags.methods);
      const datasets = parseList(flags.datasets);
      if ((methods !== undefined || datasets !== undefined) && flags.to === undefined) {
        throw new ValidationError(
          "to",
          `A report of some methods or data sets (--methods / --datasets) needs --to, the folder it goes to, so that it does not replace the report of the whole run in ${flags.out}; give --to ${flags.out} to replace that report on purpose.`,
        );
      }
      if (flags.to !== undefined) checkOutputDirectory("--to", flags.to);
      // Loaded when the command runs: the other commands start without the renderer.
      const { writeRunReports } = await import("../../reports/reportFiles.node.js");
      const report = await writeRunReports(flags.out, {
        comparePaper: flags.comparePaper === true,
        figures: flags.figures !== false,
        ...(flags.baselineMethod !== undefined ? { baselineMethod: flags.baselineMethod } : {}),
        ...(methods !== undefined ? { methods } : {}),
        ...(datasets !== undefined ? { datasets } : {}),
        ...(flags.to !== undefined ? { to: flags.to } : {}),
      }).catch((err: unknown) => {
        throw inFlagWords(err, REPORT_FLAGS);
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
