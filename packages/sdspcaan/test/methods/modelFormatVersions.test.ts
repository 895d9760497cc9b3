/**
 * Model files of each format version load as they were saved: every stop reason,
 * warnings with codes (version 3 on) or as texts (versions 1 and 2, read as the
 * version 3 document they stand for), zero timings, an option added by a later
 * version (its default when the file is older), and the fields a model may leave out.
 */
import { smallRows } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { ModelFormatError, ValidationError } from "#internal/core/errors.js";
import { checkModelJSON, checkParams, MODEL_VERSION } from "#internal/methods/modelFormat.js";
import { PCA } from "#internal/methods/pca.js";
import { loadModel } from "#internal/methods/registry.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests rewrite fields of a saved copy
type Doc = Record<string, any>;

/** A PCA model (k = 2) as toJSON writes it, fitted afresh by each test. */
function doc(): Doc {
  const { X, y } = smallRows();
  return JSON.parse(JSON.stringify(new PCA({ k: 2 }).fit(X, y).toJSON()));
}

/** The model loadModel reads from `d`, as the CLI and a program load a file. */
function load(d: Doc): PCA {
  return loadModel(d) as PCA;
}

/** A warning as version 3 writes it; its null value is a number JSON could not write. */
const warning = {
  code: "lambda-cap",
  message: "lambda reached its cap 2^20 at iteration 3",
  values: { lambdaCap: 1048576, iteration: 3, clusters: null },
};

describe("what each version writes loads as saved", () => {
  it.each(["closed-form", "converged", "max-iterations", "lambda-cap"])(
    "the stop reason %s",
    (reason) => {
      const d = doc();
      d.fitInfo.stopReason = reason;
      expect(load(d).fitInfo.stopReason).toBe(reason);
    },
  );

  it("warnings with codes (version 3 and later) as they are, and nothing else changed", () => {
    for (const version of [3, MODEL_VERSION]) {
      const d = doc();
      d.version = version;
      d.fitInfo.warnings = [warning, { code: "other", message: "", values: {} }];
      // Zero times are times: a fit can take less than the clock's step.
      d.fitInfo.timings = { totalMs: 0, eigenMs: 0, graphMs: 0, otherMs: 0 };
      expect(checkModelJSON(d)).toBe(d);
      expect(load(d).fitInfo.warnings).toEqual(d.fitInfo.warnings);
      expect(load(d).fitInfo.timings).toEqual(d.fitInfo.timings);
    }
  });

  it("the texts of versions 1 and 2 as warnings with the code their words show", () => {
    const texts = ["lambda reached its cap 2^20 at iteration 3", "something else happened"];
    for (const version of [1, 2]) {
      const d = doc();
      d.version = version;
      d.fitInfo.warnings = texts;
      const before = structuredClone(d);
      const read = checkModelJSON(d);
      // Read as the version 3 document it stands for.
      expect(read).toEqual({
        ...before,
        version: 3,
        fitInfo: {
          ...before.fitInfo,
          warnings: [
            { code: "lambda-cap", message: texts[0], values: {} },
            { code: "other", message: texts[1], values: {} },
          ],
        },
      });
      // The caller's document is left as it was.
      expect(d).toEqual(before);
      expect(load(d).toJSON().fitInfo.warnings).toEqual(read.fitInfo.warnings);
    }
  });

  it("an option added by a later version: its default when older, else required", () => {
    for (const version of [1, 2, 3]) {
      const d = doc();
      d.version = version;
      delete d.params.whiten;
      expect(load(d).toJSON().params).toEqual({ k: 2, whiten: false });
    }
    const d = doc();
    d.version = 3;
    d.params.whiten = "yes";
    expect(() => load(d)).toThrow(
      new ModelFormatError("params.whiten", 'must be true or false; got "yes"'),
    );
    d.params.whiten = true;
    expect(load(d).toJSON().params).toEqual({ k: 2, whiten: true });
    d.version = 4;
    delete d.params.whiten;
    expect(() => load(d)).toThrow(
      new ModelFormatError("params.whiten", "is missing; a saved PCA model records every option"),
    );
  });

  it("a plug-in's name: beside a built-in method it is refused, else it is asked for", () => {
    const d = doc();
    d.plugin = "extra-methods.mjs";
    const refused = new ModelFormatError(
      "plugin",
      'must be left out: "pca" is a built-in method, whose model names no plug-in; got "extra-methods.mjs"',
    );
    expect(() => load(d)).toThrow(refused);
    expect(() => PCA.fromJSON(d)).toThrow(refused);
    d.method = "sparse-pca";
    expect(() => load(d)).toThrow(
      new ValidationError(
        "method",
        "The model's method \"sparse-pca\" comes from the plug-in extra-methods.mjs, which is not loaded: load that plug-in first (the CLI's --plugin extra-methods.mjs; in a program, import it before loadModel).",
      ),
    );
  });

  it("a method without options names none", () => {
    expect(() => checkParams({ k: 1 }, {}, "Nothing")).toThrow(
      new ModelFormatError("params.k", "is not an option of Nothing (its options: none)"),
    );
    expect(() => checkParams({}, {}, "Nothing")).not.toThrow();
  });

  it("a model without classes, preprocessing or feature names", () => {
    const d = doc();
    expect(d.preprocessing).toBeNull();
    expect(d).not.toHaveProperty("featureNamesIn");
    delete d.classes;
    const model = load(d);
    expect([model.classes, model.featureNamesIn, model.preprocessing]).toEqual([null, null, null]);
    expect(model.toJSON()).toEqual(d);
  });
});
