import { methodNames } from "sdspcaan";
import { describe, expect, it } from "vitest";
import {
  enumerateGrid,
  hyperparameterGrid,
  MULTIPLIER_GRID,
  methodGrid,
  parseGridSpec,
} from "#internal/protocol/grids.js";

describe("presets", () => {
  it("paper: a, b, c each over {0.01, ..., 100} where the method has them", () => {
    expect(hyperparameterGrid("sdspcaan", "paper")).toHaveLength(125);
    expect(hyperparameterGrid("sdspca-lpp", "paper")).toHaveLength(125);
    expect(hyperparameterGrid("sdspca", "paper")).toHaveLength(25);
    expect(hyperparameterGrid("jpcda", "paper")).toEqual(MULTIPLIER_GRID.map((eta) => ({ eta })));
    for (const m of ["baseline", "pca", "pcan", "spcan", "slnp", "lda", "lpp"]) {
      expect(hyperparameterGrid(m, "paper")).toEqual([{}]);
    }
  });

  it("authors: c tuned with a = b = 1, SDSPCA untuned, JPCDA eta tuned", () => {
    expect(hyperparameterGrid("sdspcaan", "authors")).toEqual(
      MULTIPLIER_GRID.map((delta) => ({ alpha: 1, beta: 1, delta })),
    );
    expect(hyperparameterGrid("sdspca", "authors")).toEqual([{ alpha: 1, beta: 1 }]);
    expect(hyperparameterGrid("jpcda", "authors")).toHaveLength(5);
  });

  it("quick: a small grid", () => {
    expect(hyperparameterGrid("sdspcaan", "quick")).toEqual([
      { alpha: 1, beta: 1, delta: 0.1 },
      { alpha: 1, beta: 1, delta: 1 },
      { alpha: 1, beta: 1, delta: 10 },
    ]);
  });

  it("covers every method name and rejects unknown ones", () => {
    for (const m of methodNames()) expect(hyperparameterGrid(m, "quick").length).toBeGreaterThan(0);
    expect(() => hyperparameterGrid("sdspcan")).toThrow(/'method' must be one of baseline, pca/);
    expect(() => methodGrid("pca", "fast" as never)).toThrow(/preset must be one of "paper"/);
  });
});

describe("enumerateGrid", () => {
  it("varies the first parameter slowest, in alpha, beta, delta order", () => {
    const points = enumerateGrid({ delta: [1, 2], alpha: [0.1, 10] });
    expect(points).toEqual([
      { alpha: 0.1, delta: 1 },
      { alpha: 0.1, delta: 2 },
      { alpha: 10, delta: 1 },
      { alpha: 10, delta: 2 },
    ]);
    expect(Object.keys(points[0])).toEqual(["alpha", "delta"]);
    expect(enumerateGrid({})).toEqual([{}]);
  });
});

describe("custom grids", () => {
  it("parses the compact form", () => {
    expect(parseGridSpec("alpha=0.1,1;beta=1;delta=0.01,0.1,1")).toEqual({
      alpha: [0.1, 1],
      beta: [1],
      delta: [0.01, 0.1, 1],
    });
    expect(parseGridSpec(" delta = 1e-2 , 1 ; ")).toEqual({ delta: [0.01, 1] });
  });

  it("parses JSON, flat or per method", () => {
    expect(parseGridSpec('{"delta": [0.1, 1], "beta": 1}')).toEqual({ delta: [0.1, 1], beta: [1] });
    const per = parseGridSpec('{"sdspcaan": {"delta": [0.1]}, "jpcda": {"eta": [1, 10]}}');
    expect(methodGrid("sdspcaan", per)).toEqual({ delta: [0.1] });
    expect(methodGrid("jpcda", per)).toEqual({ eta: [1, 10] });
    expect(methodGrid("sdspca", per)).toEqual({});
  });

  it("applies a flat grid to the parameters each method has", () => {
    const g = parseGridSpec("alpha=1;delta=0.1,1;eta=5");
    expect(hyperparameterGrid("sdspca", g)).toEqual([{ alpha: 1 }]);
    expect(hyperparameterGrid("sdspcaan", g)).toEqual([
      { alpha: 1, delta: 0.1 },
      { alpha: 1, delta: 1 },
    ]);
    expect(hyperparameterGrid("jpcda", g)).toEqual([{ eta: 5 }]);
    expect(hyperparameterGrid("pca", g)).toEqual([{}]);
  });

  it.each([
    ["gamma=1", /unknown parameter 'gamma'.*alpha, beta, delta, eta/],
    ["delta=1,x", /value "x" of 'delta' is not a finite number/],
    ["delta=1,1", /'delta' lists 1 twice/],
    ["delta=-1", /finite number in \[0, inf\)\. Got -1/],
    ["delta", /has no '='/],
    ["delta=1;delta=2", /names 'delta' twice/],
    ["delta=", /value "" of 'delta'/],
    ["{bad json", /not valid JSON/],
    ["", /non-empty string/],
  ])("rejects %j", (text, message) => {
    expect(() => parseGridSpec(text)).toThrow(message);
  });
});
