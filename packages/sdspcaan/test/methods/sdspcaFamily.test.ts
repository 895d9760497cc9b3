/**
 * The paper's identities and the invariants of the SDSPCA family (SDSPCA,
 * SDSPCA-LPP, SDSPCAAN) and of PCAN / SPCAN.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { initialAdaptiveGraph } from "#internal/graph/adaptive.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import { centerColumns } from "#internal/linalg/basic.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiply, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import type { CsrMatrix } from "#internal/linalg/sparse.js";
import { FitContext } from "#internal/methods/estimator.js";
import { PCA } from "#internal/methods/pca.js";
import { PCAN } from "#internal/methods/pcan.js";
import { type GraphMode, type QLoopPaths, qLoopSettings } from "#internal/methods/qLoopOptions.js";
import { SDSPCA } from "#internal/methods/sdspca.js";
import { SDSPCAAN } from "#internal/methods/sdspcaan.js";
import { fitQLoop, type QLoopDetails, withQLoopPaths } from "#internal/methods/sdspcaFamily.js";
import { SDSPCALPP } from "#internal/methods/sdspcaLpp.js";
import { SPCAN } from "#internal/methods/spcan.js";
import { TrainingData } from "#internal/methods/training.js";
import {
  autoPreconditioner,
  autoZSolver,
  chooseZSolver,
} from "#internal/methods/zstep/zSolvers.js";
import { blobs } from "../helpers/blobs.js";
import { expectLargeScaleMatchesDense, fourGaussianClasses, withPaths } from "../helpers/qLoop.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

function expectIdentical(a: Matrix, b: Matrix): void {
  expect(Array.from(a.data)).toEqual(Array.from(b.data));
}

function orthogonalityError(Q: Matrix): number {
  const G = multiplyAtB(Q, Q);
  let err = 0;
  for (let i = 0; i < G.rows; i++) {
    for (let j = 0; j < G.cols; j++) err = Math.max(err, Math.abs(G.get(i, j) - (i === j ? 1 : 0)));
  }
  return err;
}

describe("the paper's identities", () => {
  const { X, y } = blobs(1);

  it("SDSPCAAN with delta = 0 is SDSPCA, bit for bit", () => {
    for (const opts of [{ k: 4 }, { k: 6, alpha: 0.1, beta: 10 }]) {
      const a = new SDSPCAAN({ ...opts, delta: 0 }).fit(X, y);
      const b = new SDSPCA(opts).fit(X, y);
      expectIdentical(a.components, b.components);
      expect(a.fitInfo.iterations).toBe(b.fitInfo.iterations);
      expect(a.fitInfo.objective).toEqual(b.fitInfo.objective);
    }
  });

  it("SDSPCA-LPP is SDSPCAAN with the graph frozen: same first iteration, S never moves", () => {
    for (const opts of [{ k: 4 }, { k: 5, alpha: 10, beta: 0.1, delta: 0.1, m: 5 }]) {
      // Iteration 1 of both uses the initial graph: bit for bit the same Q.
      const a = new SDSPCAAN({ ...opts, maxIter: 1 }).fit(X, y);
      const b = new SDSPCALPP({ ...opts, maxIter: 1 }).fit(X, y);
      expectIdentical(a.components, b.components);
      // After that SDSPCAAN adapts S while SDSPCA-LPP keeps the initial graph.
      const full = new SDSPCALPP(opts).fit(X, y);
      const S = full.artifacts.S as CsrMatrix;
      const S0 = b.artifacts.S as CsrMatrix;
      expect(Array.from(S.values)).toEqual(Array.from(S0.values));
      expect(Array.from(S.colIdx)).toEqual(Array.from(S0.colIdx));
    }
  });

  it("PCA is the top-k right singular vectors (eigenvectors of X^T X), in order", () => {
    const k = 5;
    const W = new PCA({ k }).fit(X).components;
    const Xc = centerColumns(X).centered;
    const { vectors, values } = symmetricEigen(multiplyAtB(Xc, Xc), { select: { largest: k } });
    const V = vectors as Matrix;
    // Column j of PCA is the eigenvector of the (j+1)-th largest eigenvalue.
    for (let j = 0; j < k; j++) {
      const w = W.selectColumns([j]);
      const v = V.selectColumns([k - 1 - j]);
      expect(maxPrincipalAngle(w, v)).toBeLessThan(1e-9);
    }
    expect(orthogonalityError(W)).toBeLessThan(1e-12);
    const variances = new PCA({ k }).fit(X).fitInfo.details.explainedVariance as number[];
    for (let j = 0; j < k; j++)
      expect(variances[j]).toBeCloseTo(values[k - 1 - j] / (X.rows - 1), 6);
  });
});

describe("SDSPCA family invariants", () => {
  it("Q has orthonormal columns and W = X^T Q", () => {
    const { X, y } = blobs(2);
    for (const Cls of [SDSPCA, SDSPCALPP, SDSPCAAN]) {
      const model = new Cls({ k: 5 }).fit(X, y);
      const Q = model.artifacts.Q as Matrix;
      expect(orthogonalityError(Q)).toBeLessThan(1e-12);
      const W = multiplyAtB(centerColumns(X).centered, Q);
      let err = 0;
      for (let t = 0; t < W.data.length; t++)
        err = Math.max(err, Math.abs(W.data[t] - model.components.data[t]));
      expect(err).toBeLessThan(1e-9);
    }
  });

  it("rows of the adaptive graph are non-negative, sum to 1, and hold at most m entries", () => {
    const { X, y } = blobs(3);
    const m = 7;
    const model = new SDSPCAAN({ k: 4, m }).fit(X, y);
    const S = model.artifacts.S as CsrMatrix;
    for (let i = 0; i < S.rows; i++) {
      const len = S.rowPtr[i + 1] - S.rowPtr[i];
      expect(len).toBeLessThanOrEqual(m);
      let sum = 0;
      for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) {
        expect(S.values[p]).toBeGreaterThanOrEqual(0);
        expect(S.colIdx[p]).not.toBe(i);
        sum += S.values[p];
      }
      expect(Math.abs(sum - 1)).toBeLessThan(1e-12);
    }
  });

  it("SDSPCA's objective never increases when the weights are fixed (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom(0.01, 1, 100),
        fc.constantFrom(0.01, 1, 100),
        (seed, alpha, beta) => {
          const { X, y } = blobs(seed, 36, 20, 3);
          const model = new SDSPCA({
            k: 3,
            alpha,
            beta,
            weighting: "absolute",
            tol: 1e-9,
            maxIter: 60,
          }).fit(X, y);
          const obj = model.fitInfo.objective;
          const scale = Math.max(...obj.map(Math.abs));
          for (let t = 1; t < obj.length; t++)
            expect(obj[t]).toBeLessThanOrEqual(obj[t - 1] + 1e-10 * scale);
        },
      ),
      { numRuns: 12, seed: 42 },
    );
  });

  it("SDSPCA-LPP's objective never increases with fixed weights", () => {
    const { X, y } = blobs(5);
    const model = new SDSPCALPP({
      k: 4,
      alpha: 1,
      beta: 50,
      delta: 1e-6,
      weighting: "absolute",
      tol: 1e-9,
    }).fit(X, y);
    const obj = model.fitInfo.objective;
    const scale = Math.max(...obj.map(Math.abs));
    expect(obj.length).toBeGreaterThan(2);
    for (let t = 1; t < obj.length; t++)
      expect(obj[t]).toBeLessThanOrEqual(obj[t - 1] + 1e-10 * scale);
  });

  it("all three stop rules converge on a well-separated problem", () => {
    const { X, y } = blobs(6);
    for (const stopRule of ["aligned", "paper", "subspace"] as const) {
      const reported: Array<[number | null, number | null]> = [];
      const info = new SDSPCA({ k: 3, stopRule }).fit(X, y, {
        onProgress: (p) => reported.push([p.change, p.tol]),
      }).fitInfo;
      expect(info.stopReason).toBe("converged");
      const changes = info.details.iterateChange as number[];
      expect(changes[changes.length - 1]).toBeLessThan(1e-3);
      // onProgress reports the same values as they are made, with the tolerance.
      expect(reported).toEqual(changes.map((c) => [c, 1e-3]));
    }
  });

  it("reports lambda, warns about small classes, and stops at the lambda cap", () => {
    const { X, y } = blobs(7, 30, 20, 3);
    y[0] = 99; // a singleton class can never be split off
    const progress: Array<number | null> = [];
    const model = new SDSPCAAN({ k: 3, lambdaCap: 2 ** 20 }).fit(X, y, {
      onProgress: (p) => progress.push(p.lambda),
    });
    const info = model.fitInfo;
    expect(
      info.warnings.some(
        (w) => w.code === "small-classes" && w.message.includes("fewer than m + 1"),
      ),
    ).toBe(true);
    expect(info.warnings.some((w) => w.code === "lambda-cap")).toBe(true);
    expect(info.stopReason === "lambda-cap" || info.stopReason === "max-iterations").toBe(true);
    expect(info.details.lambdaCapped).toBe(true);
    expect(Math.max(...info.lambdaTrace)).toBe(2 ** 20);
    for (let t = 1; t < info.lambdaTrace.length; t++) {
      const ratio = info.lambdaTrace[t] / info.lambdaTrace[t - 1];
      expect([0.5, 1, 2]).toContain(ratio);
    }
    expect(progress).toEqual(info.lambdaTrace);
    expect(info.iterations).toBeLessThanOrEqual(500);
  });

  it("k above n is refused with the bound in the message", () => {
    const { X, y } = blobs(8, 20, 30, 2);
    expect(() => new SDSPCA({ k: 21 }).fit(X, y)).toThrow(
      /'k' parameter of SDSPCA must be an integer in \[1, 20\]/,
    );
  });
});

describe("PCAN and SPCAN (W-step in the data span)", () => {
  it("W satisfies W^T X^T X W = I, also when d > n", () => {
    for (const [n, d] of [
      [60, 20],
      [30, 80],
    ]) {
      const { X, y } = blobs(9, n, d, 3, 6);
      for (const model of [new PCAN({ k: 4 }).fit(X, y), new SPCAN({ k: 4 }).fit(X, y)]) {
        const XW = multiply(centerColumns(X).centered, model.components);
        expect(orthogonalityError(XW)).toBeLessThan(1e-9);
      }
    }
  });

  it("separates well-clustered data into c components and converges", () => {
    const { X, y } = blobs(10, 60, 20, 3, 8);
    const info = new PCAN({ k: 3, m: 5 }).fit(X, y).fitInfo;
    expect(info.stopReason).toBe("converged");
    expect(info.details.clusters).toBe(3);
    const eL = info.details.laplacianEigenvalues as number[];
    expect(eL.slice(0, 3).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1e-3);
  });

  it("PCAN without labels needs the cluster count; k above the rank is refused", () => {
    const { X } = blobs(11, 30, 80, 3);
    expect(() => new PCAN({ k: 2 }).fit(X)).toThrow(/needs the number of clusters/);
    expect(new PCAN({ k: 2, clusters: 3 }).fit(X).nComponents).toBe(2);
    expect(() => new PCAN({ k: 30, clusters: 3 }).fit(X)).toThrow(ValidationError);
    expect(() => new PCAN({ k: 30, clusters: 3 }).fit(X)).toThrow(/numerical rank r = 29/);
  });
});

describe("SPCAN, the paper's literal formulation", () => {
  it("takes Q from Z = X X^T L X X^T alone (no reconstruction, label or L2,1 term)", () => {
    const { X, y } = blobs(15, 40, 25, 3);
    const m = 6;
    const k = 4;
    // SDSPCA-LPP keeps the initial graph, which is the literal SPCAN's first graph.
    const S0 = new SDSPCALPP({ k, m }).fit(X, y).artifacts.S as CsrMatrix;
    const model = new SPCAN({ k, m, formulation: "literal", maxIter: 1 }).fit(X, y);
    expect(model.fitInfo.stopReason).toBe("max-iterations");
    const Q = model.artifacts.Q as Matrix;
    expect(orthogonalityError(Q)).toBeLessThan(1e-12);
    const n = X.rows;
    const Xc = centerColumns(X).centered;
    const G = multiply(Xc, Xc.transpose());
    const Sd = S0.toDense();
    const L = new Matrix(n, n);
    for (let i = 0; i < n; i++) {
      let deg = 0;
      for (let j = 0; j < n; j++) deg += 0.5 * (Sd.get(i, j) + Sd.get(j, i));
      for (let j = 0; j < n; j++)
        L.set(i, j, (i === j ? deg : 0) - 0.5 * (Sd.get(i, j) + Sd.get(j, i)));
    }
    const Z = multiply(multiply(G, L), G);
    const scale = symmetricEigen(Z).values.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
    const expected = symmetricEigen(Z).values.slice(0, k);
    const ours = model.fitInfo.details.eigenvalues as number[];
    for (let j = 0; j < k; j++) expect(Math.abs(ours[j] - expected[j])).toBeLessThan(1e-10 * scale);
    // Z Q = Q Lambda: Q solves the literal problem (its subspace is not unique: ties at 0).
    const ZQ = multiply(Z, Q);
    let res = 0;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < k; j++)
        res = Math.max(res, Math.abs(ZQ.get(i, j) - ours[j] * Q.get(i, j)));
    expect(res).toBeLessThan(1e-9 * scale);
  });

  it("is the supervised PCAN by default", () => {
    const { X, y } = blobs(16, 40, 25, 3);
    const a = new SPCAN({ k: 3 }).fit(X, y);
    const b = new SPCAN({ k: 3, formulation: "pcan" }).fit(X, y);
    expectIdentical(a.components, b.components);
    expect(a.toJSON().params.formulation).toBe("pcan");
  });
});

describe("the matrix-free LOBPCG path", () => {
  it("gives the dense path's subspace and iteration count", () => {
    const { X, y } = blobs(12, 90, 30, 3);
    // Two more cases (alpha = 0.1 with beta = 10; alpha = 10 with m = 6, which needs
    // 2,000 LOBPCG iterations per fit): test/slow/lobpcgPath.test.ts.
    const dense = new SDSPCAAN({ k: 5, solver: "dense" }).fit(X, y);
    for (const preconditioner of ["never", "always"] as const) {
      const operator = withPaths(new SDSPCAAN({ k: 5, solver: "lobpcg" }), {
        preconditioner,
      }).fit(X, y);
      const details = operator.fitInfo.details;
      expect(operator.fitInfo.solver).toBe("lobpcg");
      expect(details.lobpcgIterations as number).toBeGreaterThan(0);
      // From the second solve on (the first has no spectrum to place the shift in).
      if (preconditioner === "always") {
        expect(details.preconditionedSolves).toBe(operator.fitInfo.iterations - 1);
        expect(details.preconditionedIterations as number).toBeGreaterThan(0);
      } else {
        expect(details.preconditionedSolves).toBe(0);
      }
      expect(maxPrincipalAngle(dense.components, operator.components)).toBeLessThan(1e-6);
      expect(operator.fitInfo.iterations).toBe(dense.fitInfo.iterations);
      expect(operator.fitInfo.lambdaTrace).toEqual(dense.fitInfo.lambdaTrace);
    }
  });

  it("with the preconditioner, SDSPCA and SDSPCA-LPP give the dense path's subspace too", () => {
    const { X, y } = blobs(17, 300, 40, 4, 1.5);
    for (const make of [
      (solver: "dense" | "lobpcg") => new SDSPCA({ k: 8, solver }),
      (solver: "dense" | "lobpcg") => new SDSPCALPP({ k: 8, delta: 2, solver }),
    ]) {
      const dense = make("dense").fit(X, y);
      const operator = withPaths(make("lobpcg"), { preconditioner: "always" }).fit(X, y);
      expect(operator.fitInfo.details.preconditionedSolves as number).toBeGreaterThan(0);
      expect(maxPrincipalAngle(dense.components, operator.components)).toBeLessThan(1e-6);
      expect(operator.fitInfo.iterations).toBe(dense.fitInfo.iterations);
    }
  });

  // That the preconditioner cuts LOBPCG's iterations needs a clustered spectrum at
  // k = 50: test/slow/preconditionerIterations.test.ts (npm run test:slow).

  it("with the large-n graph paths forced (k-d tree search, decision-driven Laplacian solves), gives the dense path's subspace, iterations and lambda trace", () => {
    // A third case (n = 300, five overlapping classes, 76 outer iterations):
    // test/slow/lobpcgPath.test.ts.
    for (const [seed, n, d, c, sep, opts] of [
      [12, 90, 30, 3, 3, { k: 5 }],
      [15, 240, 30, 4, 1.5, { k: 4, m: 8 }],
    ] as const) {
      const { X, y } = blobs(seed, n, d, c, sep);
      expectLargeScaleMatchesDense(X, y, opts);
    }
  });

  it("auto preconditions LOBPCG only for large k", () => {
    expect(autoPreconditioner(10)).toBe(false);
    expect(autoPreconditioner(19)).toBe(false);
    expect(autoPreconditioner(20)).toBe(true);
    expect(autoPreconditioner(100)).toBe(true);
  });

  it("auto picks dense up to 2000 samples, 3000 when k > 20, never above", () => {
    expect(autoZSolver(2000, 10)).toBe("dense");
    expect(autoZSolver(2001, 10)).toBe("lobpcg");
    expect(autoZSolver(2001, 21)).toBe("dense");
    expect(autoZSolver(3000, 100)).toBe("dense");
    expect(autoZSolver(3001, 100)).toBe("lobpcg");
    expect(autoZSolver(50000, 100)).toBe("lobpcg");
  });

  it("never forms an n x n matrix (no Gram matrix is cached)", () => {
    const { X, y } = blobs(13, 60, 20, 3);
    const data = TrainingData.prepare(X, y);
    new SDSPCAAN({ k: 3, solver: "lobpcg" }).fitPrepared(data);
    expect(data.hasCached("gram")).toBe(false);
    new SDSPCAAN({ k: 3, solver: "dense" }).fitPrepared(data);
    expect(data.hasCached("gram")).toBe(true);
  });
});

describe("Tr(G L G) on the matrix-free path", () => {
  it("sums the edges until the solver forms U^T L U, then takes Tr(S^4 U^T L U): the same trace", () => {
    const { X, y } = blobs(15, 90, 12, 3);
    const data = TrainingData.prepare(X, y);
    const codes = (data.labels as NonNullable<typeof data.labels>).codes;
    const solver = chooseZSolver({
      choice: "lobpcg",
      data,
      alpha: 1,
      codes,
      classes: 3,
      k: 3,
      seed: 1,
      preconditioner: "always",
      krylovStart: "never",
    });
    const Ssym = symmetrizeGraph(initialAdaptiveGraph(data.X, { m: 5 }).S);
    const L = graphLaplacian(Ssym);
    // Tr(G L G) densely, G = Xc Xc^T.
    const G = multiply(data.X, data.X.transpose());
    const GLG = multiply(multiply(G, L.toDense()), G);
    let dense = 0;
    for (let i = 0; i < G.rows; i++) dense += GLG.get(i, i);
    const edges = solver.graphTerm(Ssym, L);
    expect(Math.abs(edges.trM - dense)).toBeLessThanOrEqual(1e-11 * dense);
    // Two solves: the second is preconditioned, which builds Z's structure.
    const Dd = new Float64Array(data.n).fill(1);
    solver.solve(1, Dd, 1e-3, edges);
    solver.solve(1, Dd, 1e-3, edges);
    const fromProjection = solver.graphTerm(Ssym, L);
    expect(Object.is(fromProjection.trM, edges.trM)).toBe(false);
    expect(Math.abs(fromProjection.trM - dense)).toBeLessThanOrEqual(1e-11 * dense);
  });
});

describe("the reported objective", () => {
  it("equals the paper's objective (Eq. SDSPCAAN) computed densely at the final iterate", () => {
    const { X, y } = blobs(14, 40, 25, 3);
    const model = new SDSPCAAN({ k: 3, m: 6, alpha: 0.5, beta: 2, delta: 3 }).fit(X, y);
    const info = model.fitInfo;
    expect(info.stopReason).toBe("converged");
    const Q = model.artifacts.Q as Matrix;
    const S = model.artifacts.S as CsrMatrix;
    const gamma = model.artifacts.gamma as Float64Array;
    // Typed fitted state: no casts needed to read the Q-loop's diagnostics.
    const { alphaWeight, betaWeight, deltaWeight } = info.details;
    const lambdaFinal = info.details.lambdaFinal as number;
    const Xc = centerColumns(X).centered;
    const n = X.rows;
    const G = multiply(Xc, Xc.transpose());
    const Sd = S.toDense();
    const Ssym = new Matrix(n, n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) Ssym.set(i, j, 0.5 * (Sd.get(i, j) + Sd.get(j, i)));
    const L = new Matrix(n, n);
    for (let i = 0; i < n; i++) {
      let deg = 0;
      for (let j = 0; j < n; j++) deg += Ssym.get(i, j);
      for (let j = 0; j < n; j++) L.set(i, j, (i === j ? deg : 0) - Ssym.get(i, j));
    }
    const Y = new Matrix(n, 3);
    for (let i = 0; i < n; i++) Y.set(i, y[i], 1);
    const QQt = multiply(Q, Q.transpose());
    const fro2 = (A: Matrix) => A.data.reduce((s, v) => s + v * v, 0);
    const minus = (A: Matrix, B: Matrix) =>
      new Matrix(
        A.rows,
        A.cols,
        A.data.map((v, i) => v - B.data[i]),
      );
    const recon = fro2(minus(Xc, multiply(QQt, Xc)));
    const label = fro2(minus(Y, multiply(QQt, Y)));
    let l21 = 0;
    for (let i = 0; i < n; i++) l21 += Math.hypot(...Q.row(i));
    const GQ = multiply(G, Q);
    const trGraph = multiplyAtB(GQ, multiply(L, GQ)).data.reduce(
      (s, v, t) => (t % 4 === 0 ? s + v : s),
      0,
    );
    let gammaTerm = 0;
    for (let i = 0; i < n; i++) {
      let row = 0;
      for (let j = 0; j < n; j++) row += Ssym.get(i, j) ** 2;
      gammaTerm += gamma[i] * row;
    }
    const trYLY = multiplyAtB(Y, multiply(L, Y)).data.reduce(
      (s, v, t) => (t % 4 === 0 ? s + v : s),
      0,
    );
    const expected =
      recon +
      alphaWeight * label +
      betaWeight * l21 +
      deltaWeight * (trGraph + 0.5 * gammaTerm + lambdaFinal * trYLY);
    const reported = info.objective[info.objective.length - 1];
    expect(Math.abs(reported - expected)).toBeLessThan(1e-9 * Math.abs(expected));
    expect(trGraph).toBeGreaterThan(0);
  });
});

describe("fitQLoop's settings", () => {
  // What "auto" picks on this small problem, named: the paths a fit takes by default.
  const autoPaths: Required<QLoopPaths> = {
    preconditioner: "auto",
    krylovStart: "auto",
    krylovSpace: "lifted",
    largeScale: "auto",
    trackNeighbours: false,
    rankControlBeside: false,
  };
  const { X, y } = fourGaussianClasses(7, 96);
  const cases = [
    ["SDSPCA", "none", () => new SDSPCA({ k: 5, solver: "dense" })],
    ["SDSPCA-LPP", "fixed", () => new SDSPCALPP({ k: 5, m: 6, solver: "dense" })],
    ["SDSPCAAN", "adaptive", () => new SDSPCAAN({ k: 6, m: 6, maxIter: 30 })],
    ["SDSPCAAN", "adaptive", () => new SDSPCAAN({ k: 4, solver: "lobpcg", lambdaCap: 4 })],
  ] as const;

  it.each(cases)(
    "%s: the loop's steps with the settings given explicitly give the method's fit, bit for bit",
    (name, graph, make) => {
      const model = make().fit(X, y);
      const data = TrainingData.prepare(X, Array.from(y));
      const settings = qLoopSettings(name, model.params, {
        graph: graph as GraphMode,
        paths: autoPaths,
      });
      const core = fitQLoop(data, new FitContext(model.method, settings.maxIter, {}), settings);
      // fit() writes -0 as 0 in W.
      const W = Array.from(core.components.data, (v) => (v === 0 ? 0 : v));
      expect(W).toEqual(Array.from(model.components.data));
      expect(core.iterations).toBe(model.fitInfo.iterations);
      expect(core.stopReason).toBe(model.fitInfo.stopReason);
      expect(core.objective).toEqual(model.fitInfo.objective);
      expect(core.lambdaTrace).toEqual(model.fitInfo.lambdaTrace);
      expect(core.warnings).toEqual(model.fitInfo.warnings);
      const { laplacianEigenMs: _a, ...details } = core.details as QLoopDetails;
      const { laplacianEigenMs: _b, ...fitted } = model.fitInfo.details;
      expect(details).toEqual(fitted);
    },
  );

  it("forces a path only in the fits of the class withQLoopPaths makes", () => {
    const Forced = withQLoopPaths(SDSPCAAN, { preconditioner: "always", krylovStart: "never" });
    const options = { k: 4, solver: "lobpcg" } as const;
    const forced = new Forced(options).fit(X, y);
    const plain = new SDSPCAAN(options).fit(X, y);
    expect(forced).toBeInstanceOf(SDSPCAAN);
    expect(forced.method).toBe("sdspcaan");
    expect(forced.fitInfo.details.preconditionedSolves).toBe(forced.fitInfo.iterations - 1);
    // k = 4 < 20: "auto" leaves LOBPCG unpreconditioned, in a fit after the forced one too.
    expect(plain.fitInfo.details.preconditionedSolves).toBe(0);
    expect(maxPrincipalAngle(forced.components, plain.components)).toBeLessThan(1e-6);
  });
});
