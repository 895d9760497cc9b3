/** The benchmark suites, in the order `npm run bench` runs them (opt-in ones only with --only). */
import type { BenchSuite } from "../harness.js";
import { fashion60kSuite } from "./fashion60k.js";
import { gridSuite } from "./grid.js";
import { ioSuite } from "./io.js";
import { kernelsSuite } from "./kernels.js";
import { linalgSuite } from "./linalg.js";
import { memorySuite } from "./memory.js";
import { methodsSuite } from "./methods.js";
import { pcaSuite } from "./pca.js";
import { protocolSuite } from "./protocol.js";
import { runnerSuite } from "./runner.js";
import { scalingSuite } from "./scaling.js";
import { startupSuite } from "./startup.js";

export const suites: BenchSuite[] = [
  kernelsSuite,
  linalgSuite,
  ioSuite,
  methodsSuite,
  pcaSuite,
  gridSuite,
  protocolSuite,
  scalingSuite,
  runnerSuite,
  startupSuite,
  fashion60kSuite,
  memorySuite,
];
