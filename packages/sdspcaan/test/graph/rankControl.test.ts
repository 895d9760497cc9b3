import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { DEFAULT_LAMBDA_CAP, rankControl } from "#internal/graph/rankControl.js";

describe("rank control of lambda", () => {
  it("doubles lambda when the c smallest eigenvalues sum above tol (fewer than c components)", () => {
    const r = rankControl({ eigenvalues: [0, 0.002, 0.3], clusters: 2, tol: 1e-3, lambda: 4 });
    expect(r).toEqual({
      action: "double",
      lambda: 8,
      capped: false,
      sumFirst: 0.002,
      sumFirstPlusOne: 0.302,
    });
  });

  it("halves lambda when c + 1 eigenvalues sum below tol (more than c components)", () => {
    const r = rankControl({ eigenvalues: [0, 1e-12, 2e-5], clusters: 2, tol: 1e-3, lambda: 4 });
    expect(r.action).toBe("halve");
    expect(r.lambda).toBe(2);
  });

  it("asks for the convergence test at exactly c components", () => {
    const r = rankControl({
      eigenvalues: [1e-15, 2e-15, 0.5, 0.7],
      clusters: 2,
      tol: 1e-3,
      lambda: 4,
    });
    expect(r.action).toBe("test");
    expect(r.lambda).toBe(4);
    expect(r.sumFirstPlusOne).toBeCloseTo(0.5, 12);
  });

  it("stops at the cap and reports it", () => {
    const up = { eigenvalues: [0.5, 1, 2], clusters: 1, tol: 1e-3 };
    expect(rankControl({ ...up, lambda: 2 ** 99 })).toMatchObject({
      lambda: 2 ** 100,
      capped: false,
    });
    expect(rankControl({ ...up, lambda: 2 ** 100 })).toMatchObject({
      action: "double",
      lambda: DEFAULT_LAMBDA_CAP,
      capped: true,
    });
    expect(rankControl({ ...up, lambda: 3, maxLambda: 5 })).toMatchObject({
      lambda: 5,
      capped: true,
    });
  });

  it("rejects bad input naming the argument, the range and the value", () => {
    const ok = { eigenvalues: [0, 1, 2], clusters: 2, tol: 1e-3, lambda: 1 };
    expect(() => rankControl({ ...ok, eigenvalues: [0, 1] })).toThrow(ValidationError);
    expect(() => rankControl({ ...ok, eigenvalues: [0, 1] })).toThrow(
      /'eigenvalues'.*at least clusters \+ 1 = 3 values. Got 2/,
    );
    expect(() => rankControl({ ...ok, eigenvalues: [0, 2, 1] })).toThrow(
      /ascending. Got 1 after 2/,
    );
    expect(() => rankControl({ ...ok, eigenvalues: [0, Number.NaN, 1] })).toThrow(/finite.*NaN/);
    expect(() => rankControl({ ...ok, clusters: 0 })).toThrow(/'clusters'.*\[1, inf\].*Got 0/);
    expect(() => rankControl({ ...ok, tol: 0 })).toThrow(/'tol'.*\(0, inf\). Got 0/);
    expect(() => rankControl({ ...ok, lambda: 0 })).toThrow(/'lambda'.*Got 0/);
    expect(() => rankControl({ ...ok, lambda: 2 ** 101 })).toThrow(/'lambda'.*maxLambda/);
    expect(() => rankControl({ ...ok, maxLambda: Number.POSITIVE_INFINITY })).toThrow(
      /'maxLambda'.*Got Infinity/,
    );
  });
});
