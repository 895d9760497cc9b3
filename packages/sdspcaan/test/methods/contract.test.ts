/**
 * One contract suite run over every registered method (scikit-learn's common
 * checks): a method added to the registry is tested the day it is added.
 */
import { describe, expect, it } from "vitest";
import { AbortError, NotFittedError, ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { gaussianClasses } from "#internal/methods/contractChecks.js";
import { MODEL_VERSION } from "#internal/methods/estimator.js";
import type { FitProgress } from "#internal/methods/fitReport.js";
import {
  createMethod,
  loadModel,
  methodDescriptor,
  methodNames,
} from "#internal/methods/registry.js";

/** Three well-separated Gaussian classes in 12 dimensions, 14 samples each. */
const dataset = gaussianClasses;

/** k used for each method in the contract checks (small, valid for n = 42, c = 3). */
const K = 2;

function expectSameMatrix(a: Matrix, b: Matrix): void {
  expect(a.rows).toBe(b.rows);
  expect(a.cols).toBe(b.cols);
  expect(Array.from(a.data)).toEqual(Array.from(b.data));
}

const names = methodNames();

describe("registry", () => {
  it("knows every method of the paper and the extras", () => {
    expect(names).toEqual([
      "baseline",
      "pca",
      "sdspca",
      "pcan",
      "spcan",
      "sdspca-lpp",
      "sdspcaan",
      "jpcda",
      "slnp",
      "lda",
      "lpp",
    ]);
    for (const name of names) {
      expect(methodDescriptor(name.toUpperCase().replace(/-/g, "_")).name).toBe(name);
    }
  });

  it("rejects an unknown method, listing the known ones", () => {
    // @ts-expect-error: a misspelt name does not compile either
    expect(() => createMethod("sdpsca")).toThrow(
      /Unknown method "sdpsca" \(did you mean "sdspca"\?\)\. Known methods: .*baseline/,
    );
  });

  it.each([
    ["SDSPCALPP", "sdspca-lpp"],
    ["ldaa", "lda"],
    ["jpcd", "jpcda"],
  ])("offers the method %j is a misspelling of (%j)", (typed, meant) => {
    expect(() => methodDescriptor(typed)).toThrow(
      `Unknown method "${typed}" (did you mean "${meant}"?). Known methods: `,
    );
  });

  it.each(["sdspcan", "pcaa", "nope"])(
    "offers none for %j, a name as close to two methods or to none",
    (typed) => {
      expect(() => methodDescriptor(typed)).toThrow(`Unknown method "${typed}". Known methods: `);
    },
  );
});

describe.each(names)("contract: %s", (name) => {
  const { X, y } = dataset();
  const make = (extra: Record<string, unknown> = {}) => createMethod(name, { k: K, ...extra });

  it("fit returns this and fills the fitted attributes", () => {
    const model = make();
    expect(model.fit(X, y)).toBe(model);
    expect(model.components.rows).toBe(12);
    expect(model.mean.length).toBe(12);
    expect(model.nFeaturesIn).toBe(12);
    const info = model.fitInfo;
    expect(Number.isInteger(info.iterations)).toBe(true);
    expect(typeof info.converged).toBe("boolean");
    expect(["closed-form", "converged", "max-iterations", "lambda-cap"]).toContain(info.stopReason);
    for (const t of Object.values(info.timings)) expect(t).toBeGreaterThanOrEqual(0);
    for (const v of model.components.data) expect(Number.isFinite(v)).toBe(true);
  });

  it("fitTransform equals fit then transform", () => {
    const a = make().fitTransform(X, y);
    const b = make().fit(X, y).transform(X);
    expectSameMatrix(a, b);
    expect(a.rows).toBe(X.length);
  });

  it("transforms a subset of rows into exactly those rows of the full transform", () => {
    const model = make().fit(X, y);
    const full = model.transform(X);
    const rows = [5, 0, X.length - 1, 5];
    const part = model.transform(rows.map((i) => X[i]));
    expect(part.rows).toBe(rows.length);
    rows.forEach((i, r) => {
      expect(Array.from(part.row(r))).toEqual(Array.from(full.row(i)));
    });
  });

  it("does not mutate its inputs", () => {
    const X0 = structuredClone(X);
    const y0 = [...y];
    const M = Matrix.fromRows(X);
    const M0 = M.data.slice();
    make().fit(X, y);
    make().fit(M, y).transform(M);
    expect(X).toEqual(X0);
    expect(y).toEqual(y0);
    expect(Array.from(M.data)).toEqual(Array.from(M0));
  });

  it("gives identical output for identical inputs and options", () => {
    expectSameMatrix(make().fitTransform(X, y), make().fitTransform(X, y));
  });

  it("round-trips through JSON to a bit-identical transform", () => {
    const model = make().fit(X, y);
    const text = JSON.stringify(model.toJSON());
    const loaded = loadModel(text);
    expect(loaded.method).toBe(name);
    expectSameMatrix(loaded.transform(X), model.transform(X));
    expect(JSON.stringify(loaded.toJSON())).toBe(text);
    const json = JSON.parse(text);
    expect(json.format).toBe("sdspcaan-model");
    expect(json.version).toBe(MODEL_VERSION);
    expect(json.components.rows * json.components.cols).toBe(json.components.data.length);
    const Cls = make().constructor as unknown as { fromJSON(j: unknown): { method: string } };
    expect(Cls.fromJSON(json).method).toBe(name);
  });

  it("carries a preprocessing through transform and JSON", () => {
    const center = Array.from({ length: 12 }, (_, j) => j / 3);
    const scale = Array.from({ length: 12 }, (_, j) => 1 + j / 7);
    const scaled = X.map((r) => r.map((v, j) => (v - center[j]) / scale[j]));
    const model = make().fit(scaled, y).setPreprocessing({ method: "train-zscore", center, scale });
    const direct = make().fit(scaled, y).transform(scaled);
    expectSameMatrix(model.transform(X), direct);
    const loaded = loadModel(JSON.stringify(model.toJSON()));
    expectSameMatrix(loaded.transform(X), direct);
    expect(loaded.preprocessing?.method).toBe("train-zscore");
    expect(() => model.setPreprocessing({ method: "x", center: [1], scale: [1] })).toThrow(
      /12 finite/,
    );
    expect(() =>
      loadModel({
        ...model.toJSON(),
        preprocessing: { method: "x", center, scale: scale.map(() => 0) },
      }),
    ).toThrow(/non-zero/);
  });

  it("refuses a model JSON of another method or a damaged one", () => {
    const json = make().fit(X, y).toJSON();
    const other = names.find((n) => n !== name) as string;
    const Cls = createMethod(other).constructor as unknown as { fromJSON(j: unknown): unknown };
    expect(() => Cls.fromJSON(json)).toThrow(ValidationError);
    expect(() => loadModel({ ...json, version: 99 })).toThrow(/version/);
    expect(() => loadModel({ ...json, mean: [1, 2] })).toThrow(/mean/);
    expect(() => loadModel("{not json")).toThrow(/does not parse/);
  });

  it("throws NotFittedError before fit", () => {
    const model = make();
    expect(() => model.transform(X)).toThrow(NotFittedError);
    expect(() => model.components).toThrow(/not fitted yet/);
    expect(() => model.fitInfo).toThrow(NotFittedError);
    expect(() => model.toJSON()).toThrow(NotFittedError);
  });

  it("rejects unknown and out-of-range options, naming them", () => {
    expect(() => createMethod(name, { kk: 2 })).toThrow(
      /has no option 'kk' \(did you mean 'k'\?\)/,
    );
    expect(() => createMethod(name, { k: 0 })).toThrow(
      /'k' parameter .* must be an integer in \[1, inf\)( or a fraction in \(0, 1\))?\. Got 0/,
    );
    expect(() => createMethod(name, { k: 2.5 })).toThrow(ValidationError);
    expect(() => make({ k: 1000 }).fit(X, y)).toThrow(/'k' parameter/);
  });

  it("rejects non-finite values, ragged rows and mismatched labels", () => {
    const bad = structuredClone(X);
    bad[3][5] = Number.NaN;
    expect(() => make().fit(bad, y)).toThrow(/X contains NaN at row 3, column 5/);
    bad[3][5] = Number.POSITIVE_INFINITY;
    expect(() => make().fit(bad, y)).toThrow(/Infinity at row 3/);
    const ragged = structuredClone(X);
    ragged[4] = ragged[4].slice(1);
    expect(() => make().fit(ragged, y)).toThrow(/rectangular/);
    const model = make();
    if (model.supervised) {
      expect(() => make().fit(X, y.slice(1))).toThrow(/41 labels, but X has 42 rows/);
      expect(() => make().fit(X)).toThrow(/supervised/);
      expect(() =>
        make().fit(
          X,
          y.map(() => 1),
        ),
      ).toThrow(/at least 2 classes/);
    }
  });

  it("rejects transform data with a different feature count", () => {
    const model = make().fit(X, y);
    expect(() => model.transform(X.map((r) => r.slice(1)))).toThrow(
      /X has 11 features, but .* is expecting 12 features/,
    );
  });

  it("reports progress and stops when aborted", () => {
    const seen: FitProgress[] = [];
    const fitted = make().fit(X, y, { onProgress: (p) => seen.push(p) });
    for (let i = 1; i < seen.length; i++) expect(seen[i].iteration).toBe(seen[i - 1].iteration + 1);
    // The stop test's value comes with its tolerance or not at all, and a fit that
    // converged on it reported a last value below the tolerance.
    for (const p of seen) {
      expect(p.change === null).toBe(p.tol === null);
      if (p.change !== null) expect(p.change).toBeGreaterThanOrEqual(0);
    }
    const last = seen.at(-1);
    if (last?.change != null && last.tol != null && fitted.fitInfo.converged) {
      expect(last.change).toBeLessThanOrEqual(last.tol);
    }
    const controller = new AbortController();
    controller.abort();
    expect(() => make().fit(X, y, { signal: controller.signal })).toThrow(AbortError);
  });
});
