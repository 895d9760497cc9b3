/**
 * The contract as exported checks (`contractChecks` of sdspcaan/methods), which a
 * plug-in's own tests run: every built-in method passes them, and a method that
 * breaks one rule fails that check with a message saying what broke.
 */
import { Estimator, Matrix, type TrainingData } from "sdspcaan";
import {
  type CoreFitResult,
  contractChecks,
  defineMethod,
  type FitContext,
  registerMethod,
  unregisterMethod,
} from "sdspcaan/methods";
import { afterEach, describe, expect, it } from "vitest";

// contract.test.ts holds every built-in to the same rules; these four cover the
// variants the checks must allow (unsupervised, c from the labels, k <= c - 1, W of c columns).
describe.each(["pca", "pcan", "lda", "jpcda"])("contractChecks(%s)", (name) => {
  for (const check of contractChecks(name)) it(check.name, check.run);
});

/** How a test method goes wrong. */
type Flaw = "none" | "row-dependent" | "random";

const OPTIONS = {
  k: { type: "integer", min: 1, default: 2, doc: "Components." },
} as const;

function flawedMethod(name: string, flaw: Flaw) {
  class Flawed extends Estimator<{ k: number }> {
    constructor(options: Partial<{ k: number }> = {}) {
      super(DESCRIPTOR, options);
    }

    protected fitCore(data: TrainingData, _ctx: FitContext): CoreFitResult {
      const W = Matrix.identity(data.d, this.params.k);
      if (flaw === "random") W.data[0] = 1 + Math.random();
      return {
        components: W,
        iterations: 0,
        converged: true,
        stopReason: "closed-form",
        solver: "test",
        details: {},
      };
    }

    override transform(X: Parameters<Estimator["transform"]>[0]): Matrix {
      const P = super.transform(X);
      // A transform that depends on how many rows it is given.
      if (flaw === "row-dependent") P.data[0] += P.rows;
      return P;
    }
  }
  const DESCRIPTOR = defineMethod({
    name,
    displayName: `Flawed ${flaw}`,
    summary: "A test method that breaks one rule of the contract.",
    supervised: false,
    options: OPTIONS,
    create: (options) => new Flawed(options),
  });
  return DESCRIPTOR;
}

function failures(name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const check of contractChecks(name)) {
    try {
      check.run();
    } catch (err) {
      out[check.name] = (err as Error).message;
    }
  }
  return out;
}

describe("contractChecks on a method that breaks the contract", () => {
  afterEach(() => {
    unregisterMethod("flawed");
  });

  it("passes every check of a method that keeps it", () => {
    registerMethod(flawedMethod("flawed", "none"));
    expect(failures("flawed")).toEqual({});
  });

  it("fails the row-stability check of a transform that depends on its rows", () => {
    registerMethod(flawedMethod("flawed", "row-dependent"));
    const failed = failures("flawed");
    expect(
      failed["Flawed row-dependent: transforms any rows, in any order, as the full transform does"],
    ).toMatch(/^transform of rows 5, 0, n - 1, 5: entry \(0, 0\) is /);
  });

  it("fails the determinism check of a method that draws unseeded random numbers", () => {
    registerMethod(flawedMethod("flawed", "random"));
    expect(
      failures("flawed")["Flawed random: gives the same bits for the same data and options"],
    ).toMatch(/^two fits: entry \(\d+, 0\) is /);
  });

  it("names the method it cannot find", () => {
    expect(() => contractChecks("not-registered")).toThrow(/Unknown method "not-registered"/);
  });
});
