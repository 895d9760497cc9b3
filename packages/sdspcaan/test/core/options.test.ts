/** The "did you mean" of option names: only a plausible typo of an option the method has. */
import { describe, expect, it } from "vitest";
import { closestName } from "#internal/core/options.js";

describe("closestName", () => {
  it.each([
    ["kk", ["k"], "k"],
    ["alpah", ["alpha", "beta", "delta"], "alpha"],
    ["neighbors", ["k", "neighbours"], "neighbours"],
    ["maxiter", ["maxIter", "tol"], "maxIter"],
    ["m", ["k", "neighbours"], null],
    ["delta", ["k", "alpha", "beta"], null],
    ["bogus", ["k", "eps"], null],
  ])("%s among %j -> %s", (given, names, expected) => {
    expect(closestName(given, names)).toBe(expected);
  });
});
