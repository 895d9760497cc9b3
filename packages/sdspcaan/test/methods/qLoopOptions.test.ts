/**
 * The Q-loop's options (methods/qLoopOptions.ts) are declared once: every method of the
 * family that has an option has that one spec, so its type, range, default and doc
 * cannot differ between methods.
 */
import { describe, expect, it } from "vitest";
import { graphWeightOption, lambdaCapOption } from "#internal/methods/qLoopOptions.js";
import { methodDescriptor } from "#internal/methods/registry.js";

const FAMILY = ["sdspca", "sdspca-lpp", "sdspcaan"] as const;

describe("the Q-loop's options", () => {
  const schemas = FAMILY.map((name) => methodDescriptor(name).options as Record<string, unknown>);

  it("are one spec per name across SDSPCA, SDSPCA-LPP and SDSPCAAN", () => {
    const names = new Set(schemas.flatMap((s) => Object.keys(s)));
    expect([...names].sort()).toEqual(
      [
        "k",
        "alpha",
        "beta",
        "delta",
        "m",
        "tol",
        "maxIter",
        "eps",
        "stopRule",
        "weighting",
        "solver",
        "seed",
        "lambdaCap",
      ].sort(),
    );
    for (const name of names) {
      const specs = new Set(schemas.filter((s) => name in s).map((s) => s[name]));
      expect({ name, specs: specs.size }).toEqual({ name, specs: 1 });
    }
  });

  it("declare delta once, with one doc, for SDSPCA-LPP and SDSPCAAN (not SDSPCA)", () => {
    const [sdspca, lpp, sdspcaan] = schemas;
    expect("delta" in sdspca).toBe(false);
    expect(lpp.delta).toBe(graphWeightOption);
    expect(sdspcaan.delta).toBe(graphWeightOption);
    expect(graphWeightOption.doc).toBe(
      'Weight of the graph term delta (a multiplier of the paper\'s trace scale unless weighting is "absolute").',
    );
    expect(sdspcaan.lambdaCap).toBe(lambdaCapOption);
  });
});
