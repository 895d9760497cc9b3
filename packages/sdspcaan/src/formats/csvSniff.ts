/**
 * What the first lines of delimited text say about the rest: the delimiter (the one
 * that splits them alike) and whether the first row is a header (names above numbers,
 * or pandas' column numbers), decided before the rows are read as data.
 */
import { cellValue, type DecimalMark, isNumberCell } from "./csvCells.js";
import { isMissingSpelling } from "./labels.js";

/**
 * Picks the delimiter that splits the first lines into the same number (> 1) of
 * fields; when several do, the one giving the most fields ("1,5;2;1" is three
 * fields with decimal commas, not two). With decimal commas (`mark` ",") the comma
 * is inside the numbers, which split on it into more fields than the real delimiter
 * gives ("1,5;2,25" is two fields, not three): it is tried last, and only when the
 * lines hold quotes ('"1,5","2,25"', where the quotes keep the numbers whole).
 */
export function sniffDelimiter(lines: string[], mark: DecimalMark = "."): string {
  const candidates =
    mark === "."
      ? [",", "\t", ";"]
      : lines.some((l) => l.includes('"'))
        ? ["\t", ";", ","]
        : ["\t", ";"];
  let chosen: string | null = null;
  let most = 1;
  for (const d of candidates) {
    const counts = lines.map((l) => l.split(d).length);
    if (counts[0] > most && counts.every((c) => c === counts[0])) {
      chosen = d;
      most = counts[0];
    }
  }
  if (chosen !== null) return chosen;
  const ws = lines.map((l) => l.trim().split(/\s+/).length);
  if (ws[0] > 1 && ws.every((c) => c === ws[0])) return " ";
  // Ragged first lines (e.g. quoted fields holding delimiters): fall back to the commonest.
  let best = " ";
  let bestCount = 0;
  for (const d of candidates) {
    const c = lines.reduce((s, l) => s + l.split(d).length - 1, 0);
    if (c > bestCount) {
      best = d;
      bestCount = c;
    }
  }
  return best;
}

/** pandas' names for unnamed columns, 0, 1, 2, ..., after an empty cell above its index. */
function isColumnNumbers(row: readonly string[]): boolean {
  const offset = row[0] === "" ? 1 : 0;
  if (row.length < 3) return false;
  for (let j = offset; j < row.length; j++) if (row[j] !== String(j - offset)) return false;
  return true;
}

/**
 * True when the first row is a header: it is pandas' column numbers (0, 1, 2, ...,
 * at least three cells) above a row that is not; or it has a text cell (not a
 * number, not a missing-value spelling such as "NaN", "" or "?") above a number in
 * the second row, and any numbers in it are column numbers (the value minus the
 * position is the same for all). A first row of data with a stray text cell (or a
 * missing value) is therefore never dropped as a header; it is reported where it fails.
 */
export function detectHeader(
  rows: readonly string[][],
  mark: DecimalMark,
): "names" | "column-numbers" | null {
  if (rows.length < 2) return null;
  const [first, second] = rows;
  if (isColumnNumbers(first)) return isColumnNumbers(second) ? null : "column-numbers";
  const textOverNumber = first.some(
    (s, j) =>
      !isNumberCell(s, mark) && !isMissingSpelling(s) && isNumberCell(second[j] ?? "", mark),
  );
  if (!textOverNumber) return null;
  let offset: number | null = null;
  for (let j = 0; j < first.length; j++) {
    if (!isNumberCell(first[j], mark)) continue;
    const v = cellValue(first[j], mark);
    if (!Number.isInteger(v) || v < 0 || (offset !== null && v - j !== offset)) return null;
    offset = v - j;
  }
  return "names";
}

/**
 * The delimiter a cell of text suggests instead of the sniffed one: the cell is
 * numbers joined by it ('5;2' when ',' was taken, as in "1,5;2,25" read without
 * decimal commas), so it is a wrong guess rather than a column of text. null when
 * the cell is text of its own.
 */
export function delimiterInText(text: string, delimiter: string, mark: DecimalMark): string | null {
  for (const d of [";", "\t", ","]) {
    if (d === delimiter || (d === "," && mark === ",")) continue;
    const parts = text.split(d);
    if (parts.length > 1 && parts.every((p) => isNumberCell(p.trim(), mark))) return d;
  }
  return null;
}
