/** The benchmark suites, in the order `npm run bench` runs them. */
import type { BenchSuite } from "../harness.js";

export const suites: BenchSuite[] = [];
