/**
 * The model file format field by field: each check of checkModelJSON (and of the
 * method's params, classes, preprocessing and feature names) refuses a damaged copy
 * of a saved model naming the field and saying, word for word, what it must be and
 * what it is; and the text forms a file may take (a string, a byte-order mark,
 * 1e999, nesting) are read or refused as whole documents.
 */
import { once } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { ModelFormatError } from "#internal/core/errors.js";
import { FIT_WARNING_CODES } from "#internal/methods/fitWarnings.js";
import { checkModelJSON, shown } from "#internal/methods/modelFormat.js";
import { MAX_MODEL_DEPTH } from "#internal/methods/modelText.js";
import { PCA } from "#internal/methods/pca.js";
import { loadModel, loadModelFile } from "#internal/methods/registry.js";

// Fitted in the first test that needs it, not at the top level: Stryker (`npm run
// test:mutation`) counts code run outside a test as covered by every test.
const savedModel = once(() => {
  const X = Array.from({ length: 6 }, (_, i) => [i % 3, (i * 7) % 5, (i * i) % 11]);
  const model = new PCA({ k: 2 }).fit(X, [1, 2, 1, 2, 1, 2], { featureNames: ["a", "b", "c"] });
  model.setPreprocessing({ method: "custom", center: [0, 0, 0], scale: [1, 2, 3] });
  return JSON.stringify(model.toJSON());
});

// biome-ignore lint/suspicious/noExplicitAny: fields are damaged one at a time
type Doc = Record<string, any>;

function refusal(change: (d: Doc) => void): [string, string] {
  const json = JSON.parse(savedModel()) as Doc;
  change(json);
  try {
    loadModel(json);
  } catch (err) {
    expect(err).toBeInstanceOf(ModelFormatError);
    const e = err as ModelFormatError;
    expect(e.message).toBe(
      `Not a valid sdspcaan model: ${e.field === "" ? "" : `field '${e.field}' `}${e.problem}.`,
    );
    return [e.field, e.problem];
  }
  throw new Error("expected a ModelFormatError");
}

const MODEL_FIELDS =
  "format, version, method, plugin, params, nFeaturesIn, mean, components, classes, preprocessing, featureNamesIn, fitInfo";
const FIT_FIELDS =
  "iterations, converged, stopReason, objective, lambdaTrace, warnings, timings, solver, details";
const WARNING_CODES = FIT_WARNING_CODES.map((c) => `"${c}"`).join(", ");
/** A warning as version 3 writes it; its null value is a number JSON could not write. */
const warning = {
  code: "lambda-cap",
  message: "lambda reached its cap 2^20 at iteration 3",
  values: { lambdaCap: 1048576, iteration: 3, clusters: null },
};

describe("checkModelJSON, field by field", () => {
  const cases: [string, (d: Doc) => void, string, string][] = [
    [
      "format",
      (d) => (d.format = "sdspcaan-modle"),
      "format",
      'must be "sdspcaan-model"; got "sdspcaan-modle"',
    ],
    [
      "version",
      (d) => (d.version = "2"),
      "version",
      'must be one of 1, 2, 3, 4 (the versions this library reads); got "2"',
    ],
    [
      "version 5",
      (d) => (d.version = 5),
      "version",
      "must be one of 1, 2, 3, 4 (the versions this library reads); got 5",
    ],
    [
      "an unknown field",
      (d) => (d.weights = []),
      "weights",
      `is not part of the model format (known fields: ${MODEL_FIELDS})`,
    ],
    ["a missing field", (d) => delete d.mean, "mean", "is missing"],
    ["method", (d) => (d.method = 3), "method", "must be a method name; got 3"],
    ["plugin", (d) => (d.plugin = 1), "plugin", "must be the name of a plug-in; got 1"],
    ["plugin blank", (d) => (d.plugin = " "), "plugin", 'must be the name of a plug-in; got " "'],
    ["params", (d) => (d.params = [2]), "params", "must be an object; got [2]"],
    ["params null", (d) => (d.params = null), "params", "must be an object; got null"],
    [
      "nFeaturesIn",
      (d) => (d.nFeaturesIn = 2.5),
      "nFeaturesIn",
      "must be an integer >= 1; got 2.5",
    ],
    ["nFeaturesIn 0", (d) => (d.nFeaturesIn = 0), "nFeaturesIn", "must be an integer >= 1; got 0"],
    [
      "nFeaturesIn text",
      (d) => (d.nFeaturesIn = "3"),
      "nFeaturesIn",
      'must be an integer >= 1; got "3"',
    ],
    [
      "mean",
      (d) => (d.mean = {}),
      "mean",
      "must be an array of 3 finite numbers (nFeaturesIn); got {}",
    ],
    [
      "mean's length",
      (d) => d.mean.push(1),
      "mean",
      "must hold 3 finite numbers (nFeaturesIn); got 4",
    ],
    ["a mean", (d) => (d.mean[2] = "1"), "mean[2]", 'must be a finite number; got "1"'],
    [
      "components",
      (d) => (d.components = null),
      "components",
      "must be an object {rows, cols, data}; got null",
    ],
    [
      "a components field",
      (d) => (d.components.W = 1),
      "components.W",
      "is not part of the model format (known fields: rows, cols, data)",
    ],
    [
      "components.rows",
      (d) => (d.components.rows = 4),
      "components.rows",
      "must equal nFeaturesIn = 3; got 4",
    ],
    [
      "components.cols",
      (d) => (d.components.cols = 0),
      "components.cols",
      "must be an integer >= 1; got 0",
    ],
    [
      "components.data",
      (d) => d.components.data.pop(),
      "components.data",
      "must hold 6 finite numbers (3 x 2, row-major); got 5",
    ],
    [
      "a component",
      (d) => (d.components.data[4] = null),
      "components.data[4]",
      "must be a finite number; got null",
    ],
    [
      "classes",
      (d) => (d.classes = []),
      "classes",
      "must be a non-empty array of class labels; got []",
    ],
    [
      "classes text",
      (d) => (d.classes = "12"),
      "classes",
      'must be a non-empty array of class labels; got "12"',
    ],
    [
      "a mixed class",
      (d) => (d.classes = [1, "2"]),
      "classes[1]",
      'must be a finite number like the other classes; got "2"',
    ],
    [
      "a mixed text class",
      (d) => (d.classes = ["a", 2]),
      "classes[1]",
      "must be a string like the other classes; got 2",
    ],
    [
      "a boolean class",
      (d) => (d.classes = [true]),
      "classes[0]",
      "must be a finite number like the other classes; got true",
    ],
    [
      "an unsorted class",
      (d) => (d.classes = [2, 1]),
      "classes[1]",
      "must come after 2: the classes are saved sorted and distinct; got 1",
    ],
    [
      "a repeated class",
      (d) => (d.classes = ["a", "a"]),
      "classes[1]",
      'must come after "a": the classes are saved sorted and distinct; got "a"',
    ],
    [
      "no preprocessing (v2)",
      (d) => delete d.preprocessing,
      "preprocessing",
      "is missing; it is null when no standardisation was applied, else {method, center, scale}",
    ],
    [
      "preprocessing",
      (d) => (d.preprocessing = "none"),
      "preprocessing",
      'must be null or an object {method, center, scale}; got "none"',
    ],
    [
      "a preprocessing field",
      (d) => (d.preprocessing.floor = 0),
      "preprocessing.floor",
      "is not part of the model format (known fields: method, center, scale)",
    ],
    [
      "preprocessing.center",
      (d) => d.preprocessing.center.pop(),
      "preprocessing.center",
      "must hold 3 finite numbers (one per feature); got 2",
    ],
    [
      "a zero scale",
      (d) => (d.preprocessing.scale[1] = 0),
      "preprocessing.scale[1]",
      "must be a finite non-zero number; got 0",
    ],
    [
      "a negative train-zscore scale",
      (d) => {
        d.preprocessing.method = "train-zscore";
        d.preprocessing.scale[2] = -3;
      },
      "preprocessing.scale[2]",
      'must be a positive number under "train-zscore" (a standard deviation, 1 for a constant column); got -3',
    ],
    [
      "a negative dataset-zscore scale",
      (d) => {
        d.preprocessing.method = "dataset-zscore";
        d.preprocessing.scale[0] = -1e-300;
      },
      "preprocessing.scale[0]",
      'must be a positive number under "dataset-zscore" (a standard deviation, 1 for a constant column); got -1e-300',
    ],
    [
      "preprocessing.scale",
      (d) => (d.preprocessing.scale = 1),
      "preprocessing.scale",
      "must be an array of 3 finite non-zero numbers (one per feature); got 1",
    ],
    [
      "preprocessing.method",
      (d) => (d.preprocessing.method = 1),
      "preprocessing.method",
      'must be one of "train-zscore", "dataset-zscore", "custom"; got 1',
    ],
    [
      "featureNamesIn",
      (d) => (d.featureNamesIn = "abc"),
      "featureNamesIn",
      'must be an array of 3 column names; got "abc"',
    ],
    [
      "featureNamesIn's length",
      (d) => d.featureNamesIn.pop(),
      "featureNamesIn",
      "must hold 3 names (nFeaturesIn); got 2",
    ],
    [
      "an empty name",
      (d) => (d.featureNamesIn[1] = ""),
      "featureNamesIn[1]",
      'must be a non-empty string; got ""',
    ],
    [
      "a numeric name",
      (d) => (d.featureNamesIn[0] = 1),
      "featureNamesIn[0]",
      "must be a non-empty string; got 1",
    ],
    [
      "a repeated name",
      (d) => (d.featureNamesIn[2] = "a"),
      "featureNamesIn[2]",
      'repeats the name "a"',
    ],
    ["fitInfo", (d) => (d.fitInfo = []), "fitInfo", "must be an object; got []"],
    [
      "a fitInfo field",
      (d) => (d.fitInfo.seed = 1),
      "fitInfo.seed",
      `is not part of the model format (known fields: ${FIT_FIELDS})`,
    ],
    ["a missing fitInfo field", (d) => delete d.fitInfo.solver, "fitInfo.solver", "is missing"],
    [
      "iterations",
      (d) => (d.fitInfo.iterations = -1),
      "fitInfo.iterations",
      "must be an integer >= 0; got -1",
    ],
    [
      "converged",
      (d) => (d.fitInfo.converged = "yes"),
      "fitInfo.converged",
      'must be true or false; got "yes"',
    ],
    [
      "stopReason",
      (d) => (d.fitInfo.stopReason = 1),
      "fitInfo.stopReason",
      'must be one of "closed-form", "converged", "max-iterations", "lambda-cap"; got 1',
    ],
    [
      "objective",
      (d) => (d.fitInfo.objective = {}),
      "fitInfo.objective",
      "must be an array of numbers; got {}",
    ],
    [
      "an objective value",
      (d) => (d.fitInfo.objective = [1, null, "2"]),
      "fitInfo.objective[2]",
      'must be a number; got "2"',
    ],
    [
      "lambdaTrace",
      (d) => (d.fitInfo.lambdaTrace = null),
      "fitInfo.lambdaTrace",
      "must be an array of numbers; got null",
    ],
    [
      "a lambda",
      (d) => (d.fitInfo.lambdaTrace = [true]),
      "fitInfo.lambdaTrace[0]",
      "must be a number; got true",
    ],
    [
      "warnings",
      (d) => (d.fitInfo.warnings = ["a", 1]),
      "fitInfo.warnings[0]",
      'must be an object; got "a"',
    ],
    [
      "warnings text",
      (d) => (d.fitInfo.warnings = "a"),
      "fitInfo.warnings",
      'must be an array of warnings; got "a"',
    ],
    ["timings", (d) => (d.fitInfo.timings = 3), "fitInfo.timings", "must be an object; got 3"],
    [
      "a timings field",
      (d) => (d.fitInfo.timings.cpuMs = 1),
      "fitInfo.timings.cpuMs",
      "is not part of the model format (known fields: totalMs, eigenMs, graphMs, otherMs)",
    ],
    [
      "a negative time",
      (d) => (d.fitInfo.timings.graphMs = -1),
      "fitInfo.timings.graphMs",
      "must be a finite number >= 0; got -1",
    ],
    [
      "a missing time",
      (d) => delete d.fitInfo.timings.otherMs,
      "fitInfo.timings.otherMs",
      "must be a finite number >= 0; got nothing",
    ],
    [
      "an infinite time",
      (d) => (d.fitInfo.timings.totalMs = Number.POSITIVE_INFINITY),
      "fitInfo.timings.totalMs",
      "must be a finite number >= 0; got Infinity",
    ],
    [
      "a warning's code",
      (d) => (d.fitInfo.warnings = [{ code: "odd", message: "m", values: {} }]),
      "fitInfo.warnings[0].code",
      `must be one of ${WARNING_CODES}; got "odd"`,
    ],
    [
      "a warning without a code",
      (d) => (d.fitInfo.warnings = [warning, { message: "m", values: {} }]),
      "fitInfo.warnings[1].code",
      "is missing",
    ],
    [
      "a warning's extra field",
      (d) => (d.fitInfo.warnings = [{ ...warning, level: 2 }]),
      "fitInfo.warnings[0].level",
      "is not part of the model format (known fields: code, message, values)",
    ],
    [
      "a warning's message",
      (d) => (d.fitInfo.warnings = [{ ...warning, message: 3 }]),
      "fitInfo.warnings[0].message",
      "must be a string; got 3",
    ],
    [
      "a warning's values",
      (d) => (d.fitInfo.warnings = [{ ...warning, values: [1] }]),
      "fitInfo.warnings[0].values",
      "must be an object; got [1]",
    ],
    [
      "a warning's value in text",
      (d) => (d.fitInfo.warnings = [{ ...warning, values: { cap: 1, at: "3" } }]),
      "fitInfo.warnings[0].values.at",
      'must be a number or null; got "3"',
    ],
    [
      "a warning's infinite value",
      (d) => (d.fitInfo.warnings = [{ ...warning, values: { cap: -Infinity } }]),
      "fitInfo.warnings[0].values.cap",
      "must be a number or null; got -Infinity",
    ],
    [
      "a version 2 warning that is not text",
      (d) => {
        d.version = 2;
        d.fitInfo.warnings = ["text", 1];
      },
      "fitInfo.warnings",
      'must be an array of strings (model format version 2); got ["text",1]',
    ],
    [
      "version 1 warnings that are not an array",
      (d) => {
        d.version = 1;
        d.fitInfo.warnings = "text";
      },
      "fitInfo.warnings",
      'must be an array of strings (model format version 1); got "text"',
    ],
    [
      "an infinite class",
      (d) => (d.classes = [1, Number.POSITIVE_INFINITY]),
      "classes[1]",
      "must be a finite number like the other classes; got Infinity",
    ],
    [
      "a class that is not a number",
      (d) => (d.classes = [Number.NaN, 1]),
      "classes[0]",
      "must be a finite number like the other classes; got NaN",
    ],
    [
      "an infinite mean",
      (d) => (d.mean[0] = Number.NEGATIVE_INFINITY),
      "mean[0]",
      "must be a finite number; got -Infinity",
    ],
    [
      "an infinite scale",
      (d) => (d.preprocessing.scale[2] = Number.NaN),
      "preprocessing.scale[2]",
      "must be a finite non-zero number; got NaN",
    ],
    [
      "an object for a preprocessing method",
      (d) => (d.preprocessing.method = { name: "custom" }),
      "preprocessing.method",
      'must be one of "train-zscore", "dataset-zscore", "custom"; got {"name":"custom"}',
    ],
    [
      "an unknown preprocessing method",
      (d) => (d.preprocessing.method = "minmax"),
      "preprocessing.method",
      'must be one of "train-zscore", "dataset-zscore", "custom"; got "minmax"',
    ],
    [
      "a stop reason of another kind",
      (d) => (d.fitInfo.stopReason = "stopped"),
      "fitInfo.stopReason",
      'must be one of "closed-form", "converged", "max-iterations", "lambda-cap"; got "stopped"',
    ],
    [
      "iterations in text",
      (d) => (d.fitInfo.iterations = "2"),
      "fitInfo.iterations",
      'must be an integer >= 0; got "2"',
    ],
    [
      "a fraction of an iteration",
      (d) => (d.fitInfo.iterations = 0.5),
      "fitInfo.iterations",
      "must be an integer >= 0; got 0.5",
    ],
    [
      "a missing component count",
      (d) => delete d.components.cols,
      "components.cols",
      "must be an integer >= 1; got nothing",
    ],
    ["solver", (d) => (d.fitInfo.solver = null), "fitInfo.solver", "must be a string; got null"],
    ["details", (d) => (d.fitInfo.details = "x"), "fitInfo.details", 'must be an object; got "x"'],
  ];
  it.each(cases)("%s", (_what, change, field, problem) => {
    expect(refusal(change)).toEqual([field, problem]);
  });

  it("accepts what toJSON writes and what it may leave out", () => {
    expect(JSON.stringify(loadModel(savedModel()).toJSON())).toBe(savedModel());
    const trimmed = JSON.parse(savedModel()) as Doc;
    delete trimmed.featureNamesIn;
    trimmed.preprocessing = null;
    trimmed.fitInfo.objective = [1, null, 2];
    trimmed.fitInfo.iterations = 0;
    expect(checkModelJSON(trimmed)).toBe(trimmed);
    expect(loadModel(trimmed).toJSON()).toEqual(trimmed);
    const v1 = { ...trimmed, version: 1 };
    expect(loadModel(v1).preprocessing).toBeNull();
  });

  it("accepts any non-zero custom scale and any positive z-score scale", () => {
    const custom = JSON.parse(savedModel()) as Doc;
    custom.preprocessing.scale = [-1, 2, -3e-300];
    expect(loadModel(custom).preprocessing).toEqual(custom.preprocessing);
    const zscore = JSON.parse(savedModel()) as Doc;
    zscore.preprocessing = { method: "train-zscore", center: [0, 0, 0], scale: [1, 5e-324, 3] };
    expect(loadModel(zscore).preprocessing).toEqual(zscore.preprocessing);
  });

  it("names the file and the field of a negative z-score scale", () => {
    const json = JSON.parse(savedModel()) as Doc;
    json.preprocessing.method = "train-zscore";
    json.preprocessing.scale[1] = -2;
    expect(() => loadModelFile(JSON.stringify(json), "model.json")).toThrow(
      `model.json: not a valid sdspcaan model: field 'preprocessing.scale[1]' must be a positive number under "train-zscore" (a standard deviation, 1 for a constant column); got -2`,
    );
  });

  it("setPreprocessing refuses a z-score scale the library would not write", () => {
    const model = loadModel(savedModel()) as PCA;
    expect(() =>
      model.setPreprocessing({ method: "train-zscore", center: [0, 0, 0], scale: [1, -2, 1] }),
    ).toThrow(
      `'preprocessing.scale[1]' must be a positive number under "train-zscore" (a standard deviation, 1 for a constant column); got -2.`,
    );
  });

  it("says what to do about a version 1 file without preprocessing", () => {
    expect(
      refusal((d) => {
        d.version = 1;
        delete d.preprocessing;
      }),
    ).toEqual([
      "preprocessing",
      'is missing. Version 1 model files left it out when no standardisation was applied, which cannot be told from a file that lost it: if the model was fitted on data as it is (fit --preprocess none, or no setPreprocessing), add "preprocessing": null; otherwise fit the model again',
    ]);
  });

  it("checks the params against the method's options", () => {
    expect(refusal((d) => (d.params.alpha = 1))).toEqual([
      "params.alpha",
      "is not an option of PCA (its options: k, whiten)",
    ]);
    expect(refusal((d) => delete d.params.k)).toEqual([
      "params.k",
      "is missing; a saved PCA model records every option",
    ]);
    expect(refusal((d) => (d.params.k = 1.5))).toEqual([
      "params.k",
      "must be an integer in [1, inf) or a fraction in (0, 1); got 1.5",
    ]);
  });
});

describe("a model as a whole", () => {
  it("parses a string, skipping a byte-order mark, and says why one does not parse", () => {
    expect(checkModelJSON(savedModel())).toEqual(JSON.parse(savedModel()));
    expect(checkModelJSON(`\uFEFF${savedModel()}`)).toEqual(JSON.parse(savedModel()));
    const err = (() => {
      try {
        checkModelJSON(savedModel().slice(0, -1));
      } catch (e) {
        return e as ModelFormatError;
      }
    })();
    expect(err?.field).toBe("");
    expect(err?.problem).toMatch(/^the JSON does not parse \(.+\)$/);
    for (const [json, got] of [
      ["3", "3"],
      ["[]", "[]"],
      ["null", "null"],
      ['"x"', '"x"'],
    ]) {
      expect(() => checkModelJSON(json)).toThrow(
        new ModelFormatError("", `expected a JSON object; got ${got}`),
      );
    }
  });

  it("quotes a number beyond double precision wherever it is, with its path", () => {
    const at = (path: string, literal: string) => {
      const d = JSON.parse(savedModel()) as Doc;
      const parts = path.split(".");
      let o = d;
      for (const p of parts.slice(0, -1)) o = o[p];
      o[parts[parts.length - 1]] = "@";
      return JSON.stringify(d).replace('"@"', literal);
    };
    const cases: [string, string][] = [
      ["nFeaturesIn", "1e999"],
      ["fitInfo.timings.totalMs", "-2e400"],
      ["fitInfo.details.rank", "1.5E+309"],
      ["params.k", "1234567890e300"],
      ["mean", "9".repeat(309)],
    ];
    for (const [path, literal] of cases) {
      expect(() => checkModelJSON(at(path, literal))).toThrow(
        new ModelFormatError(path, `is not a finite number: ${literal}`),
      );
    }
    // Inside arrays and with keys holding escapes, the path is as the checks name it.
    const d = JSON.parse(savedModel()) as Doc;
    d.fitInfo.details['we"ird'] = [
      [1, 2],
      [3, "@"],
    ];
    const text = JSON.stringify(d).replace('"@"', "1e999");
    expect(() => checkModelJSON(text)).toThrow(
      new ModelFormatError('fitInfo.details.we"ird[1][1]', "is not a finite number: 1e999"),
    );
    // 308 digits still make a finite double (and fail the field's own check).
    expect(() => checkModelJSON(at("components.rows", "9".repeat(308)))).toThrow(
      new ModelFormatError("components.rows", "must equal nFeaturesIn = 3; got 1e+308"),
    );
    // Small and negative exponents are finite numbers.
    const fine = JSON.parse(savedModel()) as Doc;
    fine.fitInfo.details.tiny = "@";
    expect(
      checkModelJSON(JSON.stringify(fine).replace('"@"', "-1e-999")).fitInfo.details.tiny,
    ).toBe(-0);
  });

  it(`nests at most ${MAX_MODEL_DEPTH} levels, as text or as a value`, () => {
    const deep = (n: number) => {
      const d = JSON.parse(savedModel()) as Doc;
      d.fitInfo.details.deep = "@";
      return JSON.stringify(d).replace('"@"', `${"[".repeat(n)}"x"${"]".repeat(n)}`);
    };
    // details sits 3 deep: 61 arrays there make 64 levels.
    expect(checkModelJSON(deep(61)).fitInfo.details).toHaveProperty("deep");
    expect(() => checkModelJSON(deep(62))).toThrow(
      new ModelFormatError("", "nested 65 deep; a model file nests at most 64 levels"),
    );
    expect(checkModelJSON(JSON.parse(deep(61))).fitInfo.details).toHaveProperty("deep");
    expect(() => checkModelJSON(JSON.parse(deep(62)))).toThrow(
      new ModelFormatError("", "nested more than 64 deep; a model file nests at most 64 levels"),
    );
    // A cycle ends at the limit too.
    const cyclic = JSON.parse(savedModel()) as Doc;
    cyclic.fitInfo.details.self = cyclic;
    expect(() => checkModelJSON(cyclic)).toThrow(/nested more than 64 deep/);
  });

  it("shows values in messages short, and numbers JSON cannot write as themselves", () => {
    expect(shown(undefined)).toBe("nothing");
    expect(shown(Number.NaN)).toBe("NaN");
    expect(shown(Number.POSITIVE_INFINITY)).toBe("Infinity");
    // 60 characters are shown whole; 61 are cut to 57 and "...".
    expect(shown("x".repeat(58))).toBe(`"${"x".repeat(58)}"`);
    expect(shown("x".repeat(59))).toBe(`"${"x".repeat(56)}...`);
    expect(shown("x".repeat(59)).length).toBe(60);
    expect(shown([1, 2])).toBe("[1,2]");
    expect(shown(() => 1)).toBe("() => 1");
  });
});
