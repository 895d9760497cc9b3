/**
 * `sdspcaan compress --out DIR`: compresses the results files of a results
 * directory into results.jsonl.gz (and each shard's into its .gz), after the lines
 * a .gz there already holds, and removes the plain files. `report`, `plot` and a
 * resumed `experiment` read the directory as before (runner/compress.node.ts).
 */
import { basename } from "node:path";
import type { Command } from "commander";
import { compressRunResults } from "../../runner/compress.node.js";
import { oneLineErrors } from "./commandErrors.js";
import { note, out } from "./output.js";

/** "9.2 MB", "310 kB", "812 bytes". */
function size(bytes: number): string {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(0)} kB`;
  return `${bytes} bytes`;
}

export function registerCompressCommand(program: Command): void {
  const cmd = program
    .command("compress")
    .description(
      "Compress the results files of a results directory: results.jsonl into results.jsonl.gz (after the lines a results.jsonl.gz there already holds), and each shard's results.shard-I-of-N.jsonl into its .gz; the plain files are removed once the .gz reads back. report, plot and a resumed experiment read the directory as before. Refuses while a run writes the directory, and when a line is bad (experiment --repair first).",
    )
    .requiredOption("--out <dir>", "the results directory of an experiment")
    .action((flags: { out: string }) => {
      const result = compressRunResults(flags.out);
      for (const n of result.notes) note(`note: ${n}`);
      for (const f of result.files) {
        const merged = f.linesBefore > 0 ? ` after its ${f.linesBefore} lines` : "";
        out(
          `Compressed ${f.plain} (${f.linesAdded} line${f.linesAdded === 1 ? "" : "s"}) into ${basename(f.compressed)}${merged}: ${size(f.bytesBefore)} -> ${size(f.bytesAfter)}.`,
        );
      }
    });
  oneLineErrors(cmd);
}
