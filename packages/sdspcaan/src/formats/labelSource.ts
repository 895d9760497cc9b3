/**
 * Where a data set's labels are, as the reading options say. This is decided here
 * and nowhere else: the delimited reader, the variable readers, `parseBytes` and the
 * CLI's loader (labels files, IDX companions, registry entries) act on the answer.
 * How a named place is found in a file (a header name, a variable) and what an
 * unnamed place means for each format stay with the readers.
 */

/** The options that place the labels (`labelsFile` only where files are loaded). */
export interface LabelOptions {
  readonly yVar?: string;
  readonly labelColumn?: number | string;
  readonly labelsFile?: string;
}

export type LabelSource =
  /** A labels file of their own: the data file is all X. */
  | { readonly where: "labels-file"; readonly file: string }
  /** labelColumn "none": not in the data file, which is all X. */
  | { readonly where: "none" }
  /**
   * In the data file, named: a variable, a column, or both (a column beside a
   * variable is refused by the reader, which names the file's variable).
   */
  | { readonly where: "named"; readonly yVar?: string; readonly labelColumn?: number | string }
  /**
   * Named nowhere: found by the usual variable names and each format's convention
   * when labels are required; when they are optional, only a variable found by name.
   */
  | { readonly where: "unnamed" };

export function labelSource(options: LabelOptions): LabelSource {
  if (options.labelsFile !== undefined) return { where: "labels-file", file: options.labelsFile };
  if (options.labelColumn === "none") return { where: "none" };
  if (options.yVar === undefined && options.labelColumn === undefined) return { where: "unnamed" };
  return {
    where: "named",
    ...(options.yVar !== undefined ? { yVar: options.yVar } : {}),
    ...(options.labelColumn !== undefined ? { labelColumn: options.labelColumn } : {}),
  };
}

/** Whether the data file holds the labels (named or to be found), rather than only X. */
export function labelsInDataFile(source: LabelSource): boolean {
  return source.where === "named" || source.where === "unnamed";
}
