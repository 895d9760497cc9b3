/**
 * The flags that say how a CSV/TSV file is read (--header, --drop-columns,
 * --decimal-comma) and the words for what was decided, shared by every command that
 * reads data and by `datasets info`.
 */
import type { Command } from "commander";
import { ValidationError } from "sdspcaan";

/** A comma-separated list ("a,b, c"), without empty items. */
function parseList(value: string): string[] {
  return value
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** `--header`: yes, no or auto (the default, which detects it). */
export function parseHeaderFlag(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === "yes" || v === "no") return v === "yes";
  if (v === "auto") return undefined;
  throw new ValidationError(
    "header",
    `The '--header' option must be yes, no or auto. Got ${JSON.stringify(value)} instead.`,
  );
}

/** `--drop-columns`: indices from 0 (negative from the end) and header names, comma-separated. */
export function parseDropColumns(value: string | undefined): (number | string)[] | undefined {
  if (value === undefined) return undefined;
  const items = parseList(value);
  if (items.length === 0) {
    throw new ValidationError(
      "drop-columns",
      "The '--drop-columns' option needs at least one column (an index from 0 or a header name).",
    );
  }
  return items.map((c) => (/^-?\d+$/.test(c) ? Number(c) : c));
}

/** A header for a one-line message: its first names, then how many there are. */
export function headerPreview(header: readonly string[]): string {
  const shown = header
    .slice(0, 6)
    .map((h) => `'${h}'`)
    .join(", ");
  return header.length > 6 ? `${shown}, ... (${header.length} names)` : shown;
}

/** "columns 0 ('id'), 1 (counting from 0)" for a list of columns of a file. */
export function columnList(cols: readonly number[], header?: readonly string[]): string {
  const named = cols.map((j) => (header?.[j] ? `${j} ('${header[j]}')` : `${j}`));
  return `column${cols.length === 1 ? "" : "s"} ${named.join(", ")} (counting from 0)`;
}

/**
 * The note for a first row of numbers taken for pandas' column names: it could also be
 * data, so say so and how to undo it (a row of names above numbers is a header beyond
 * doubt and gets none).
 */
export function columnNumbersNote(path: string, header: readonly string[]): string {
  return `note: ${path}: its first row (${headerPreview(header)}) is read as a header of column numbers, as pandas writes them; --header no reads it as data.`;
}

/** Adds --header, --drop-columns and --decimal-comma, how a CSV/TSV file is read. */
export function addDelimitedOptions(cmd: Command): Command {
  return cmd
    .option(
      "--header <yes|no|auto>",
      "whether the first row of a CSV/TSV is a header (default auto: names above numbers are one; so is a row of pandas' column numbers 0, 1, 2, ..., with a note on standard error)",
    )
    .option(
      "--drop-columns <cols>",
      "CSV/TSV columns to leave out of the features, e.g. identifiers: indices from 0 or header names, comma-separated (a text column is refused unless named here)",
    )
    .option("--decimal-comma", "CSV/TSV numbers are written with a decimal comma (1,5)");
}
