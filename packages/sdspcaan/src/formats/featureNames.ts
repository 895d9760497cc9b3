/**
 * The feature names a delimited file's header gives: the header's cells of the
 * columns that became X (the label column and the left-out text columns removed),
 * in X's column order. A model fitted with them matches later files by name.
 */
import type { DatasetInfo } from "./variables.js";

/**
 * The names of X's columns from the file's header, or null when there is no header
 * or its names cannot tell the columns apart (a name repeated or empty): such data
 * is matched by position.
 */
export function featureNamesOf(info: DatasetInfo, nFeatures: number): string[] | null {
  const header = info.header;
  if (header === undefined) return null;
  const left = new Set(info.droppedColumns ?? []);
  if (info.labelColumn !== undefined) left.add(info.labelColumn);
  const names = header.filter((_, j) => !left.has(j)).map((name) => name.trim());
  if (names.length !== nFeatures) return null;
  if (names.some((name) => name === "") || new Set(names).size !== names.length) return null;
  return names;
}
