import { ValidationError } from "sdspcaan";
import { describe, expect, it } from "vitest";
import {
  chiSquareTails,
  fTails,
  logGamma,
  normalCdf,
  normalTails,
  regularizedBeta,
  regularizedGamma,
} from "#internal/stats/distributions.js";
import { expectClose, statisticsFixture } from "./fixture.js";

const { distributions } = statisticsFixture;
// Shapes up to 250 here: the prefactor's logarithms cost a few hundred ulps at most.
const REL = 1e-12;

describe("special functions against SciPy", () => {
  it("logGamma matches scipy.special.gammaln", () => {
    for (const c of distributions.logGamma) {
      // ln Gamma is 0 at 1 and 2: compare absolutely there.
      expectClose(logGamma(c.x), c.value, REL, `logGamma(${c.x})`, 1e-15);
    }
  });

  it("regularizedGamma matches gammainc and gammaincc, both tails", () => {
    for (const c of distributions.gamma) {
      const t = regularizedGamma(c.a, c.x);
      expectClose(t.lower, c.p, REL, `P(${c.a}, ${c.x})`);
      expectClose(t.upper, c.q, REL, `Q(${c.a}, ${c.x})`);
    }
  });

  it("regularizedBeta matches betainc and betaincc, both tails", () => {
    for (const c of distributions.beta) {
      const t = regularizedBeta(c.a, c.b, c.x);
      expectClose(t.lower, c.i, REL, `I_${c.x}(${c.a}, ${c.b})`);
      expectClose(t.upper, c.complement, REL, `1 - I_${c.x}(${c.a}, ${c.b})`);
    }
  });
});

describe("distribution tails against SciPy", () => {
  it("normalTails matches norm.cdf and norm.sf, deep in both tails", () => {
    for (const c of distributions.normal) {
      const t = normalTails(c.z);
      expectClose(t.lower, c.cdf, REL, `Phi(${c.z})`);
      expectClose(t.upper, c.sf, REL, `1 - Phi(${c.z})`);
      expect(normalCdf(c.z)).toBe(t.lower);
    }
  });

  it("chiSquareTails matches chi2.cdf and chi2.sf", () => {
    for (const c of distributions.chi2) {
      const t = chiSquareTails(c.x, c.df);
      expectClose(t.lower, c.cdf, REL, `chi2.cdf(${c.x}, ${c.df})`);
      expectClose(t.upper, c.sf, REL, `chi2.sf(${c.x}, ${c.df})`);
    }
  });

  it("fTails matches f.cdf and f.sf", () => {
    for (const c of distributions.f) {
      const t = fTails(c.f, c.df1, c.df2);
      expectClose(t.lower, c.cdf, REL, `f.cdf(${c.f}, ${c.df1}, ${c.df2})`);
      expectClose(t.upper, c.sf, REL, `f.sf(${c.f}, ${c.df1}, ${c.df2})`);
    }
  });
});

describe("identities and edges", () => {
  it("the two tails add to 1 and the normal is symmetric", () => {
    for (const z of [-6, -1.3, -0.2, 0, 0.7, 2.5, 9]) {
      const t = normalTails(z);
      expect(t.lower + t.upper).toBeCloseTo(1, 15);
      expect(normalTails(-z).lower).toBe(t.upper);
    }
  });

  it("chi-square with 2 df is the exponential distribution with mean 2", () => {
    for (const x of [0.1, 1, 5, 40]) {
      expectClose(chiSquareTails(x, 2).upper, Math.exp(-x / 2), 1e-14, `chi2.sf(${x}, 2)`);
    }
  });

  it("F with (1, df2) is the square of Student's t: F(1, 1) is the Cauchy case", () => {
    // P(|T| > t) for Cauchy = 1 - (2/pi) atan(t); F = t^2.
    for (const t of [0.3, 1, 4, 50]) {
      const expected = 1 - (2 / Math.PI) * Math.atan(t);
      expectClose(fTails(t * t, 1, 1).upper, expected, 1e-13, `F(1,1) at ${t * t}`);
    }
  });

  it("handles the ends of the support", () => {
    expect(chiSquareTails(0, 3)).toEqual({ lower: 0, upper: 1 });
    expect(fTails(0, 2, 5)).toEqual({ lower: 0, upper: 1 });
    expect(fTails(Number.POSITIVE_INFINITY, 2, 5)).toEqual({ lower: 1, upper: 0 });
    expect(regularizedGamma(2, Number.POSITIVE_INFINITY)).toEqual({ lower: 1, upper: 0 });
    expect(regularizedBeta(2, 3, 1)).toEqual({ lower: 1, upper: 0 });
    expect(normalTails(Number.NEGATIVE_INFINITY).lower).toBe(0);
  });

  it("refuses arguments outside the domain, naming them", () => {
    expect(() => logGamma(0)).toThrow(ValidationError);
    expect(() => regularizedGamma(-1, 2)).toThrow(/'a' must be a positive finite number/);
    expect(() => regularizedGamma(1, -2)).toThrow(/'x' must be non-negative/);
    expect(() => regularizedBeta(1, 1, 1.5)).toThrow(/'x' must be in \[0, 1\]/);
    expect(() => regularizedBeta(1, 1, 0.3, 0.5)).toThrow(/'y' must be 1 - x/);
    expect(() => chiSquareTails(Number.NaN, 2)).toThrow(/'x' must be a number/);
    expect(() => fTails(1, 0, 3)).toThrow(/'df1'/);
  });
});
