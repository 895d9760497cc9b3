/**
 * Numerically hostile input to the library: option values and data scales at the
 * edges of double precision. Each ends in a ValidationError that names the user's
 * own option or data (never an internal routine's argument), a named warning, or a
 * correct result.
 */

import { smallData } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { zscoreStatistics } from "#internal/data/preprocess.js";
import { createMethod } from "#internal/methods/registry.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

const data = smallData(7);
const X = data.X;
const y = data.y;

function scaled(A: Matrix, s: number): Matrix {
  return new Matrix(
    A.rows,
    A.cols,
    A.data.map((v) => v * s),
  );
}

function standardised(A: Matrix): Matrix {
  const { center, scale } = zscoreStatistics(A);
  const out = new Matrix(A.rows, A.cols);
  for (let i = 0; i < A.rows; i++) {
    for (let j = 0; j < A.cols; j++) {
      out.data[i * A.cols + j] = (A.data[i * A.cols + j] - center[j]) / scale[j];
    }
  }
  return out;
}

/** The ValidationError `fn` throws (fails the test when it throws something else or nothing). */
function validationError(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error("expected a ValidationError, but nothing was thrown");
}

describe("option values beyond double precision", () => {
  for (const name of ["alpha", "beta", "delta"] as const) {
    it(`${name} = 1e305 names '${name}'`, () => {
      const model = createMethod("sdspcaan", { k: 4, m: 3, [name]: 1e305 });
      const err = validationError(() => model.fit(X, y));
      expect(err.argument).toBe(name);
      expect(err.message).toMatch(new RegExp(`'${name}' parameter of SDSPCAAN is too large`));
    });
  }

  it("alpha = Infinity is refused when the model is built", () => {
    const err = validationError(() => createMethod("sdspca", { k: 4, alpha: Infinity }));
    expect(err.argument).toBe("alpha");
    expect(err.message).toMatch(/must be a number in \[0, inf\)\. Got Infinity/);
  });

  it("lambdaCap = Infinity is refused naming lambdaCap", () => {
    const err = validationError(() => createMethod("sdspcaan", { k: 4, lambdaCap: Infinity }));
    expect(err.argument).toBe("lambdaCap");
  });
});

describe("data at the edges of double precision, without preprocessing", () => {
  for (const s of [1e200, 1e-200]) {
    it(`X x ${s} is refused naming X and its magnitude, for every kind of method`, () => {
      for (const method of ["pca", "sdspca", "sdspcaan", "lda"]) {
        const err = validationError(() =>
          createMethod(method, { k: 3, ...(method === "sdspcaan" ? { m: 3 } : {}) }).fit(
            scaled(X, s),
            y,
          ),
        );
        expect(err.argument).toBe("X");
        expect(err.message).toMatch(/largest centred \|value\| is .*outside \[1e-50, 1e\+50\]/);
        expect(err.message).not.toMatch(/every centred row is 0/);
      }
    });
  }

  it("X near the largest double (too large even to centre) is refused naming X", () => {
    // Every row at the largest doubles but the first at its negative: x - mean overflows.
    const big = new Matrix(X.rows, X.cols);
    for (let t = 0; t < big.data.length; t++) big.data[t] = (t < X.cols ? -1 : 1) * 1.7e308;
    const err = validationError(() => createMethod("pca", { k: 3 }).fit(big, y));
    expect(err.argument).toBe("X");
    expect(err.message).toMatch(/too large even to centre/);
  });

  it("truly constant data still gets the constant-data message", () => {
    const C = new Matrix(X.rows, X.cols, new Float64Array(X.rows * X.cols).fill(3));
    const err = validationError(() => createMethod("sdspca", { k: 3 }).fit(C, y));
    expect(err.message).toMatch(/not constant/);
  });
});

describe("standardisation makes the scale irrelevant", () => {
  for (const s of [1e200, 1e-200, 1e300]) {
    it(`z-scoring X x ${s} gives the same SDSPCAAN fit as z-scoring X`, () => {
      const ref = createMethod("sdspcaan", { k: 4, m: 3 }).fit(standardised(X), y);
      const Zs = standardised(scaled(X, s));
      for (const v of Zs.data) expect(Number.isFinite(v)).toBe(true);
      const fit = createMethod("sdspcaan", { k: 4, m: 3 }).fit(Zs, y);
      expect(fit.fitInfo.iterations).toBe(ref.fitInfo.iterations);
      expect(maxPrincipalAngle(fit.transform(Zs), ref.transform(standardised(X)))).toBeLessThan(
        1e-8,
      );
    });
  }
});

describe("results that depend on the units of X", () => {
  it("SDSPCAAN and PCAN warn when X is far from standardised, naming its RMS", () => {
    for (const method of ["sdspcaan", "pcan"]) {
      const raw = createMethod(method, { k: 3, m: 3 }).fit(scaled(standardised(X), 1000), y);
      expect(raw.fitInfo.warnings.map((w) => w.message).join("\n")).toMatch(
        /depends on the units of X .* RMS of its centred values is 9\d\d/,
      );
      const std = createMethod(method, { k: 3, m: 3 }).fit(standardised(X), y);
      expect(std.fitInfo.warnings.map((w) => w.message).join("\n")).not.toMatch(/units of X/);
    }
  });

  it("SDSPCA (no lambda) is unit-free and does not warn", () => {
    const a = createMethod("sdspca", { k: 3 }).fit(scaled(standardised(X), 1000), y);
    const b = createMethod("sdspca", { k: 3 }).fit(standardised(X), y);
    expect(a.fitInfo.warnings.map((w) => w.message).join("\n")).not.toMatch(/units of X/);
    expect(a.fitInfo.iterations).toBe(b.fitInfo.iterations);
    expect(
      maxPrincipalAngle(a.transform(scaled(standardised(X), 1000)), b.transform(standardised(X))),
    ).toBeLessThan(1e-8);
  });
});

describe("transform of data the model cannot project", () => {
  it("a projection that overflows names X and the row", () => {
    const model = createMethod("pca", { k: 3 }).fit(standardised(X), y);
    // Each value finite, but lined up with the first component so the sum overflows.
    const W = model.components;
    const big = new Matrix(2, X.cols);
    for (let j = 0; j < X.cols; j++) {
      big.data[j] = Math.sign(W.data[j * W.cols]) * 1.7e308;
      big.data[X.cols + j] = big.data[j];
    }
    const err = validationError(() => model.transform(big));
    expect(err.argument).toBe("X");
    expect(err.message).toMatch(/Row 0 of X \(counting from 0\): projecting it with PCA overflows/);
  });
});
