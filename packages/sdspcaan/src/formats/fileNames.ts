/** File names in the readers' messages and variable names, whichever separator a path uses. */

/** The last part of a path ("a/b/X.npy" and "C:\\d\\X.npy" give "X.npy"). */
export function baseName(file: string): string {
  return file.slice(Math.max(file.lastIndexOf("/"), file.lastIndexOf("\\")) + 1);
}
