/**
 * The estimator contract as checks a method's own tests run (scikit-learn's
 * `check_estimator`): one check per rule, each a function that throws an Error saying
 * what broke. They need no test framework, so that a plug-in's tests run them under
 * vitest, node:test or anything else (`for (const c of contractChecks("mine"))
 * it(c.name, c.run)`), and the library's runtime never imports one.
 */
import { AbortError, NotFittedError, ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { checkOptionNames, optionProblem } from "../core/options.js";
import { Random } from "../core/rng.js";
import type { Label } from "../core/validate.js";
import { GRID_PRESETS } from "./descriptor.js";
import type { Estimator } from "./estimator.js";
import { methodPlugin } from "./methodPlugins.js";
import { MODEL_FORMAT, MODEL_VERSION } from "./modelFormat.js";
import { createMethod, loadModel, methodDescriptor } from "./registry.js";

/** One rule of the contract: `run` throws an Error saying what broke, or returns. */
export interface ContractCheck {
  readonly name: string;
  readonly run: () => void;
}

/** What the checks fit on, and with which options. */
export interface ContractCheckOptions {
  /**
   * Options of every fit besides the defaults (default `{ k: 2 }`): valid for the
   * data, which is 42 samples of 12 features in 3 classes unless `data` says otherwise.
   */
  readonly options?: Readonly<Record<string, unknown>>;
  /** The data fitted (default: three separated Gaussian classes, 14 samples each, seeded). */
  readonly data?: { readonly X: readonly (readonly number[])[]; readonly y: readonly Label[] };
}

/** Three well-separated Gaussian classes in `d` dimensions, `n / c` samples each. */
export function gaussianClasses(seed = 7, n = 42, d = 12, c = 3): { X: number[][]; y: number[] } {
  const rng = new Random(seed);
  const centres = Array.from({ length: c }, () =>
    Array.from({ length: d }, () => 3 * rng.normal()),
  );
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const cls = i % c;
    X.push(centres[cls].map((m) => m + rng.normal()));
    y.push(cls + 1);
  }
  return { X, y };
}

function fail(what: string): never {
  throw new Error(what);
}

function sameBits(a: Matrix, b: Matrix, what: string): void {
  if (a.rows !== b.rows || a.cols !== b.cols) {
    fail(`${what}: ${a.rows} x ${a.cols} and ${b.rows} x ${b.cols} differ in shape`);
  }
  for (let t = 0; t < a.data.length; t++) {
    if (!Object.is(a.data[t], b.data[t])) {
      fail(
        `${what}: entry (${Math.floor(t / a.cols)}, ${t % a.cols}) is ${a.data[t]} and ${b.data[t]}`,
      );
    }
  }
}

/** Runs `fn` and checks that it throws an error of class `type` whose message matches `pattern`. */
function throwsLike(
  fn: () => unknown,
  type: abstract new (...args: never[]) => Error,
  pattern: RegExp,
  what: string,
): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof type)) {
      fail(
        `${what}: threw ${(err as Error)?.name ?? String(err)} (${String(err)}), not a ${type.name}`,
      );
    }
    if (!pattern.test(err.message)) {
      fail(`${what}: the message ${JSON.stringify(err.message)} does not match ${pattern}`);
    }
    return;
  }
  fail(`${what}: nothing was thrown`);
}

/**
 * The contract's checks for the registered method `name` (register it first):
 * fitting and its report, transform's row stability, determinism, inputs left as
 * they are, the JSON round trip (bit-identical, the plug-in named), a preprocessing
 * carried through, errors before fit and on bad options and data, abort, and a
 * descriptor whose grids are valid options.
 */
export function contractChecks(name: string, options: ContractCheckOptions = {}): ContractCheck[] {
  checkOptionNames("contractChecks", options, ["options", "data"]);
  const descriptor = methodDescriptor(name);
  const method = descriptor.name;
  const { X, y } = options.data
    ? { X: options.data.X.map((r) => [...r]), y: [...options.data.y] }
    : gaussianClasses();
  const d = X[0]?.length ?? 0;
  const fixed = options.options ?? { k: 2 };
  const make = (extra: Record<string, unknown> = {}): Estimator =>
    createMethod(method, { ...fixed, ...extra });
  // Labels go to every method, as the protocol gives them (PCAN takes its c from them).
  const labels = y;
  const check = (title: string, run: () => void): ContractCheck => ({
    name: `${descriptor.displayName}: ${title}`,
    run,
  });
  const setting: CheckSetting = { descriptor, method, fixed, X, y, d, labels, make, check };
  return [...fittingChecks(setting), ...refusalChecks(setting)];
}

/** What every check of one method shares: its descriptor, data and constructor. */
interface CheckSetting {
  readonly descriptor: ReturnType<typeof methodDescriptor>;
  readonly method: string;
  readonly fixed: Record<string, unknown>;
  readonly X: number[][];
  readonly y: Label[];
  readonly d: number;
  readonly labels: Label[];
  readonly make: (extra?: Record<string, unknown>) => Estimator;
  readonly check: (title: string, run: () => void) => ContractCheck;
}

/** The checks of what a fit gives: shapes, bits, round trips, preprocessing. */
function fittingChecks({ method, X, y, d, labels, make, check }: CheckSetting): ContractCheck[] {
  return [
    check("fit returns the estimator with a d x k projection and a fit report", () => {
      const model = make();
      if (model.fit(X, labels) !== model) fail("fit did not return the estimator itself");
      if (model.components.rows !== d)
        fail(`components have ${model.components.rows} rows, not d = ${d}`);
      if (model.mean.length !== d) fail(`mean has ${model.mean.length} entries, not d = ${d}`);
      const info = model.fitInfo;
      if (!Number.isInteger(info.iterations) || info.iterations < 0) {
        fail(`fitInfo.iterations is ${info.iterations}, not an integer >= 0`);
      }
      if (!["closed-form", "converged", "max-iterations", "lambda-cap"].includes(info.stopReason)) {
        fail(`fitInfo.stopReason is ${JSON.stringify(info.stopReason)}`);
      }
      for (const v of model.components.data) {
        if (!Number.isFinite(v)) fail(`the components hold ${v}`);
      }
    }),
    check("fitTransform equals fit then transform, bit for bit", () => {
      sameBits(make().fitTransform(X, labels), make().fit(X, labels).transform(X), "fitTransform");
    }),
    check("transforms any rows, in any order, as the full transform does", () => {
      const model = make().fit(X, labels);
      const full = model.transform(X);
      const rows = [5 % X.length, 0, X.length - 1, 5 % X.length];
      const part = model.transform(rows.map((i) => X[i]));
      sameBits(part, full.selectRows(rows), "transform of rows 5, 0, n - 1, 5");
    }),
    check("leaves its inputs as they were", () => {
      const X0 = JSON.stringify(X);
      const y0 = JSON.stringify(y);
      const M = Matrix.fromRows(X);
      const M0 = M.data.slice();
      make().fit(X, labels);
      make().fit(M, labels).transform(M);
      if (JSON.stringify(X) !== X0) fail("fit changed X");
      if (JSON.stringify(y) !== y0) fail("fit changed y");
      sameBits(M, new Matrix(M.rows, M.cols, M0), "X given as a Matrix");
    }),
    check("gives the same bits for the same data and options", () => {
      sameBits(make().fitTransform(X, labels), make().fitTransform(X, labels), "two fits");
    }),
    check("saves to JSON and loads back to the same transform, bit for bit", () => {
      const model = make().fit(X, labels);
      const text = JSON.stringify(model.toJSON());
      const json = JSON.parse(text) as Record<string, unknown>;
      if (json.format !== MODEL_FORMAT || json.version !== MODEL_VERSION) {
        fail(`toJSON wrote format ${String(json.format)} version ${String(json.version)}`);
      }
      const plugin = methodPlugin(method);
      if (plugin !== null && json.plugin !== plugin) {
        fail(`the model file names the plug-in ${String(json.plugin)}, not ${plugin}`);
      }
      const loaded = loadModel(text) as Estimator;
      if (loaded.method !== method) fail(`loadModel gave a ${loaded.method} model`);
      sameBits(loaded.transform(X), model.transform(X), "the loaded model's transform");
      if (JSON.stringify(loaded.toJSON()) !== text) fail("the loaded model saves other JSON");
    }),
    check("applies a preprocessing before projecting, and saves it", () => {
      const center = Array.from({ length: d }, (_, j) => j / 3);
      const scale = Array.from({ length: d }, (_, j) => 1 + j / 7);
      const scaled = X.map((r) => r.map((v, j) => (v - center[j]) / scale[j]));
      const model = make()
        .fit(scaled, labels)
        .setPreprocessing({ method: "train-zscore", center, scale });
      const direct = make().fit(scaled, labels).transform(scaled);
      sameBits(model.transform(X), direct, "transform with the preprocessing");
      const loaded = loadModel(JSON.stringify(model.toJSON())) as Estimator;
      sameBits(loaded.transform(X), direct, "the loaded model's transform with the preprocessing");
    }),
  ];
}

/** The checks of what a method refuses: early calls, bad options and data, abort; its grids. */
function refusalChecks({
  fixed,
  descriptor,
  method,
  X,
  y,
  d,
  labels,
  make,
  check,
}: CheckSetting): ContractCheck[] {
  return [
    check("refuses to transform or save before fit", () => {
      throwsLike(
        () => make().transform(X),
        NotFittedError,
        /not fitted yet/,
        "transform before fit",
      );
      throwsLike(() => make().toJSON(), NotFittedError, /not fitted yet/, "toJSON before fit");
    }),
    check("refuses unknown and out-of-range options, naming them", () => {
      throwsLike(
        () => createMethod(method, { ...fixed, notAnOption: 1 }),
        ValidationError,
        /no option 'notAnOption'/,
        "an unknown option",
      );
      if (descriptor.options.k !== undefined) {
        throwsLike(() => make({ k: 0 }), ValidationError, /'k'/, "k = 0");
      }
    }),
    check("refuses data with NaN, naming its row and column", () => {
      const bad = X.map((r) => [...r]);
      bad[3 % X.length][d - 1] = Number.NaN;
      throwsLike(
        () => make().fit(bad, labels),
        ValidationError,
        new RegExp(`NaN at row ${3 % X.length}, column ${d - 1}`),
        "X with NaN",
      );
      if (descriptor.supervised) {
        throwsLike(
          () => make().fit(X, y.slice(1)),
          ValidationError,
          /labels, but X has/,
          "one label too few",
        );
      }
    }),
    check("refuses to transform data with another number of features", () => {
      const model = make().fit(X, labels);
      throwsLike(
        () => model.transform(X.map((r) => r.slice(1))),
        ValidationError,
        new RegExp(`has ${d - 1} features, but .* is expecting ${d} features`),
        "transform of d - 1 features",
      );
    }),
    check("stops with an AbortError when its signal has fired", () => {
      const controller = new AbortController();
      controller.abort();
      throwsLike(
        () => make().fit(X, labels, { signal: controller.signal }),
        AbortError,
        /abort/i,
        "fit with an aborted signal",
      );
    }),
    check("declares grids of valid option values", () => {
      for (const [option, values] of Object.entries(descriptor.tuned ?? {})) {
        for (const preset of GRID_PRESETS) {
          const list = (values as Record<string, readonly number[]>)[preset];
          if (!Array.isArray(list) || list.length === 0) {
            fail(`the ${preset} grid of '${option}' is not a non-empty list`);
          }
          for (const v of list) {
            const problem = optionProblem(descriptor.options[option], v);
            if (problem !== null) fail(`the ${preset} grid's '${option}' = ${v}: ${problem}`);
          }
        }
      }
    }),
  ];
}
