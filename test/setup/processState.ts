/**
 * Setup file of the project checks' shared test project (vitest.config.ts): every file
 * must leave the process-wide state as it found it (guardProcessState).
 */
import { guardProcessState } from "sdspcaan-test-support";
import { libraryProbes } from "../../packages/sdspcaan/test/setup/libraryState.js";

guardProcessState(libraryProbes);
