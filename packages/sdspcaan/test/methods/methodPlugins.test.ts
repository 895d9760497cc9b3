/**
 * Methods that come from a plug-in: their model files name the plug-in, loading one
 * without it says what to load, a name of a built-in is refused, and a fit whose
 * components break the contract is a ContractError (which a protocol run records).
 */
import {
  ContractError,
  createMethod,
  DataFormatError,
  Estimator,
  loadModel,
  Matrix,
  ModelFormatError,
  methodNames,
  type TrainingData,
  ValidationError,
} from "sdspcaan";
import {
  type CoreFitResult,
  defineMethod,
  type FitContext,
  loadModelFile,
  methodPlugin,
  registerMethod,
  setMethodPlugin,
  unregisterMethod,
} from "sdspcaan/methods";
import { errorOf } from "sdspcaan-test-support";
import { afterEach, describe, expect, it } from "vitest";

const OPTIONS = {
  k: { type: "integer", min: 1, default: 2, doc: "Components." },
} as const;

/** A method named `name` whose fitCore returns `components(data, k)`. */
function method(name: string, components: (data: TrainingData, k: number) => unknown) {
  class Mine extends Estimator<{ k: number }> {
    constructor(options: Partial<{ k: number }> = {}) {
      super(DESCRIPTOR, options);
    }

    protected fitCore(data: TrainingData, _ctx: FitContext): CoreFitResult {
      return {
        components: components(data, this.params.k) as Matrix,
        iterations: 0,
        converged: true,
        stopReason: "closed-form",
        solver: "test",
        details: {},
      };
    }
  }
  const DESCRIPTOR = defineMethod({
    name,
    displayName: "Mine",
    summary: "A test method.",
    supervised: false,
    options: OPTIONS,
    create: (options) => new Mine(options),
  });
  return DESCRIPTOR;
}

const X = [
  [1, 2, 3],
  [2, 1, 0],
  [0, 1, 1],
  [3, 3, 1],
];

afterEach(() => {
  unregisterMethod("mine");
  unregisterMethod("shared-a");
  unregisterMethod("shared-b");
});

describe("a plug-in's model file", () => {
  it("loads with the method's create, also for one class serving several methods", () => {
    // The class takes its declaration with the options, as one class for two methods
    // must: loadModel makes it through the declaration's create, as fit does.
    class Shared extends Estimator<{ k: number }> {
      protected fitCore(data: TrainingData): CoreFitResult {
        const W = Matrix.identity(data.d, this.params.k);
        if (this.method === "shared-b") W.data[0] = 2;
        return {
          components: W,
          iterations: 0,
          converged: true,
          stopReason: "closed-form",
          solver: "test",
          details: {},
        };
      }
    }
    for (const name of ["shared-a", "shared-b"]) {
      const descriptor = defineMethod({
        name,
        displayName: name,
        summary: "A test method.",
        supervised: false,
        options: OPTIONS,
        create: (options): Shared =>
          new (Shared as unknown as new (d: unknown, o: unknown) => Shared)(descriptor, options),
      });
      registerMethod(descriptor);
    }
    for (const name of ["shared-a", "shared-b"]) {
      const fitted = createMethod(name, { k: 2 }).fit(X);
      const loaded = loadModel(JSON.stringify(fitted.toJSON()));
      expect(loaded.method).toBe(name);
      expect(loaded.transform(X).data).toEqual(fitted.transform(X).data);
    }
  });

  it("names the plug-in, and loads back while it is registered", () => {
    registerMethod(method("mine", (d, k) => Matrix.identity(d.d, k)));
    setMethodPlugin("mine", "mine.mjs");
    expect(methodPlugin("mine")).toBe("mine.mjs");
    const json = loadModel(JSON.stringify(mineModel())).toJSON() as { plugin?: string };
    expect(json.plugin).toBe("mine.mjs");
  });

  it("is refused without the plug-in, naming the method and what to load", () => {
    registerMethod(method("mine", (d, k) => Matrix.identity(d.d, k)));
    setMethodPlugin("mine", "mine.mjs");
    const text = JSON.stringify(mineModel());
    unregisterMethod("mine");
    expect(methodPlugin("mine")).toBeNull();
    const err = errorOf(() => loadModel(text));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      "The model's method \"mine\" comes from the plug-in mine.mjs, which is not loaded: load that plug-in first (the CLI's --plugin mine.mjs; in a program, import it before loadModel).",
    );
  });

  it("of a method without a recorded plug-in has no plugin field", () => {
    registerMethod(method("mine", (d, k) => Matrix.identity(d.d, k)));
    expect("plugin" in mineModel()).toBe(false);
    const text = JSON.stringify(mineModel());
    unregisterMethod("mine");
    expect(errorOf(() => loadModel(text))).toBeInstanceOf(ModelFormatError);
  });

  it("is never recorded for a built-in method, whose model names none", () => {
    expect(() => setMethodPlugin("sdspca", "rp.mjs")).toThrow(
      new ValidationError(
        "name",
        '"sdspca" is one of the built-in methods: it comes from no plug-in.',
      ),
    );
    expect(methodPlugin("sdspca")).toBeNull();
    const saved = createMethod("sdspca", { k: 2, maxIter: 3 }).fit(X, [1, 2, 1, 2]).toJSON();
    expect("plugin" in saved).toBe(false);
    expect(() =>
      loadModelFile(JSON.stringify({ ...saved, plugin: "rp.mjs" }), "model.json"),
    ).toThrow(
      new DataFormatError(
        "model.json",
        `not a valid sdspcaan model: field 'plugin' must be left out: "sdspca" is a built-in method, whose model names no plug-in; got "rp.mjs"`,
      ),
    );
  });

  it("refuses a plug-in name with control characters", () => {
    expect(() => setMethodPlugin("mine", "a\nb")).toThrow(
      'A plug-in\'s name must be a non-empty string without control characters. Got "a\\nb".',
    );
  });
});

function createFitted(): Estimator {
  // A plug-in's name is not one of the built-ins the overloads know: a plain string.
  const name: string = "mine";
  return createMethod(name, { k: 2 }).fit(X);
}

function mineModel(): Record<string, unknown> {
  return createFitted().toJSON() as unknown as Record<string, unknown>;
}

describe("registering a method", () => {
  it("refuses the name of a built-in, saying so", () => {
    expect(() => registerMethod(method("pca", (d, k) => Matrix.identity(d.d, k)))).toThrow(
      'A method named "pca" is already registered: it is one of the built-in methods; give the new method a name of its own.',
    );
  });

  it("names the plug-in that registered a name first", () => {
    registerMethod(method("mine", (d, k) => Matrix.identity(d.d, k)));
    setMethodPlugin("mine", "first.mjs");
    expect(() => registerMethod(method("mine", (d, k) => Matrix.identity(d.d, k)))).toThrow(
      'A method named "mine" is already registered (by the plug-in first.mjs).',
    );
  });

  it("never unregisters a built-in", () => {
    expect(unregisterMethod("pca")).toBe(false);
    expect(methodNames()).toContain("pca");
  });
});

/** `W` with its `t`-th stored entry (row-major) set to `value`. */
function withEntry(W: Matrix, t: number, value: number): Matrix {
  W.data[t] = value;
  return W;
}

describe("a fit whose components break the contract", () => {
  const cases: [string, (d: TrainingData, k: number) => unknown, string][] = [
    [
      "not a Matrix",
      () => [[1, 0]],
      "Mine's fitCore returned components that are not a Matrix (got an object that is not one); a method's components are a d x k Matrix of the sdspcaan package its estimator comes from.",
    ],
    [
      "missing",
      () => undefined,
      "Mine's fitCore returned components that are not a Matrix (got undefined); a method's components are a d x k Matrix of the sdspcaan package its estimator comes from.",
    ],
    [
      "too few rows",
      (d, k) => Matrix.identity(d.d - 1, k),
      "Mine's fitCore returned components of 2 x 2 for 3 features; they must be 3 x 2 (one row per feature, one column per component).",
    ],
    [
      "another number of columns than k",
      (d) => Matrix.identity(d.d, 3),
      "Mine's fitCore returned components of 3 x 3 for 3 features; they must be 3 x 2 (one row per feature, one column per component).",
    ],
    [
      "a NaN",
      (d, k) => withEntry(Matrix.identity(d.d, k), 5, Number.NaN),
      "Mine's fitCore returned components holding NaN at row 2, column 1; a method's components must be finite numbers (the method's fault, not the data's).",
    ],
    [
      "an infinity",
      (d, k) => withEntry(Matrix.identity(d.d, k), 2, Number.NEGATIVE_INFINITY),
      "Mine's fitCore returned components holding -Infinity at row 1, column 0; a method's components must be finite numbers (the method's fault, not the data's).",
    ],
  ];
  it.each(cases)("%s: a ContractError", (_what, components, message) => {
    registerMethod(method("mine", components));
    const err = errorOf(() => createFitted());
    expect(err).toBeInstanceOf(ContractError);
    expect(err.message).toBe(message);
  });
});
