/**
 * Helper threads for the thin products of large fits (linalg/kernels/helper.ts,
 * helperThread.node.ts): real worker threads, and the same bits on one thread or more.
 * A whole fit with helpers needs a factor of HELPER_MIN_ENTRIES entries:
 * test/slow/helperThreadFit.test.ts.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import { embeddedNeighbours, labelledNeighbours } from "#internal/graph/neighbours.js";
import { scanNearestPairs, squaredRowNorms } from "#internal/linalg/kernels/distances.js";
import {
  gemmABtRaw,
  multiplyABt,
  threadsWorthIt,
  transposed,
} from "#internal/linalg/kernels/gemm.js";
import {
  type KernelHelper,
  kernelHelpers,
  setKernelHelpers,
  setSideHelper,
  setThreadedProducts,
} from "#internal/linalg/kernels/helper.js";
import { NeighbourHeaps, type TwoPartNeighbours } from "#internal/linalg/kernels/neighbourHeaps.js";
import { screenedNearestNeighbours } from "#internal/linalg/kernels/screenedSearch.js";
import {
  gemmABtLowerBlocks,
  gramRows,
  lowerStripBounds,
  transposedGramAndProduct,
} from "#internal/linalg/kernels/symmetricProducts.js";
import { type WasmArena, wasmArena } from "#internal/linalg/kernels/wasm/backend.js";
import { GramOperator } from "#internal/methods/zstep/gramOperator.js";
import { laplacianProjection } from "#internal/methods/zstep/zPreconditioner.js";
import {
  kernelThreads,
  runningKernelHelpers,
  setKernelThreads,
} from "#internal/threads/helperThread.node.js";
import {
  firstDifference,
  gramByMultiply,
  randomMatrix,
  randomSparseRows,
} from "../helpers/matrices.js";
import { inputs } from "../helpers/properties.js";

afterAll(() => {
  setKernelThreads(1);
});

/**
 * Runs `compute` as setKernelThreads(1) would (no helpers, no threaded products, no side
 * helper) but keeps the helper workers running, then gives back the thread count set
 * before. Each worker started from the sources costs about half a second of CPU (tsx
 * compiles its modules), so the tests keep theirs from one test to the next instead of
 * stopping them for every one-thread reference.
 */
function onOneThread<T>(compute: () => T): T {
  const threads = kernelThreads();
  setKernelHelpers(null);
  setThreadedProducts(null);
  setSideHelper(null);
  try {
    return compute();
  } finally {
    if (threads > 1) setKernelThreads(threads);
  }
}

/** Every (lambda, neighbour count) pair of the labelled searches' tests. */
function lambdaCountCases(lambdas: number[]): Array<{ lambda: number; count: number }> {
  return lambdas.flatMap((lambda) => [1, 16].map((count) => ({ lambda, count })));
}

/**
 * Wraps the current kernel helpers so that their products and tasks are counted (so
 * that a test cannot compare one thread with itself): the counts are in the returned
 * object, tasks by name.
 */
function countHelperCalls(): {
  products: number;
  sparse: number;
  chunks: number;
  tasks: Record<string, number>;
} {
  const counted = { products: 0, sparse: 0, chunks: 0, tasks: {} as Record<string, number> };
  const sessions = kernelHelpers();
  setKernelHelpers(() =>
    sessions.map(
      (h) =>
        new Proxy(h, {
          get(target, key) {
            const value = Reflect.get(target, key) as unknown;
            if (typeof value !== "function") return value;
            if (
              key === "startProduct" ||
              key === "startTask" ||
              key === "startSparse" ||
              key === "startLaplacianChunk"
            ) {
              return (...args: unknown[]) => {
                if (key === "startProduct") counted.products++;
                else if (key === "startSparse") counted.sparse++;
                else if (key === "startLaplacianChunk") counted.chunks++;
                else {
                  const name = args[0] as string;
                  counted.tasks[name] = (counted.tasks[name] ?? 0) + 1;
                }
                return (value as (...a: unknown[]) => unknown).apply(target, args);
              };
            }
            return (value as (...a: unknown[]) => unknown).bind(target);
          },
        }),
    ),
  );
  return counted;
}

/** The same neighbours with the same bits. */
function expectSameNeighbours(many: TwoPartNeighbours, one: TwoPartNeighbours): void {
  expect(many.rows).toBe(one.rows);
  expect(Array.from(many.indices)).toEqual(Array.from(one.indices));
  expect(firstDifference(many.distances, one.distances)).toBe(-1);
  expect(firstDifference(many.primary, one.primary)).toBe(-1);
  expect(firstDifference(many.secondary, one.secondary)).toBe(-1);
}

/**
 * 1,205 points in 30 dimensions (above the k-d tree's), four classes and a fifth of 5
 * rows (fewer than count + 1: its heaps stay partly empty after the within-class step).
 */
function labelledPoints(seed: number): { P: Matrix; codes: Int32Array } {
  const n = 1205;
  const dims = 30;
  const rng = new Random(seed);
  const P = new Matrix(n, dims);
  const codes = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    codes[i] = i < 5 ? 4 : (i * 7) % 4;
    for (let j = 0; j < dims; j++) P.data[i * dims + j] = rng.normal() + codes[i] * 0.3;
  }
  return { P, codes };
}

describe("kernel helper threads", () => {
  it("split the products by rows and give one thread's bits, for 2 and 3 threads", () => {
    for (const threads of [2, 3]) {
      setKernelThreads(threads);
      expect(kernelThreads()).toBe(threads);
      // Odd and even row counts of U and U^T, so that parts end on odd rows too.
      for (const [n, r] of [
        [301, 37],
        [300, 38],
        [97, 9],
      ] as const) {
        const U = randomMatrix(n, r, n + r);
        const Ut = U.transpose();
        const s2 = Float64Array.from({ length: r }, (_, j) => 1 + j / 3);
        const op = new GramOperator(U, Ut, s2, true, kernelHelpers());
        expect(op.resident).toBe(true);
        expect(op.threads).toBe(threads);
        for (const b of [1, 3, 8, 21]) {
          const V = randomMatrix(n, b, 7 * b + n);
          const got = op.apply(V);
          expect(firstDifference(got.data, gramByMultiply(U, Ut, s2, V).data)).toBe(-1);
        }
        op.release();
        expect(op.resident).toBe(false);
        // After release the products still work (on this thread, copying U in).
        const V = randomMatrix(n, 4, 1);
        expect(firstDifference(op.apply(V).data, gramByMultiply(U, Ut, s2, V).data)).toBe(-1);
      }
    }
  });

  it("split the sparse product (A U)^T by columns of U and give one thread's bits", () => {
    for (const threads of [2, 3]) {
      setKernelThreads(threads);
      const counted = countHelperCalls();
      for (const [n, r] of [
        [301, 37],
        [300, 38],
        [97, 9],
      ] as const) {
        const U = randomMatrix(n, r, n + r);
        const Ut = U.transpose();
        const s2 = Float64Array.from({ length: r }, (_, j) => 1 + j / 3);
        // 0 to 10 entries per row: csrmm's groups of four and its tail.
        const A = randomSparseRows(n, (i) => i % 11, n);
        const op = new GramOperator(U, Ut, s2, true, kernelHelpers());
        expect(op.threads).toBe(threads);
        const before = counted.sparse;
        const got = op.sparseTimesUTransposed(A);
        expect(counted.sparse - before).toBe(threads - 1);
        expect(firstDifference(got.data, transposed(A.multiplyMatrix(U)).data)).toBe(-1);
        // Twice on the same operator (the helpers' scratch was given back).
        expect(firstDifference(op.sparseTimesUTransposed(A).data, got.data)).toBe(-1);
        op.release();
      }
    }
  });

  it("compute the sparse product on this thread, with the same bits, when a helper fails", () => {
    setKernelThreads(2);
    const n = 203;
    const r = 17;
    const U = randomMatrix(n, r, 4);
    const s2 = Float64Array.from({ length: r }, (_, j) => 1 + j);
    const A = randomSparseRows(n, (i) => i % 7, 4);
    const want = transposed(A.multiplyMatrix(U)).data;
    for (const broken of ["startSparse", "finishSparse"]) {
      // The helper's session, with one of its sparse calls failing as a lost helper's would.
      const failing = kernelHelpers().map(
        (h) =>
          new Proxy(h, {
            get(target, key) {
              if (key === broken) {
                return () => {
                  throw new Error("The kernels' helper thread has stopped.");
                };
              }
              const value = Reflect.get(target, key) as unknown;
              return typeof value === "function" ? value.bind(target) : value;
            },
          }),
      );
      const op = new GramOperator(U, U.transpose(), s2, true, failing);
      expect(op.threads).toBe(2);
      expect(firstDifference(op.sparseTimesUTransposed(A).data, want)).toBe(-1);
      expect(firstDifference(op.sparseTimesUTransposed(A).data, want)).toBe(-1);
      op.release();
    }
  });

  it("deal the chunks of U^T L U to the helpers and give one thread's bits", () => {
    for (const threads of [2, 3]) {
      setKernelThreads(threads);
      const counted = countHelperCalls();
      // 3 and 4 chunks of LAPLACIAN_CHUNK_ROWS (the last short), and one chunk only.
      for (const [n, r, seed] of [
        [9000, 12, 1],
        [13000, 8, 2],
        [700, 40, 3],
      ] as const) {
        const U = randomMatrix(n, r, seed);
        const Ut = U.transpose();
        const s2 = Float64Array.from({ length: r }, (_, j) => 1 + j / 3);
        const L = graphLaplacian(symmetrizeGraph(randomSparseRows(n, (i) => i % 9, seed)));
        const want = laplacianProjection(L, U, Ut);
        const op = new GramOperator(U, Ut, s2, true, kernelHelpers());
        expect(op.threads).toBe(threads);
        const before = counted.chunks;
        const got = op.laplacianGram(L);
        expect(counted.chunks - before).toBe(Math.ceil(n / 4096) - Math.ceil(n / 4096 / threads));
        expect(got).not.toBeNull();
        expect(firstDifference((got as Matrix).data, want.data)).toBe(-1);
        // Again on the same operator (the helpers' scratch was given back).
        expect(firstDifference((op.laplacianGram(L) as Matrix).data, want.data)).toBe(-1);
        op.release();
      }
    }
  });

  it("form U^T L U on this thread, with the same bits, after a helper fails", () => {
    setKernelThreads(2);
    const n = 9000;
    const r = 10;
    const U = randomMatrix(n, r, 8);
    const s2 = Float64Array.from({ length: r }, (_, j) => 1 + j);
    const L = graphLaplacian(symmetrizeGraph(randomSparseRows(n, (i) => i % 5, 8)));
    const want = laplacianProjection(L, U, U.transpose()).data;
    for (const broken of ["hold", "startLaplacianChunk", "finishLaplacianChunk"]) {
      let calls = 0;
      const failing = kernelHelpers().map(
        (h) =>
          new Proxy(h, {
            get(target, key) {
              const value = Reflect.get(target, key) as unknown;
              if (typeof value !== "function") return value;
              // "hold" fails for all of U only (the operator's own parts come first).
              if (key === broken && (key !== "hold" || calls++ >= 2)) {
                return () => {
                  throw new Error("The kernels' helper thread has stopped.");
                };
              }
              return value.bind(target);
            },
          }),
      );
      const op = new GramOperator(U, U.transpose(), s2, true, failing);
      expect(op.threads).toBe(2);
      const first = op.laplacianGram(L);
      // A helper that fails mid-way gives null (the caller's ordinary path); one that
      // cannot hold U leaves every chunk to this thread. Later calls stay here.
      if (broken === "hold") expect(firstDifference((first as Matrix).data, want)).toBe(-1);
      else expect(first).toBeNull();
      expect(firstDifference((op.laplacianGram(L) as Matrix).data, want)).toBe(-1);
      op.release();
    }
  });

  it("split the sparse product by columns with one thread's bits on random graphs (property)", () => {
    setKernelThreads(2);
    fc.assert(
      fc.property(
        inputs({ n: [2, 160], rWanted: [2, 41], degree: [0, 12], seed: [0, 1e6] }),
        ({ n, rWanted, degree, seed }) => {
          const r = Math.min(rWanted, n);
          const U = randomMatrix(n, r, seed);
          const s2 = Float64Array.from({ length: r }, (_, j) => 1 + j);
          const L = graphLaplacian(symmetrizeGraph(randomSparseRows(n, () => degree, seed)));
          const op = new GramOperator(U, U.transpose(), s2, true, kernelHelpers());
          const got = op.sparseTimesUTransposed(L);
          const again = op.sparseTimesUTransposed(L);
          // A product after it still agrees (the scratch was given back).
          const V = randomMatrix(n, 5, seed);
          const ok =
            firstDifference(got.data, transposed(L.multiplyMatrix(U)).data) === -1 &&
            firstDifference(again.data, got.data) === -1 &&
            firstDifference(op.apply(V).data, gramByMultiply(U, U.transpose(), s2, V).data) === -1;
          op.release();
          return ok;
        },
      ),
      { numRuns: 40 },
    );
  });

  it("split the screened neighbour search and give one thread's neighbours and bits", () => {
    // Real-valued rows, duplicates (near-ties past the kept window) and 2 or 3 threads.
    const X = randomMatrix(700, 33, 21);
    for (let i = 0; i < 40; i++) X.data.set(X.data.subarray(0, 33), (600 + i) * 33);
    // Thread counts outside, cases inside: each new helper thread costs a start-up.
    const counts = [1, 7, 16];
    const ones = counts.map((count) => screenedNearestNeighbours(X, count, { helpers: [] }));
    for (const one of ones) expect(one).not.toBeNull();
    for (const threads of [2, 3]) {
      counts.forEach((count, c) => {
        setKernelThreads(threads);
        const helpers = kernelHelpers();
        expect(helpers).toHaveLength(threads - 1);
        const many = screenedNearestNeighbours(X, count, { helpers });
        for (const h of helpers) h.release();
        const a = ones[c] as TwoPartNeighbours;
        const b = many as TwoPartNeighbours;
        expect(b.rows).toBe(700);
        expectSameNeighbours(b, a);
      });
    }
    // An aborted search stops the helpers too, and they serve the next request.
    const controller = new AbortController();
    controller.abort();
    expect(() =>
      screenedNearestNeighbours(X, 5, { signal: controller.signal, helpers: kernelHelpers() }),
    ).toThrow(/abort/i);
    const again = screenedNearestNeighbours(X, 5, { helpers: kernelHelpers() });
    expect(Array.from((again as TwoPartNeighbours).indices)).toEqual(
      Array.from((screenedNearestNeighbours(X, 5, { helpers: [] }) as TwoPartNeighbours).indices),
    );
  });

  it("split the labelled k-d tree search by rows and give one thread's neighbours and bits", () => {
    // Four classes in 3 dimensions; lambda from 0 (cross-class rows compete) to large.
    const n = 900;
    const rng = new Random(3);
    const P = new Matrix(n, 3);
    const codes = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      codes[i] = (i * 7) % 4;
      for (let j = 0; j < 3; j++) P.data[i * 3 + j] = rng.normal() + codes[i] * 0.5;
    }
    const cases = lambdaCountCases([0, 0.3, 1e6]);
    const ones = cases.map(({ lambda, count }) => {
      const one = labelledNeighbours(P, codes, lambda, count, { strategy: "tree", helpers: [] });
      const blocks = labelledNeighbours(P, codes, lambda, count, { strategy: "blocks" });
      expect(Array.from(one.indices)).toEqual(Array.from(blocks.indices));
      return one;
    });
    for (const threads of [2, 3]) {
      cases.forEach(({ lambda, count }, c) => {
        setKernelThreads(threads);
        const helpers = kernelHelpers();
        const many = labelledNeighbours(P, codes, lambda, count, { strategy: "tree", helpers });
        expect(many.rows).toBe(n);
        expectSameNeighbours(many, ones[c]);
      });
    }
  });

  it("split the labelled block scans by row blocks and give one thread's neighbours and bits", () => {
    // Lambda from 0 (every row goes on to the cross-class step) to large (none does).
    const { P, codes } = labelledPoints(5);
    const n = P.rows;
    const options = { strategy: "blocks", blockRows: 64 } as const;
    const cases = lambdaCountCases([0, 30, 1e6]);
    const ones = cases.map(({ lambda, count }) =>
      labelledNeighbours(P, codes, lambda, count, { ...options, helpers: [] }),
    );
    for (const threads of [2, 3]) {
      cases.forEach(({ lambda, count }, c) => {
        setKernelThreads(threads);
        const counted = countHelperCalls();
        const helpers = kernelHelpers();
        const many = labelledNeighbours(P, codes, lambda, count, { ...options, helpers });
        // Each helper takes part in the scan of every class with two or more row blocks.
        expect(counted.tasks.pairScan).toBeGreaterThanOrEqual(4 * (threads - 1));
        expect(many.rows).toBe(n);
        expectSameNeighbours(many, ones[c]);
      });
    }
  });

  it("split the cross-class cluster scan by clusters and give one thread's neighbours and bits", () => {
    // As above, with step 4 by cluster bounds: lambda 0 and 30 leave rows for it
    // (every row, then some), 1e6 none; the fifth class's heaps are never full.
    const { P, codes } = labelledPoints(6);
    const options = { strategy: "clusters" } as const;
    const cases = lambdaCountCases([0, 30, 1e6]);
    const ones = cases.map(({ lambda, count }) =>
      labelledNeighbours(P, codes, lambda, count, { ...options, helpers: [] }),
    );
    for (const threads of [2, 3]) {
      cases.forEach(({ lambda, count }, c) => {
        setKernelThreads(threads);
        const counted = countHelperCalls();
        const helpers = kernelHelpers();
        const many = labelledNeighbours(P, codes, lambda, count, { ...options, helpers });
        if (lambda < 1e6) expect(counted.tasks.clusterScan).toBe(threads - 1);
        expectSameNeighbours(many, ones[c]);
      });
    }
  });

  it("split PCAN's embedded neighbour search (the full block scan) and give one thread's neighbours", () => {
    const n = 800;
    const P = randomMatrix(n, 20, 11);
    const F = randomMatrix(n, 4, 12);
    for (const lambda of [0, 5]) {
      const one = embeddedNeighbours(P, F, lambda, 9, { blockRows: 48, helpers: [] });
      setKernelThreads(2);
      const counted = countHelperCalls();
      const many = embeddedNeighbours(P, F, lambda, 9, {
        blockRows: 48,
        helpers: kernelHelpers(),
      });
      expect(counted.tasks.pairScan).toBe(1);
      expectSameNeighbours(many, one);
    }
  });

  it("split a pair scan with an embedding term and passive rows, with one thread's heaps", () => {
    const n = 700;
    const X = randomMatrix(n, 12, 8);
    const F = randomMatrix(n, 3, 9);
    const norms = squaredRowNorms(X);
    // Query rows: the odd ones; the even ones are passive.
    const order = Int32Array.from({ length: n }, (_, t) =>
      t < n / 2 ? 2 * t + 1 : 2 * (t - n / 2),
    );
    const scan = (helpers: readonly KernelHelper[], signal?: AbortSignal) => {
      const heaps = new NeighbourHeaps(n, 7);
      scanNearestPairs(X, norms, heaps, {
        order,
        active: n / 2,
        term: { kind: "embedding", F, lambda: 3 },
        blockRows: 32,
        helpers,
        ...(signal ? { signal } : {}),
      });
      return heaps;
    };
    const one = scan([]);
    setKernelThreads(3);
    // An aborted scan stops the helpers too, and they serve the next one.
    const controller = new AbortController();
    controller.abort();
    expect(() => scan(kernelHelpers(), controller.signal)).toThrow(/abort/i);
    const many = scan(kernelHelpers());
    expect(Array.from(many.size)).toEqual(Array.from(one.size));
    for (let i = 1; i < n; i += 2) {
      expectSameNeighbours(many.sortedRows(3, i, i + 1), one.sortedRows(3, i, i + 1));
    }
  });

  it("run P^T P and P^T Q on transposes in the module with one thread's bits, split over helpers", () => {
    // Large enough for the helpers: the lower-block strips and the product's rows.
    const [n, w] = [10000, 189];
    expect(threadsWorthIt(w, w, n)).toBe(true);
    const P = randomMatrix(n, w, 11);
    const Q = randomMatrix(n, w, 12);
    const want = onOneThread(() => transposedGramAndProduct(P, Q));
    for (const threads of [2, 3]) {
      setKernelThreads(threads);
      const counted = countHelperCalls();
      const got = transposedGramAndProduct(P, Q);
      expect(counted.products).toBeGreaterThanOrEqual(threads);
      expect(firstDifference(got.S.data, want.S.data)).toBe(-1);
      expect(firstDifference(got.F.data, want.F.data)).toBe(-1);
    }
    // And the calls it replaces, on the helpers too.
    const Pt = transposed(P);
    expect(firstDifference(gramRows(Pt).data, want.S.data)).toBe(-1);
    expect(firstDifference(multiplyABt(Pt, transposed(Q)).data, want.F.data)).toBe(-1);
  });

  it("split large GEMMs by rows of A: one thread's bits, also accumulating, strided and A = B", () => {
    // m n p >= 1e8 with enough work per copied element (threadsWorthIt).
    const [m, n, p] = [601, 500, 404];
    expect(threadsWorthIt(m, n, p)).toBe(true);
    const A = randomMatrix(m, p + 3, 1); // lda = p + 3: a strided view of its first p columns
    const B = randomMatrix(n, p, 2);
    const C0 = randomMatrix(m, n + 1, 3); // ldc = n + 1
    const run = (accumulate: boolean) => {
      const C = C0.clone();
      gemmABtRaw(m, n, p, A.data, p + 3, B.data, p, C.data, n + 1, accumulate);
      return C;
    };
    const sameA = () => {
      const C = new Matrix(m, m);
      gemmABtRaw(m, m, p, A.data, p + 3, A.data, p + 3, C.data, m);
      return C;
    };
    const want = onOneThread(() => [run(false), run(true), sameA()]);
    for (const threads of [2, 3]) {
      setKernelThreads(threads);
      const counted = countHelperCalls();
      const got = [run(false), run(true), sameA()];
      expect(counted.products).toBe(3 * (threads - 1));
      for (let t = 0; t < 3; t++) expect(firstDifference(got[t].data, want[t].data)).toBe(-1);
    }
  });

  it("split the lower blocks of a symmetric product and give one thread's bits", () => {
    // n x n x p / 2 above the threads' threshold; odd and even n, one n not a multiple of 4
    // (the kernel's edge columns), lda > p; the entries above the blocks stay untouched.
    const cases = [
      { n: 130, p: 11900, shared: true },
      { n: 257, p: 3100, shared: false },
      { n: 322, p: 2000, shared: true },
    ];
    const runs = cases.map(({ n, p, shared }) => {
      const A = randomMatrix(n, p + 3, n);
      const B = shared ? A : randomMatrix(n, p + 3, n + 1);
      return () => {
        const C = new Matrix(n, n + 2);
        C.data.fill(-7.5);
        gemmABtLowerBlocks(n, p, A.data, p + 3, B.data, p + 3, C.data, n + 2);
        return C;
      };
    });
    const wants = cases.map(({ n }, c) => {
      const want = onOneThread(runs[c]);
      // The blocks were written, and only they.
      expect(want.data[(n - 1) * (n + 2)]).not.toBe(-7.5);
      expect(want.data[n]).toBe(-7.5);
      expect(want.data[1 * (n + 2) + 64]).toBe(-7.5);
      return want;
    });
    // Thread counts outside, cases inside: each new helper thread costs a start-up.
    for (const threads of [2, 3]) {
      cases.forEach(({ n }, c) => {
        setKernelThreads(threads);
        const counted = countHelperCalls();
        const got = runs[c]();
        expect(counted.products).toBe(lowerStripBounds(n, threads, 64).length - 2);
        expect(counted.products).toBeGreaterThan(0);
        expect(firstDifference(got.data, wants[c].data)).toBe(-1);
      });
    }
  });

  it("use lower-block operands resident in the module's memory in place, even when the product grows the memory", () => {
    const arena = wasmArena() as WasmArena;
    const cases = [
      { n: 130, p: 11900, shared: true, grow: false },
      { n: 257, p: 3100, shared: false, grow: false },
      { n: 257, p: 3100, shared: false, grow: true },
    ].map(({ n, p, shared, grow }) => {
      const A = randomMatrix(n, p, n + (grow ? 50 : 5));
      const B = shared ? A : randomMatrix(n, p, n + (grow ? 51 : 6));
      const want = new Matrix(n, n);
      onOneThread(() => gemmABtLowerBlocks(n, p, A.data, p, B.data, p, want.data, n));
      return { n, p, shared, grow, A, B, want };
    });
    for (const threads of [1, 2]) {
      for (const { n, p, shared, grow, A, B, want } of cases) {
        const mark = arena.mark();
        try {
          if (grow) {
            // Fill the memory so that the operands end at its last bytes: the product's
            // own block (n x n) then grows it, detaching the views passed in.
            const free = Math.floor((arena.buffer.byteLength - arena.mark()) / 8);
            expect(arena.allocAll([free - 2 * n * p - 16])).not.toBeNull();
          }
          const [pa, pb] = arena.allocAll([n * p, shared ? 0 : n * p]) as number[];
          const a = arena.view(pa, n * p);
          a.set(A.data);
          const b = shared ? a : arena.view(pb, n * p);
          if (!shared) b.set(B.data);
          const size = arena.buffer.byteLength;
          const got = new Matrix(n, n);
          if (threads === 1) onOneThread(() => gemmABtLowerBlocks(n, p, a, p, b, p, got.data, n));
          else {
            setKernelThreads(threads);
            gemmABtLowerBlocks(n, p, a, p, b, p, got.data, n);
          }
          if (grow) expect(arena.buffer.byteLength).toBeGreaterThan(size);
          expect(firstDifference(got.data, want.data)).toBe(-1);
        } finally {
          arena.release(mark);
        }
      }
    }
  });

  it("bound the strips of the lower blocks at block multiples with about equal work", () => {
    for (const [n, parts] of [
      [794, 2],
      [794, 3],
      [2000, 8],
      [130, 2],
    ] as const) {
      const a = lowerStripBounds(n, parts, 64);
      expect(a[0]).toBe(0);
      expect(a[a.length - 1]).toBe(n);
      for (let h = 1; h < a.length; h++) expect(a[h]).toBeGreaterThan(a[h - 1]);
      for (let h = 1; h + 1 < a.length; h++) expect(a[h] % 64).toBe(0);
      const work = [(a[1] * a[1]) / 2];
      for (let h = 1; h + 1 < a.length; h++) work.push((a[h + 1] - a[h]) * a[h + 1]);
      const total = (n * n) / 2;
      // Every part within a block row's work of an even share (rounding to blocks).
      for (const w of work) expect(Math.abs(w - total / work.length)).toBeLessThan(64 * n * 1.01);
    }
    expect(lowerStripBounds(100, 2, 64)).toEqual([0, 64, 100]);
    expect(lowerStripBounds(60, 4, 64)).toEqual([0, 60]);
  });

  it("start the helper workers only when a computation first asks for them, and stop them all on one thread", () => {
    setKernelThreads(1);
    expect(kernelThreads()).toBe(1);
    expect(kernelHelpers()).toEqual([]);
    expect(runningKernelHelpers()).toBe(0);
    setKernelThreads(3);
    expect(kernelThreads()).toBe(3);
    expect(runningKernelHelpers()).toBe(0);
    expect(kernelHelpers()).toHaveLength(2);
    expect(runningKernelHelpers()).toBe(2);
    setKernelThreads(2);
    expect(runningKernelHelpers()).toBe(1);
    setKernelThreads(1);
    expect(runningKernelHelpers()).toBe(0);
  });

  it("rejects a thread count that is not an integer from 1 to 64", () => {
    for (const bad of [0, 1.5, -2, 65, Number.NaN]) {
      expect(() => setKernelThreads(bad)).toThrow(
        /number of threads must be an integer from 1 to 64/,
      );
    }
  });
});
