/**
 * Feature names: a model fitted on named columns (a CSV header, or names the caller
 * gives) keeps them, and data given later with names is matched to them by name, so
 * a file whose columns come in another order is reordered instead of projected
 * wrongly, and a file with other columns is refused naming them. Data without names
 * is taken positionally.
 */
import { ValidationError } from "../core/errors.js";
import type { TransformWarning } from "./fitReport.js";

/** How many names a message lists before it says "and N more". */
const LISTED = 8;

function listed(names: readonly string[]): string {
  const shown = names.slice(0, LISTED).map((n) => JSON.stringify(n));
  const more = names.length > LISTED ? ` and ${names.length - LISTED} more` : "";
  return `${shown.join(", ")}${more}`;
}

/**
 * Checks names for `d` columns: an array of `d` distinct non-empty strings (a name
 * that repeats cannot say which column it is). Returns a copy.
 */
export function checkFeatureNames(names: unknown, d: number, argument: string): string[] {
  if (!Array.isArray(names)) {
    throw new ValidationError(
      argument,
      `${argument} must be an array of ${d} column names (strings). Got ${names === null ? "null" : typeof names}.`,
    );
  }
  if (names.length !== d) {
    throw new ValidationError(
      argument,
      `${argument} has ${names.length} names, but the data has ${d} feature columns; give one name per column.`,
    );
  }
  const seen = new Set<string>();
  for (let j = 0; j < names.length; j++) {
    const name: unknown = names[j];
    if (typeof name !== "string" || name === "") {
      throw new ValidationError(
        argument,
        `${argument}[${j}] must be a non-empty string. Got ${JSON.stringify(name) ?? String(name)}.`,
      );
    }
    if (seen.has(name)) {
      throw new ValidationError(
        argument,
        `${argument} names the column ${JSON.stringify(name)} twice; the names must tell the columns apart.`,
      );
    }
    seen.add(name);
  }
  return [...(names as string[])];
}

/**
 * Where each fitted feature is among the given columns: order[j] is the column of
 * `given` named `expected[j]`; null when they are already in the fitted order. The
 * counts are checked by the caller first. Throws naming the missing and unexpected
 * columns when the two sets of names differ.
 */
export function columnOrder(
  expected: readonly string[],
  given: readonly string[],
  owner: string,
): Int32Array | null {
  const where = new Map<string, number>();
  given.forEach((name, j) => {
    where.set(name, j);
  });
  const missing = expected.filter((name) => !where.has(name));
  const known = new Set(expected);
  const unexpected = given.filter((name) => !known.has(name));
  if (missing.length === 0 && unexpected.length > 0) {
    throw new ValidationError(
      "featureNames",
      `The columns of X do not match the features ${owner} was fitted on: unexpected ${listed(unexpected)}${extraColumnsAdvice(unexpected, expected.length)}`,
    );
  }
  if (missing.length > 0 || unexpected.length > 0) {
    const parts = [];
    if (missing.length > 0) parts.push(`missing ${listed(missing)}`);
    if (unexpected.length > 0) parts.push(`unexpected ${listed(unexpected)}`);
    throw new ValidationError(
      "featureNames",
      `The columns of X do not match the features ${owner} was fitted on: ${parts.join("; ")}. Give the same columns (in any order), or no names to match them by position.`,
    );
  }
  const order = Int32Array.from(expected, (name) => where.get(name) as number);
  return order.every((c, j) => c === j) ? null : order;
}

/**
 * What to do with columns beside every fitted one: most often the file's label column
 * read as a feature (new data read without labels takes every column), so the reader's
 * option that names it comes first, with the command's flag beside it.
 */
function extraColumnsAdvice(extra: readonly string[], fitted: number): string {
  if (extra.length === 1) {
    const name = JSON.stringify(extra[0]);
    return ` (X has the ${fitted} fitted columns and this one). If it holds the labels, name it as the label column (labelColumn, --label-col ${name}); otherwise leave it out (dropColumns, --drop-columns ${name}).`;
  }
  return ` (X has the ${fitted} fitted columns and these ${extra.length}). Leave them out (dropColumns, --drop-columns), naming the one that holds the labels, if any, as the label column (labelColumn, --label-col).`;
}

/** The warning of data without names given to a model fitted with names. */
export function unnamedColumnsWarning(
  owner: string,
  expected: readonly string[],
): TransformWarning {
  return {
    code: "unnamed-columns",
    message: `X has no feature names, but ${owner} was fitted with feature names (${listed(expected)}); its ${expected.length} columns are taken in the fitted order, unchecked.`,
    values: { features: expected.length },
  };
}
