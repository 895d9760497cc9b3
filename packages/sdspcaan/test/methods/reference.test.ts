/**
 * Agreement with the independent NumPy/SciPy reference (not part of this repository) on the
 * same training data and options: subspaces within 1e-6 rad, the same iteration
 * counts and final lambda where both stop by the same rule.
 * Fixture: test/fixtures/methods/reference_fits.json (its "command" field says how it
 * was made; scripts/fixtures/methods_reference.py).
 */
import { readFileSync } from "node:fs";
import { fixtureFile, readDataFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { centerColumns } from "#internal/linalg/basic.js";
import { multiply } from "#internal/linalg/kernels/gemm.js";
import { createMethod } from "#internal/methods/registry.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

interface RefFit {
  method: string;
  k: number;
  options: Record<string, number>;
  iterations: number;
  stopReason: string;
  converged: boolean;
  maxIterReached: boolean;
  lambdaFinal: number | null;
  lambdaActions: string;
  eigenvalues: number[] | null;
  XW: number[][];
}
interface RefCase {
  case: string;
  dataset?: string;
  train: number[];
  X?: number[][];
  y?: number[];
  fits: RefFit[];
}

const fixture = JSON.parse(readFileSync(fixtureFile("methods/reference_fits.json"), "utf8")) as {
  cases: RefCase[];
};

async function trainingSet(c: RefCase): Promise<{ X: Matrix; y: number[] }> {
  if (c.X && c.y) return { X: Matrix.fromRows(c.X), y: c.y };
  const ds = await readDataFile(c.dataset as string);
  return {
    X: ds.X.selectRows(c.train),
    y: c.train.map((i) => ds.y[i] as number),
  };
}

describe.each(fixture.cases.map((c) => [c.case, c] as const))(
  "reference agreement: %s",
  (_name, c) => {
    it.each(c.fits.map((f) => [`${f.method} ${JSON.stringify(f.options)}`, f] as const))(
      "%s",
      async (_label, f) => {
        const { X, y } = await trainingSet(c);
        const model = createMethod(f.method, { ...f.options, k: f.k }).fit(X, y);
        const info = model.fitInfo;
        const XW = multiply(centerColumns(X).centered, model.components);
        const angle = maxPrincipalAngle(XW, Matrix.fromRows(f.XW));
        expect(angle).toBeLessThanOrEqual(1e-6);
        if (f.stopReason === "closed form") {
          expect(info.stopReason).toBe("closed-form");
          return;
        }
        if (f.maxIterReached) {
          expect(info.stopReason).toBe("max-iterations");
          expect(info.iterations).toBe(f.iterations);
          return;
        }
        // Both converged by the same rule: same iteration count and lambda.
        expect(f.converged).toBe(true);
        expect(info.stopReason).toBe("converged");
        expect(info.iterations).toBe(f.iterations);
        if (f.lambdaActions.length > 0) {
          expect(info.details.lambdaFinal).toBe(f.lambdaFinal);
          expect(info.lambdaTrace.length).toBe(f.lambdaActions.length);
        }
        if (f.eigenvalues) {
          const ours = info.details.eigenvalues as number[];
          const scale = Math.max(...f.eigenvalues.map(Math.abs));
          for (let j = 0; j < f.eigenvalues.length; j++) {
            expect(Math.abs(ours[j] - f.eigenvalues[j])).toBeLessThanOrEqual(1e-8 * scale);
          }
        }
      },
    );
  },
);
