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
