/**
 * MAT v7.3 and HDF5 files: telling them by their signature here, reading them in the
 * separate package sdspcaan-hdf5, which brings h5wasm (a 5.5 MB WebAssembly build that
 * most users never need) and registers its reader with {@link setHdf5Reader} when it
 * is imported. Without it, such a file is refused with a message saying what to install.
 */
import { DataFormatError } from "../core/errors.js";
import { maxBytesOf, type ReadLimits } from "./limits.js";
import type { RawVariable } from "./variables.js";

const HDF5_SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];

/** Offset of the HDF5 superblock (0, 512, 1024, 2048, ...), or null when there is none. */
export function hdf5SuperblockOffset(bytes: Uint8Array): number | null {
  for (let off = 0; off + 8 <= bytes.length; off = off === 0 ? 512 : off * 2) {
    if (HDF5_SIGNATURE.every((b, i) => bytes[off + i] === b)) return off;
  }
  return null;
}

/** True for a MAT v7.3 file: MATLAB's text header followed by an HDF5 superblock at 512. */
export function looksLikeMatV73(bytes: Uint8Array): boolean {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 19));
  return head.startsWith("MATLAB 7.3 MAT-file") && hdf5SuperblockOffset(bytes) === 512;
}

/** What an HDF5 session hands to its callback. */
export interface Hdf5Contents {
  /** "mat-v7.3" for MATLAB files, "hdf5" for other HDF5 files. */
  format: "mat-v7.3" | "hdf5";
  variables: RawVariable[];
}

/**
 * Opens an HDF5 / MAT v7.3 file from a buffer, lists its top-level variables and runs
 * `use` on them while the file is open (sdspcaan-hdf5's `withHdf5Variables`).
 */
export type Hdf5Reader = <T>(
  bytes: Uint8Array,
  file: string,
  use: (contents: Hdf5Contents) => T,
  limits?: ReadLimits,
) => Promise<T>;

let reader: Hdf5Reader | null = null;

/** Installs the HDF5 reader (sdspcaan-hdf5 does this when imported); null removes it. */
export function setHdf5Reader(next: Hdf5Reader | null): void {
  reader = next;
}

/** The installed HDF5 reader (null when none), for the test suite's process-state guard. */
export function installedHdf5Reader(): Hdf5Reader | null {
  return reader;
}

/** Reads an HDF5 / MAT v7.3 buffer with the installed reader, or says how to get one. */
export function withHdf5Variables<T>(
  bytes: Uint8Array,
  file: string,
  use: (contents: Hdf5Contents) => T,
  limits?: ReadLimits,
): Promise<T> {
  // Checked here, not left to the installed reader, which may be anyone's.
  maxBytesOf(limits);
  if (reader === null) {
    throw new DataFormatError(
      file,
      `is a ${looksLikeMatV73(bytes) ? "MAT v7.3 (HDF5)" : "HDF5"} file, which needs the sdspcaan-hdf5 package: npm install sdspcaan-hdf5, then import "sdspcaan-hdf5" once (the sdspcaan command does). Or save it from MATLAB with save -v7 (or as CSV)`,
    );
  }
  return reader(bytes, file, use, limits);
}
