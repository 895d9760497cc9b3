/**
 * Setup file of the HDF5 reader's shared test project (vitest.shared.ts): every file must
 * leave the library's process-wide state as it found it (guardProcessState).
 */
// Importing the package installs its reader: installed first, it is the state every file starts from.
import "sdspcaan-hdf5";
import { guardProcessState } from "sdspcaan-test-support";
import { libraryProbes } from "../../../sdspcaan/test/setup/libraryState.js";

guardProcessState(libraryProbes);
