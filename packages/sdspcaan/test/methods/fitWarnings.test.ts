/**
 * The warnings of a fit (fitInfo.warnings): a fit that stops at maxIter, at the lambda
 * cap or with lambda cycling says so with its numbers and what to do; a fit that
 * converges says nothing; the check for a cycle; warnings saved in model files and
 * read back, texts of older files read with their codes.
 */
import fc from "fast-check";
import { readDataFile } from "sdspcaan-test-support";
import { beforeAll, describe, expect, it } from "vitest";
import { ModelFormatError } from "#internal/core/errors.js";
import type { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { Standardizer } from "#internal/linalg/standardizer.js";
import { MODEL_VERSION } from "#internal/methods/estimator.js";
import type { FitWarning } from "#internal/methods/fitReport.js";
import {
  FIT_WARNING_CODES,
  lambdaCycle,
  shownNumber,
  warningFromText,
} from "#internal/methods/fitWarnings.js";
import { JPCDA } from "#internal/methods/jpcda.js";
import { PCAN } from "#internal/methods/pcan.js";
import { loadModel } from "#internal/methods/registry.js";
import { SDSPCA } from "#internal/methods/sdspca.js";
import { SDSPCAAN } from "#internal/methods/sdspcaan.js";
import { SDSPCALPP } from "#internal/methods/sdspcaLpp.js";
import { SLNP } from "#internal/methods/slnp.js";
import { SPCAN } from "#internal/methods/spcan.js";
import { blobs } from "../helpers/blobs.js";
import { inputs } from "../helpers/properties.js";

/** Standardised blobs: no "unit-scale" warning. */
function standardBlobs(seed: number): { X: Matrix; y: number[] } {
  const { X, y } = blobs(seed);
  return { X: Standardizer.fit(X).transform(X), y };
}

/** Blobs with a singleton class, which the label term can never split off. */
function singletonBlobs(): { X: Matrix; y: number[] } {
  const { X, y } = blobs(7, 30, 20, 3);
  y[0] = 99;
  return { X, y };
}

const codes = (ws: readonly FitWarning[]) => ws.map((w) => w.code);
const only = (ws: readonly FitWarning[], code: string) => {
  const found = ws.filter((w) => w.code === code);
  expect(found).toHaveLength(1);
  return found[0];
};

describe("lambdaCycle", () => {
  const powers = (exponents: readonly number[]) => exponents.map((e) => 2 ** e);

  it("finds lambda alternating after its climb, from where it started", () => {
    fc.assert(
      fc.property(
        inputs({ top: [2, 30], rounds: [2, 12], half: fc.boolean() }),
        ({ top, rounds, half }) => {
          // Doubling up to 2^top, then halving and doubling for good (Musk1's trace).
          const climb = Array.from({ length: top }, (_, i) => i + 1);
          const tail = Array.from({ length: rounds }, () => [top - 1, top]).flat();
          const trace = powers([...climb, ...tail, ...(half ? [top - 1] : [])]);
          expect(lambdaCycle(trace)).toEqual({
            since: top - 1,
            period: 2,
            low: 2 ** (top - 1),
            high: 2 ** top,
          });
        },
      ),
    );
  });

  it("finds longer periods, and none in a trace that settles, climbs or has not repeated thrice", () => {
    expect(lambdaCycle(powers([0, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1]))).toEqual({
      since: 2,
      period: 4,
      low: 2,
      high: 8,
    });
    expect(lambdaCycle([])).toBeNull();
    expect(lambdaCycle(powers([1, 2, 3, 4, 5, 6, 7, 8]))).toBeNull();
    expect(lambdaCycle(powers([1, 2, 3, 4, 4, 4, 4, 4, 4, 4]))).toBeNull();
    // Alternated, then settled: the fit's end is what counts.
    expect(lambdaCycle(powers([1, 2, 1, 2, 1, 2, 1, 2, 2, 2, 2, 2, 2, 2]))).toBeNull();
    expect(lambdaCycle(powers([1, 2, 3, 4, 3, 4, 3]))).toBeNull();
    expect(lambdaCycle(powers([1, 2, 3, 4, 3, 4, 3, 4]))?.period).toBe(2);
  });

  it("reports only a tail that repeats with its period and takes two values or more", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }), (exponents) => {
        const trace = powers(exponents);
        const cycle = lambdaCycle(trace);
        if (cycle === null) return;
        const tail = trace.slice(cycle.since - 1);
        expect(tail.length).toBeGreaterThanOrEqual(3 * cycle.period);
        tail.forEach((v, i) => {
          if (i >= cycle.period) expect(v).toBe(tail[i - cycle.period]);
        });
        expect(Math.min(...tail)).toBe(cycle.low);
        expect(Math.max(...tail)).toBe(cycle.high);
        expect(cycle.low).toBeLessThan(cycle.high);
      }),
    );
  });
});

describe("a fit that stops at maxIter", () => {
  it("says where the stop test stood (SDSPCA)", () => {
    const { X, y } = standardBlobs(1);
    const model = new SDSPCA({ k: 3, maxIter: 2 }).fit(X, y);
    const info = model.fitInfo;
    expect(info.stopReason).toBe("max-iterations");
    expect(codes(info.warnings)).toEqual(["max-iterations"]);
    const w = info.warnings[0];
    const change = info.details.iterateChange[1];
    expect(w.values).toEqual({ maxIter: 2, tol: 0.001, change });
    expect(w.message).toBe(
      `SDSPCA stopped at maxIter = 2 without converging: the change of Q (stopRule "aligned") was ${shownNumber(change)} at the last iteration, against tol = 0.001. Raise maxIter, or loosen tol if a change of that size is small enough for your use.`,
    );
  });

  it("says where the stop test stood (SLNP, JPCDA)", () => {
    const { X, y } = standardBlobs(1);
    const slnp = new SLNP({ k: 3, maxIter: 1 }).fit(X, y).fitInfo;
    expect(slnp.stopReason).toBe("max-iterations");
    expect(only(slnp.warnings, "max-iterations").values).toEqual({
      maxIter: 1,
      tol: new SLNP().params.tol,
      change: slnp.details.changeTrace[0],
    });
    const jpcda = new JPCDA({ k: 3, maxIter: 1 }).fit(X, y).fitInfo;
    expect(jpcda.stopReason).toBe("max-iterations");
    const w = only(jpcda.warnings, "max-iterations");
    const J1 = jpcda.objective[0];
    const J0 = jpcda.details.initialObjective;
    expect(w.values.change).toBe(Math.abs(J1 - J0) / Math.abs(J1));
    expect(w.message).toMatch(
      /^JPCDA stopped at maxIter = 1 without converging: the relative change of the objective was /,
    );
  });

  it("says when the graph kept the stop test from running (SDSPCAAN, SPCAN)", () => {
    const { X, y } = singletonBlobs();
    const q = new SDSPCAAN({ k: 3, maxIter: 3 }).fit(X, y).fitInfo;
    expect(q.lambdaTrace).toEqual([2, 4, 8]);
    const wq = only(q.warnings, "max-iterations");
    expect(wq.values).toEqual({
      maxIter: 3,
      tol: 0.001,
      change: q.details.iterateChange[2],
      lambda: 8,
      lastTested: 0,
    });
    expect(wq.message).toContain(
      "the graph did not have exactly c = 4 components at the end (lambda 8), so the stop test never ran;",
    );
    expect(wq.message).toMatch(/Raise maxIter, or change the number of neighbours m\.$/);
    const p = new SPCAN({ k: 3, maxIter: 3 }).fit(X, y).fitInfo;
    const wp = only(p.warnings, "max-iterations");
    expect(wp.values).toEqual({ maxIter: 3, tol: 0.001, lambda: 8 });
    expect(wp.message).toBe(
      "SPCAN stopped at maxIter = 3 without converging: the graph did not have exactly c = 4 components at the end (lambda 8), and the fit stops only once it has. Raise maxIter, or change the number of neighbours m.",
    );
  });
});

describe("a fit that converges", () => {
  it("carries no warning", () => {
    const { X, y } = standardBlobs(1);
    for (const model of [new SDSPCA({ k: 3 }), new SDSPCAAN({ k: 3 }), new SPCAN({ k: 3 })]) {
      const info = model.fit(X, y).fitInfo;
      expect(info.stopReason).toBe("converged");
      expect(info.warnings).toEqual([]);
    }
  });
});

describe("the lambda cap", () => {
  it("is named with the iteration it was reached at (SPCAN stops there)", () => {
    const { X, y } = singletonBlobs();
    const info = new SPCAN({ k: 3, lambdaCap: 1024 }).fit(X, y).fitInfo;
    expect(info.stopReason).toBe("lambda-cap");
    const w = only(info.warnings, "lambda-cap");
    expect(w.values).toEqual({ lambdaCap: 1024, iteration: info.iterations, clusters: 4 });
    expect(w.message).toMatch(
      /^lambda reached its cap 1024 at iteration 11 while the graph still had fewer than c = 4 components; the fit stopped there\./,
    );
    expect(codes(info.warnings)).not.toContain("max-iterations");
  });
});

describe("the warnings' mechanics are those of the method that gives them", () => {
  const smallClasses =
    "4 classes have fewer than m + 1 = 16 training samples: 0 (9), 1 (10), 2 (10), 99 (1). Their rows need cross-class neighbours, ";
  const avoid =
    "A number of neighbours m below the smallest class's size avoids it (unless a class has a single sample).";

  it("PCAN's lambda cap speaks of its own clusters, SPCAN's and SDSPCAAN's of the label term", () => {
    const { X, y } = singletonBlobs();
    const pcan = new PCAN({ k: 3, clusters: 4, lambdaCap: 1 }).fit(X, y).fitInfo;
    expect(only(pcan.warnings, "lambda-cap").message).toBe(
      "lambda reached its cap 1 at iteration 1 while the graph still had fewer than c = 4 components; the fit stopped there. The graph's rank term cannot cut it into c clusters (groups of samples joined by their neighbours across them do this); a smaller number of neighbours m may let the graph reach c components.",
    );
    const label =
      "The label term cannot split some class off the others (a class of a single training sample never can be; one of fewer than m + 1 may need lambda above the cap); a smaller number of neighbours m may let the graph reach c components.";
    const spcan = new SPCAN({ k: 3, lambdaCap: 1024 }).fit(X, y).fitInfo;
    expect(only(spcan.warnings, "lambda-cap").message).toBe(
      `lambda reached its cap 1024 at iteration 11 while the graph still had fewer than c = 4 components; the fit stopped there. ${label}`,
    );
    const sdspcaan = new SDSPCAAN({ k: 3, lambdaCap: 4 }).fit(X, y).fitInfo;
    expect(only(sdspcaan.warnings, "lambda-cap").message).toBe(
      `lambda reached its cap 4 at iteration 3 while the graph still had fewer than c = 4 components; the fit stops when Q settles. ${label}`,
    );
    expect(only(sdspcaan.warnings, "small-classes").message).toBe(
      `${smallClasses}and a class of a single sample (99) has only those, at weights lambda does not shrink: the graph cannot reach c components, and lambda grows toward its cap. ${avoid}`,
    );
  });

  it("small classes without a singleton: lambda shrinks their cross-class weights and the fit converges", () => {
    // Three classes of 10 (< m + 1 = 16): lambda ends far below the cap.
    const { X, y } = blobs(7, 30, 20, 3);
    const Xs = Standardizer.fit(X).transform(X);
    for (const Method of [SDSPCAAN, SPCAN]) {
      const info = new Method({ k: 3 }).fit(Xs, y).fitInfo;
      expect([info.stopReason, info.converged]).toEqual(["converged", true]);
      expect(codes(info.warnings)).toEqual(["small-classes"]);
      expect(only(info.warnings, "small-classes").message).toBe(
        "3 classes have fewer than m + 1 = 16 training samples: 0 (10), 1 (10), 2 (10). Their rows need cross-class neighbours, so the graph keeps edges between classes and lambda grows, shrinking their weights, until the rank control counts c components (the c smallest Laplacian eigenvalues summing to at most tol) or lambda reaches its cap. A number of neighbours m below the smallest class's size avoids it (unless a class has a single sample).",
      );
    }
  });

  it("SDSPCA-LPP's small classes speak of its fixed graph, not of lambda", () => {
    const { X, y } = singletonBlobs();
    const info = new SDSPCALPP({ k: 3 }).fit(X, y).fitInfo;
    const w = only(info.warnings, "small-classes");
    expect(w.message).toBe(
      `${smallClasses}which the fixed graph gives them, so its locality term draws them toward other classes. ${avoid}`,
    );
    expect(w.values).toEqual({ classes: 4, m: 15 });
    // One class: counted in the singular.
    const one = new SDSPCALPP({ k: 3, m: 5 }).fit(X, y).fitInfo;
    expect(only(one.warnings, "small-classes").message).toMatch(
      /^1 class has fewer than m \+ 1 = 6 training samples: 99 \(1\)\. /,
    );
  });
});

describe("a lambda that cycles", () => {
  let X: Matrix;
  let y: number[];
  beforeAll(async () => {
    // 200 rows of Musk1: SDSPCAAN's graph flips between fewer and more than c = 2
    // components from iteration 16 on, as on all of Musk1 (k = 10) from iteration 17.
    const ds = await readDataFile("Musk1.mat");
    const rows = new Random(3).permutation(ds.X.rows).slice(0, 200);
    const part = ds.X.selectRows(rows);
    X = Standardizer.fit(part).transform(part);
    y = Array.from(rows, (i) => (ds.y as number[])[i]);
  });

  it("is named with its values, and the advice not to raise maxIter", () => {
    const info = new SDSPCAAN({ k: 5, maxIter: 22 }).fit(X, y).fitInfo;
    expect(info.stopReason).toBe("max-iterations");
    expect(info.lambdaTrace.slice(14)).toEqual([
      2 ** 15,
      2 ** 16,
      2 ** 17,
      2 ** 16,
      2 ** 17,
      2 ** 16,
      2 ** 17,
      2 ** 16,
    ]);
    expect(codes(info.warnings)).toEqual(["max-iterations", "lambda-cycle"]);
    const [stop, cycle] = info.warnings;
    expect(stop.message).toMatch(
      /so the stop test never ran; .* more iterations would not help\.$/,
    );
    expect(cycle.values).toEqual({
      since: 16,
      period: 2,
      lambdaLow: 65536,
      lambdaHigh: 131072,
      clusters: 2,
    });
    expect(cycle.message).toBe(
      "SDSPCAAN's lambda cycled between 65536 and 131072 (every 2 iterations from iteration 16 on): the rank control doubled it while the graph had fewer than c = 2 components and halved it while it had more, never finding exactly c, which the fit needs to stop. Change the number of neighbours m or the graph weight delta, or set lambdaCap = 65536 so that lambda stays there and the fit can stop.",
    );
  });

  it("ends as its warning says with lambdaCap at the cycle's lower value", () => {
    const info = new SDSPCAAN({ k: 5, maxIter: 60, lambdaCap: 65536 }).fit(X, y).fitInfo;
    expect(info.stopReason).toBe("lambda-cap");
    expect(codes(info.warnings)).toEqual(["lambda-cap"]);
  });
});

describe("warnings in model files", () => {
  it("are saved and read back as they were", () => {
    const { X, y } = singletonBlobs();
    const model = new SDSPCAAN({ k: 3, maxIter: 3 }).fit(X, y);
    const json = JSON.parse(JSON.stringify(model.toJSON()));
    expect(json.version).toBe(MODEL_VERSION);
    expect(MODEL_VERSION).toBe(4);
    expect(json.fitInfo.warnings).toEqual(model.fitInfo.warnings);
    expect(codes(json.fitInfo.warnings)).toEqual(["small-classes", "unit-scale", "max-iterations"]);
    expect(loadModel(json).fitInfo.warnings).toEqual(model.fitInfo.warnings);
    // A number JSON could not write (null) reads back as null.
    json.fitInfo.warnings[2].values.change = null;
    expect(loadModel(json).fitInfo.warnings[2].values.change).toBeNull();
  });

  it("of format versions 1 and 2 (texts) are read with the codes their words show", () => {
    const { X, y } = singletonBlobs();
    const json = new SDSPCAAN({ k: 3, lambdaCap: 64 }).fit(X, y).toJSON();
    const texts = json.fitInfo.warnings.map((w) => w.message);
    const old = { ...json, version: 2, fitInfo: { ...json.fitInfo, warnings: [...texts, "x"] } };
    const loaded = loadModel(old).fitInfo.warnings;
    expect(loaded).toEqual([
      ...json.fitInfo.warnings.map((w) => ({ ...w, values: {} })),
      { code: "other", message: "x", values: {} },
    ]);
    expect(codes(loaded)).toEqual(["small-classes", "unit-scale", "lambda-cap", "other"]);
    // The caller's object is left as it was.
    expect(old.fitInfo.warnings[0]).toBe(texts[0]);
    // Texts in a version 3 file are refused, naming the field.
    const bad = { ...json, fitInfo: { ...json.fitInfo, warnings: ["x"] } };
    expect(() => loadModel(bad)).toThrow(ModelFormatError);
  });

  it("of the texts earlier versions wrote, each has its code", () => {
    const earlier: Array<[string, string]> = [
      [
        "lambda reached its cap 1024 at iteration 12 with the graph still having fewer than c = 4 components.",
        "lambda-cap",
      ],
      [
        "LOBPCG did not reach its tolerance on Z within 2000 iterations (largest residual 1.00e-3); the iteration continued with the best Ritz vectors.",
        "eigensolver-tolerance",
      ],
      [
        '2 class(es) have fewer than m + 1 = 16 training samples: "a" (3), "b" (4). Their rows need cross-class neighbours.',
        "small-classes",
      ],
      ["SDSPCAAN's result depends on the units of X (lambda starts at 1 ...", "unit-scale"],
      ["k = 20 exceeds the numerical rank 19 of the centred training data; ...", "k-above-rank"],
      ["k = 2 is below c - 1 = 4: W = Q V has 5 columns but rank at most 2.", "k-below-classes"],
      ["The between-class scatter has numerical rank 1 < k = 2 (...)", "between-class-rank"],
      ["pcaDimensions = 50 exceeds the numerical rank 40 of ...", "pca-dimensions-above-rank"],
      [
        "3 sample(s) had all 5 nearest same-class neighbours at distance 0 in ...",
        "tied-neighbours",
      ],
      ["2 training sample(s) have zero degree (every heat weight ...", "isolated-samples"],
    ];
    for (const [text, code] of earlier) expect(warningFromText(text).code).toBe(code);
    expect(FIT_WARNING_CODES).toEqual(expect.arrayContaining(earlier.map(([, c]) => c)));
  });
});
