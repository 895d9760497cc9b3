/**
 * What the MAT v5 and v7.3 readers share about MATLAB's classes: the numeric class
 * names, the rows of a char array, and the texts of a cell array.
 */

/**
 * MATLAB's numeric class names, in mxClassID order (double = 6 .. uint64 = 15): MAT
 * v5 files name classes by that number, MAT v7.3 files by the name in the
 * MATLAB_class attribute. Both readers take these names as numeric data.
 */
export const NUMERIC_CLASS_NAMES = [
  "double",
  "single",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
] as const;

/**
 * The rows of a char array of `rows` rows whose character codes are stored column-major
 * (trailing blanks kept, as MATLAB pads them); `char` makes a code text (v5 stores code
 * points, v7.3 UTF-16 code units).
 */
export function charArrayRows(
  codes: ArrayLike<number>,
  rows: number,
  char: (code: number) => string,
): string[] {
  if (rows === 0) return [];
  const cols = codes.length / rows;
  const out: string[] = [];
  for (let i = 0; i < rows; i++) {
    let s = "";
    for (let j = 0; j < cols; j++) s += char(codes[i + rows * j]);
    out.push(s);
  }
  return out;
}

/** A char element's text in a cell: its one row ("" for an empty char), none for more rows. */
export function singleRowText(rows: readonly string[]): string | null {
  return rows.length > 1 ? null : (rows[0] ?? "");
}

/**
 * The texts of a cell array (a cellstr, such as label names saved by MATLAB) from what
 * `textOf` says of each element: its text; null when it is none (a matrix, a nested
 * cell), which makes the whole cell none; or undefined for MATLAB's empty array `[]`
 * (a 0 x 0 double, what `cell(n, 1)` holds where nothing was put), which reads as "".
 * A cell of nothing but `[]` has no texts: nothing in it says it holds strings.
 */
export function cellTexts<T>(
  cells: Iterable<T>,
  textOf: (cell: T) => string | null | undefined,
): string[] | null {
  const out: string[] = [];
  let empties = 0;
  for (const cell of cells) {
    const text = textOf(cell);
    if (text === null) return null;
    if (text === undefined) empties++;
    out.push(text ?? "");
  }
  return out.length > 0 && empties === out.length ? null : out;
}
