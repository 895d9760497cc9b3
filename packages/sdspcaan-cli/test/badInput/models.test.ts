/**
 * Saved models (JSON) that used to load and then project wrongly: a missing
 * preprocessing, a bogus preprocessing method, params that disagree with W. A loaded
 * model is exactly what was saved, or refused with the field named.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ModelJSON } from "sdspcaan";
import { createMethod, DataFormatError, loadModel, ModelFormatError } from "sdspcaan";
import { formatBytes } from "sdspcaan/formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readModelText } from "#internal/io/modelFile.js";
import { cli } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";
import { csvText, errorOf, expectRefused, smallRows, writeText } from "./helpers.js";

let dir: string;
let data: string;
const { X, y } = smallRows();
const scaled = X.map((r) => r.map((v) => v / 2));

/** A fitted model's JSON: PCA (k = 2) with a train-zscore-like standardisation. */
function savedModel(method = "pca", options: Record<string, unknown> = { k: 2 }): ModelJSON {
  const model = createMethod(method, options).fit(scaled, y);
  model.setPreprocessing({
    method: "train-zscore",
    center: [0, 0, 0, 0],
    scale: [2, 2, 2, 2],
  });
  return JSON.parse(JSON.stringify(model.toJSON()));
}

/** The field a ModelFormatError names, and its message, for a damaged copy of the model. */
function refusal(change: (m: Record<string, unknown>) => void, method?: string): ModelFormatError {
  const json = savedModel(method, method === "jpcda" ? { k: 2 } : undefined) as unknown as Record<
    string,
    unknown
  >;
  change(json);
  const err = errorOf(() => loadModel(json));
  expect(err).toBeInstanceOf(ModelFormatError);
  return err as ModelFormatError;
}

beforeAll(() => {
  dir = tempDir("bad-models");
  data = writeText(dir, "new.csv", csvText(X));
});
afterAll(() => removeDir(dir));

/** Writes a damaged model file and checks transform refuses it naming file and field. */
async function refusedByTransform(
  name: string,
  change: (m: Record<string, unknown>) => void,
  mentions: string[],
): Promise<string> {
  const json = savedModel() as unknown as Record<string, unknown>;
  change(json);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(json));
  const out = join(dir, `${name}.csv`);
  return expectRefused(
    ["transform", "--model", file, "--data", data, "--out", out],
    [`${file}: not a valid sdspcaan model`, ...mentions],
    out,
  );
}

describe("model files refused by the CLI, naming the file and the field", () => {
  it("a model without 'preprocessing'", async () => {
    await refusedByTransform("no-pre.json", (m) => delete m.preprocessing, [
      "field 'preprocessing' is missing",
    ]);
  });

  it("a version 1 model without 'preprocessing', with the fix", async () => {
    await refusedByTransform(
      "v1-no-pre.json",
      (m) => {
        m.version = 1;
        delete m.preprocessing;
      },
      ["field 'preprocessing' is missing", 'add "preprocessing": null', "fit the model again"],
    );
  });

  it("a bogus preprocessing method", async () => {
    await refusedByTransform(
      "bogus.json",
      (m) => {
        (m.preprocessing as Record<string, unknown>).method = "bogus";
      },
      [
        `field 'preprocessing.method' must be one of "train-zscore", "dataset-zscore", "custom"; got "bogus"`,
      ],
    );
  });

  it("a params.k that disagrees with the number of components", async () => {
    await refusedByTransform(
      "k.json",
      (m) => {
        (m.params as Record<string, unknown>).k = 5;
      },
      ["field 'components.cols' is 2, but params.k is 5"],
    );
  });

  it("a misspelt field", async () => {
    await refusedByTransform(
      "typo.json",
      (m) => {
        m.preprocesing = m.preprocessing;
      },
      ["field 'preprocesing' is not part of the model format"],
    );
  });

  it("an unknown method", async () => {
    await refusedByTransform(
      "method.json",
      (m) => {
        m.method = "pcaa";
      },
      [`field 'method' must be one of "baseline", "pca"`, 'got "pcaa"'],
    );
  });
});

describe("loadModel validates every field", () => {
  it("reads a version 1 model that says it has no preprocessing", () => {
    const json = savedModel() as unknown as Record<string, unknown>;
    json.version = 1;
    json.preprocessing = null;
    const model = loadModel(json);
    expect(model.preprocessing).toBeNull();
    expect(model.toJSON().version).toBe(savedModel().version);
  });

  it("loads exactly what was saved", () => {
    const json = savedModel("sdspcaan", { k: 2, delta: 3, m: 5 });
    expect(loadModel(JSON.stringify(json)).toJSON()).toEqual(json);
  });

  it.each([
    [
      "params.alpha",
      (m: Record<string, unknown>) => ((m.params as Record<string, unknown>).alpha = 1),
      "is not an option of PCA",
    ],
    [
      "params.k",
      (m: Record<string, unknown>) => delete (m.params as Record<string, unknown>).k,
      "is missing",
    ],
    [
      "params.k",
      (m: Record<string, unknown>) => ((m.params as Record<string, unknown>).k = 0),
      "must be an integer in [1, inf) or a fraction in (0, 1); got 0",
    ],
    ["nFeaturesIn", (m: Record<string, unknown>) => (m.nFeaturesIn = 0), "must be an integer >= 1"],
    [
      "mean",
      (m: Record<string, unknown>) => (m.mean as number[]).pop(),
      "must hold 4 finite numbers",
    ],
    [
      "mean[1]",
      (m: Record<string, unknown>) => ((m.mean as unknown[])[1] = "x"),
      "must be a finite number",
    ],
    [
      "components.rows",
      (m: Record<string, unknown>) => ((m.components as Record<string, unknown>).rows = 3),
      "must equal nFeaturesIn = 4",
    ],
    [
      "components.data[5]",
      (m: Record<string, unknown>) => ((m.components as { data: unknown[] }).data[5] = null),
      "must be a finite number; got null",
    ],
    [
      "preprocessing.scale[2]",
      (m: Record<string, unknown>) => ((m.preprocessing as { scale: number[] }).scale[2] = 0),
      "must be a finite non-zero number",
    ],
    [
      "preprocessing.center",
      (m: Record<string, unknown>) => (m.preprocessing as { center: number[] }).center.push(1),
      "must hold 4 finite numbers",
    ],
    [
      "classes[1]",
      (m: Record<string, unknown>) => ((m.classes as number[])[1] = 1),
      "sorted and distinct",
    ],
    [
      "fitInfo.stopReason",
      (m: Record<string, unknown>) => ((m.fitInfo as Record<string, unknown>).stopReason = "done"),
      'must be one of "closed-form"',
    ],
    [
      "fitInfo.timings",
      (m: Record<string, unknown>) => ((m.fitInfo as Record<string, unknown>).timings = 3),
      "must be an object",
    ],
    ["version", (m: Record<string, unknown>) => (m.version = 5), "must be one of 1, 2, 3, 4"],
    [
      "fitInfo.warnings[0]",
      (m: Record<string, unknown>) => ((m.fitInfo as Record<string, unknown>).warnings = ["text"]),
      "must be an object",
    ],
    [
      "fitInfo.warnings[0].code",
      (m: Record<string, unknown>) =>
        ((m.fitInfo as Record<string, unknown>).warnings = [
          { code: "slow", message: "m", values: {} },
        ]),
      'must be one of "max-iterations", "lambda-cycle"',
    ],
    [
      "fitInfo.warnings[0].values.change",
      (m: Record<string, unknown>) =>
        ((m.fitInfo as Record<string, unknown>).warnings = [
          { code: "max-iterations", message: "m", values: { change: "9.92" } },
        ]),
      "must be a number or null",
    ],
    [
      "fitInfo.warnings[0].values",
      (m: Record<string, unknown>) =>
        ((m.fitInfo as Record<string, unknown>).warnings = [
          { code: "max-iterations", message: "m" },
        ]),
      "is missing",
    ],
  ])("names %s", (field, change, says) => {
    const err = refusal(change);
    expect(err.field).toBe(field);
    expect(err.message).toContain(says);
  });

  it("refuses a supervised model without its classes", () => {
    const err = refusal((m) => delete m.classes, "lda");
    expect(err.field).toBe("classes");
  });

  it("checks JPCDA's width against its classes, not k", () => {
    const ok = savedModel("jpcda", { k: 2 });
    expect(ok.components.cols).toBe(3);
    expect(loadModel(ok).nComponents).toBe(3);
    const err = refusal((m) => (m.classes as number[]).pop(), "jpcda");
    expect(err.field).toBe("components.cols");
    expect(err.message).toContain("one component per class, and 'classes' lists 2");
  });

  it("refuses a model loaded through another method's class", () => {
    const Cls = createMethod("sdspca").constructor as unknown as { fromJSON(j: unknown): unknown };
    const err = errorOf(() => Cls.fromJSON(savedModel()));
    expect(err).toBeInstanceOf(ModelFormatError);
    expect((err as ModelFormatError).field).toBe("method");
  });
});

/** A model's JSON text with the first `components.data` entry written as `literal`. */
function withLiteral(json: ModelJSON, literal: string): string {
  const text = JSON.stringify(json);
  const data = text.indexOf('"data":[') + '"data":['.length;
  const end = text.indexOf(",", data);
  return text.slice(0, data) + literal + text.slice(end);
}

/** The text of `json` with `depth` arrays nested in fitInfo.details.deep. */
function nested(json: ModelJSON, depth: number): string {
  const copy = JSON.parse(JSON.stringify(json)) as Record<string, unknown>;
  (copy.fitInfo as { details: Record<string, unknown> }).details.deep = "@";
  return JSON.stringify(copy).replace('"@"', "[".repeat(depth) + "]".repeat(depth));
}

describe("model files as a whole: size, byte-order mark, depth, numbers", () => {
  it("reads a file starting with a UTF-8 byte-order mark", async () => {
    const saved = savedModel();
    const file = join(dir, "bom.json");
    writeFileSync(file, `\uFEFF${JSON.stringify(saved)}`);
    const out = join(dir, "bom.csv");
    const r = await cli(["transform", "--model", file, "--data", data, "--out", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readFileSync(out, "utf8").split("\n")[0]).toBe("c1,c2");
    expect(loadModel(`\uFEFF${JSON.stringify(saved)}`).toJSON()).toEqual(saved);
  });

  it("quotes a number beyond double precision with its field", async () => {
    const text = withLiteral(savedModel(), "1e999");
    const err = errorOf(() => loadModel(text)) as ModelFormatError;
    expect(err).toBeInstanceOf(ModelFormatError);
    expect(err.field).toBe("components.data[0]");
    expect(err.problem).toBe("is not a finite number: 1e999");
    const file = writeText(dir, "inf.json", withLiteral(savedModel(), "-1E+400"));
    await expectRefused(
      ["transform", "--model", file, "--data", data, "--out", join(dir, "inf.csv")],
      [
        `${file}: not a valid sdspcaan model: field 'components.data[0]' is not a finite number: -1E+400`,
      ],
      join(dir, "inf.csv"),
    );
    // Given as a value, Infinity is shown as itself, not as JSON's null.
    const json = savedModel() as unknown as { mean: number[] };
    json.mean[2] = Number.NEGATIVE_INFINITY;
    const valueErr = errorOf(() => loadModel(json)) as ModelFormatError;
    expect(valueErr.field).toBe("mean[2]");
    expect(valueErr.problem).toBe("must be a finite number; got -Infinity");
  });

  it("refuses a file nested 8,000 deep, naming the limit, without a stack overflow", async () => {
    const saved = savedModel();
    const file = writeText(dir, "deep.json", nested(saved, 8000));
    await expectRefused(
      ["transform", "--model", file, "--data", data, "--out", join(dir, "deep.csv")],
      [
        `${file}: not a valid sdspcaan model: nested 8003 deep; a model file nests at most 64 levels`,
      ],
      join(dir, "deep.csv"),
    );
    // Parsed already (as a web page may hand it over): refused from the value.
    const err = errorOf(() => loadModel(JSON.parse(nested(saved, 8000)))) as ModelFormatError;
    expect(err.field).toBe("");
    expect(err.problem).toBe("nested more than 64 deep; a model file nests at most 64 levels");
    // 64 levels are within the limit (the details are the method's own); 65 are not.
    expect((loadModel(nested(saved, 61)).toJSON() as ModelJSON).fitInfo.details).toHaveProperty(
      "deep",
    );
    expect(loadModel(JSON.parse(nested(saved, 61))).toJSON()).toEqual(
      JSON.parse(nested(saved, 61)),
    );
    const over = errorOf(() => loadModel(nested(saved, 62))) as ModelFormatError;
    expect(over.problem).toBe("nested 65 deep; a model file nests at most 64 levels");
    const overValue = errorOf(() => loadModel(JSON.parse(nested(saved, 62)))) as ModelFormatError;
    expect(overValue.problem).toBe(
      "nested more than 64 deep; a model file nests at most 64 levels",
    );
  });

  it("refuses a file past the size limit before reading it", () => {
    const text = JSON.stringify(savedModel());
    const file = writeText(dir, "big.json", text);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(100);
    const err = errorOf(() => readModelText(file, 100));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toBe(
      `${file}: is ${formatBytes(size)}; a model file holds at most 100 bytes`,
    );
    expect(readModelText(file)).toBe(text);
  });
});
