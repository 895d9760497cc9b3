/**
 * A whole SDSPCAAN fit on the matrix-free path with helper threads gives one thread's W.
 * The fit uses the helpers only for a factor U of HELPER_MIN_ENTRIES (2e6) entries, so
 * the data are large (2,100 x 957): `npm run test:slow`. The products it splits are
 * checked on small operators, bit for bit, in test/linalg/helperThread.test.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { SDSPCAAN } from "#internal/methods/sdspcaan.js";
import { HELPER_MIN_ENTRIES } from "#internal/methods/zstep/gramOperator.js";
import { setKernelThreads } from "#internal/threads/helperThread.node.js";
import { firstDifference } from "../helpers/matrices.js";

afterAll(() => {
  setKernelThreads(1);
});

describe("kernel helper threads", () => {
  it("fit SDSPCAAN on the matrix-free path to the same W as one thread", () => {
    // U must have HELPER_MIN_ENTRIES entries for the fit to use the helpers.
    const n = 2100;
    const d = Math.ceil(HELPER_MIN_ENTRIES / n) + 4;
    const rng = new Random(5);
    const X = new Matrix(n, d);
    const y: number[] = [];
    for (let i = 0; i < n; i++) {
      const label = i % 4;
      y.push(label);
      for (let j = 0; j < d; j++) {
        X.data[i * d + j] = rng.normal() + (j % 4 === label ? 2 : 0);
      }
    }
    const options = { k: 4, solver: "lobpcg", maxIter: 3 } as const;
    setKernelThreads(1);
    const one = new SDSPCAAN(options).fit(X, y);
    setKernelThreads(2);
    const two = new SDSPCAAN(options).fit(X, y);
    setKernelThreads(1);
    expect(one.fitInfo.solver).toBe("lobpcg");
    expect(one.fitInfo.details.productThreads).toBe(1);
    expect(two.fitInfo.details.productThreads).toBe(2);
    expect(two.fitInfo.iterations).toBe(one.fitInfo.iterations);
    expect(firstDifference(two.components.data, one.components.data)).toBe(-1);
  });
});
