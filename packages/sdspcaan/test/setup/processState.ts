/**
 * Setup file of the library's shared test project (vitest.shared.ts): every file must
 * leave the process-wide state as it found it (guardProcessState).
 */
import { guardProcessState } from "sdspcaan-test-support";
import { libraryProbes } from "./libraryState.js";

guardProcessState(libraryProbes);
