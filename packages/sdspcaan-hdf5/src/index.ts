/**
 * sdspcaan-hdf5: MAT v7.3 (HDF5) files for sdspcaan. Importing this module installs
 * the reader, after which `parseBytes` and the file loaders read such files like any
 * other: `import "sdspcaan-hdf5";`. It brings h5wasm, loaded when the first HDF5 file
 * comes.
 */
import { setHdf5Reader } from "sdspcaan/formats";
import { withHdf5Variables } from "./matV73.js";

setHdf5Reader(withHdf5Variables);

export type { Hdf5Contents } from "sdspcaan/formats";
export { withHdf5Variables };
