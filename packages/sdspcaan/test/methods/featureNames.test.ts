/**
 * Feature names: a model fitted on named columns matches later data by name
 * (reorders it, or refuses it naming the columns that differ) and takes data
 * without names by position.
 */
import { errorOf } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { ModelFormatError, ValidationError } from "#internal/core/errors.js";
import { Random } from "#internal/core/rng.js";
import { parseDelimited } from "#internal/formats/csv.js";
import { featureNamesOf } from "#internal/formats/featureNames.js";
import { Pipeline } from "#internal/methods/pipeline.js";
import { createMethod, loadModel } from "#internal/methods/registry.js";
import { SDSPCA } from "#internal/methods/sdspca.js";

const NAMES = ["height", "weight", "age", "income", "score"];

/** Two classes in 5 dimensions with columns of very different scales. */
function dataset(n = 30): { X: number[][]; y: number[] } {
  const rng = new Random(11);
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % 2;
    X.push([
      170 + 10 * rng.normal(),
      70 + 15 * rng.normal() + 5 * c,
      40 + 12 * rng.normal(),
      3e4 + 1e4 * rng.normal() * (1 + c),
      rng.normal() + 2 * c,
    ]);
    y.push(c);
  }
  return { X, y };
}

/** The columns of X in the order `order` (indices into the original). */
function permuted(X: number[][], order: number[]): number[][] {
  return X.map((r) => order.map((j) => r[j]));
}

describe("feature names", () => {
  const { X, y } = dataset();
  const order = [3, 0, 4, 1, 2];

  it("a permuted set of named columns gives the same embedding as the original order", () => {
    const model = new SDSPCA({ k: 2 }).fit(X, y, { featureNames: NAMES });
    expect(model.featureNamesIn).toEqual(NAMES);
    const original = model.transform(X, { featureNames: NAMES });
    const reordered = model.transform(permuted(X, order), {
      featureNames: order.map((j) => NAMES[j]),
    });
    expect(Array.from(reordered.data)).toEqual(Array.from(original.data));
    // Without the names the permuted columns would be projected as they come: wrong.
    const positional = model.transform(permuted(X, order));
    expect(Array.from(positional.data)).not.toEqual(Array.from(original.data));
  });

  it("refuses a missing or renamed column, naming it", () => {
    const model = new SDSPCA({ k: 2 }).fit(X, y, { featureNames: NAMES });
    const renamed = ["height", "weight", "age", "salary", "score"];
    const err = errorOf(() => model.transform(X, { featureNames: renamed }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain('missing "income"');
    expect(err.message).toContain('unexpected "salary"');
    expect(
      errorOf(() =>
        model.transform(X, { featureNames: ["height", "height", "age", "income", "score"] }),
      ).message,
    ).toContain('names the column "height" twice');
  });

  it("refuses a named column left out, naming it", () => {
    const model = new SDSPCA({ k: 2 }).fit(X, y, { featureNames: NAMES });
    const fewer = X.map((r) => [r[0], r[1], r[2], r[4]]);
    const err = errorOf(() =>
      model.transform(fewer, { featureNames: ["height", "weight", "age", "score"] }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      'The columns of X do not match the features SDSPCA was fitted on: missing "income". Give the same columns (in any order), or no names to match them by position.',
    );
  });

  it("refuses columns beside the fitted ones, naming them and where labels go", () => {
    const model = new SDSPCA({ k: 2 }).fit(X, y, { featureNames: NAMES });
    const extra = X.map((r) => [...r, 1]);
    const one = errorOf(() => model.transform(extra, { featureNames: [...NAMES, "bmi"] }));
    expect(one).toBeInstanceOf(ValidationError);
    expect(one.message).toBe(
      'The columns of X do not match the features SDSPCA was fitted on: unexpected "bmi" (X has the 5 fitted columns and this one). If it holds the labels, name it as the label column (labelColumn, --label-col "bmi"); otherwise leave it out (dropColumns, --drop-columns "bmi").',
    );
    const two = X.map((r) => [1, ...r, 2]);
    const pipeline = new Pipeline(new SDSPCA({ k: 2 })).fit(X, y, { featureNames: NAMES });
    expect(
      errorOf(() => pipeline.predict(two, { featureNames: ["id", ...NAMES, "class"] })).message,
    ).toBe(
      'The columns of X do not match the features SDSPCA was fitted on: unexpected "id", "class" (X has the 5 fitted columns and these 2). Leave them out (dropColumns, --drop-columns), naming the one that holds the labels, if any, as the label column (labelColumn, --label-col).',
    );
  });

  it("refuses a column count that does not match without names, or names of another count", () => {
    const model = new SDSPCA({ k: 2 }).fit(X, y, { featureNames: NAMES });
    const fewer = X.map((r) => r.slice(0, 4));
    expect(errorOf(() => model.transform(fewer)).message).toBe(
      "X has 4 features, but SDSPCA is expecting 5 features as input.",
    );
    expect(() => model.transform(X, { featureNames: NAMES.slice(0, 4) })).toThrow(
      /featureNames has 4 names, but the data has 5 feature columns/,
    );
  });

  it("warns through onWarning when data without names meets a model fitted with names", () => {
    const named = new SDSPCA({ k: 2 }).fit(X, y, { featureNames: NAMES });
    const heard: unknown[] = [];
    const Z = named.transform(X, { onWarning: (w) => heard.push(w) });
    expect(heard).toEqual([
      {
        code: "unnamed-columns",
        message:
          'X has no feature names, but SDSPCA was fitted with feature names ("height", "weight", "age", "income", "score"); its 5 columns are taken in the fitted order, unchecked.',
        values: { features: 5 },
      },
    ]);
    expect(Array.from(Z.data)).toEqual(
      Array.from(named.transform(X, { featureNames: NAMES }).data),
    );
    // Names given, or a model fitted without names: nothing to warn about.
    named.transform(X, { featureNames: NAMES, onWarning: (w) => heard.push(w) });
    new SDSPCA({ k: 2 }).fit(X, y).transform(X, { onWarning: (w) => heard.push(w) });
    expect(heard).toHaveLength(1);
    const pipeline = new Pipeline(new SDSPCA({ k: 2 })).fit(X, y, { featureNames: NAMES });
    const codes: string[] = [];
    pipeline.predict(X, { onWarning: (w) => codes.push(w.code) });
    pipeline.score(X, y, { onWarning: (w) => codes.push(w.code) });
    expect(codes).toEqual(["unnamed-columns", "unnamed-columns"]);
  });

  it("checks the names given to fit", () => {
    expect(() => new SDSPCA({ k: 2 }).fit(X, y, { featureNames: NAMES.slice(1) })).toThrow(
      /featureNames has 4 names, but the data has 5/,
    );
    expect(() =>
      new SDSPCA({ k: 2 }).fit(X, y, { featureNames: ["a", "b", "", "d", "e"] }),
    ).toThrow(/featureNames\[2\] must be a non-empty string/);
  });

  it("are saved in the model JSON and used after loading", () => {
    const model = createMethod("pca", { k: 2 }).fit(X, y, { featureNames: NAMES });
    const json = model.toJSON();
    expect(json.featureNamesIn).toEqual(NAMES);
    const loaded = loadModel(JSON.stringify(json));
    expect(loaded.featureNamesIn).toEqual(NAMES);
    const names = order.map((j) => NAMES[j]);
    expect(Array.from(loaded.transform(permuted(X, order), { featureNames: names }).data)).toEqual(
      Array.from(model.transform(X).data),
    );
    const bad = { ...json, featureNamesIn: ["a", "b", "a", "d", "e"] };
    const err = errorOf(() => loadModel(bad));
    expect(err).toBeInstanceOf(ModelFormatError);
    expect((err as ModelFormatError).field).toBe("featureNamesIn[2]");
    const short = errorOf(() => loadModel({ ...json, featureNamesIn: ["a"] }));
    expect((short as ModelFormatError).field).toBe("featureNamesIn");
  });

  it("a pipeline matches named columns the same way", () => {
    const pipeline = new Pipeline(new SDSPCA({ k: 2 })).fit(X, y, { featureNames: NAMES });
    expect(pipeline.featureNamesIn).toEqual(NAMES);
    const names = order.map((j) => NAMES[j]);
    const again = loadModel(JSON.stringify(pipeline.toJSON())) as Pipeline;
    expect(again.predict(permuted(X, order), { featureNames: names })).toEqual(pipeline.predict(X));
    expect(() =>
      again.predict(X, { featureNames: ["height", "weight", "age", "income", "bmi"] }),
    ).toThrow(/missing "score"; unexpected "bmi"/);
  });
});

describe("featureNamesOf: a CSV header's names of X's columns", () => {
  it("leaves out the label column and the columns dropped from X", () => {
    const text = "id,a,class,b,c\nm1,1,x,2,3\nm2,4,y,5,6\nm3,7,x,8,9\n";
    const ds = parseDelimited(text, "t.csv", { labelColumn: "class", dropColumns: ["id"] });
    expect(ds.X.cols).toBe(3);
    expect(featureNamesOf(ds.info, ds.X.cols)).toEqual(["a", "b", "c"]);
  });

  it("is null without a header, or with names that cannot tell the columns apart", () => {
    const bare = parseDelimited("1,2,0\n3,4,1\n5,6,0\n", "t.csv");
    expect(featureNamesOf(bare.info, bare.X.cols)).toBeNull();
    const twice = parseDelimited("a,a,label\n1,2,0\n3,4,1\n5,6,0\n", "t.csv");
    expect(featureNamesOf(twice.info, twice.X.cols)).toBeNull();
  });
});
