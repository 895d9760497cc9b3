/**
 * A method is one descriptor: a small extra method declared in this file alone
 * appears in the registry, the grids, the runner and the CLI (flags, --help) without
 * any other file knowing about it.
 */

import {
  createMethod,
  Estimator,
  loadModel,
  Matrix,
  methodNames,
  type TrainingData,
} from "sdspcaan";
import {
  type CoreFitResult,
  defineMethod,
  type FitContext,
  type OptionSchema,
  type OptionsOf,
  protocolOrder,
  registerMethod,
  unregisterMethod,
} from "sdspcaan/methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hyperparameterGrid, tunableParams } from "#internal/protocol/grids.js";
import { runExperiment } from "#internal/runner/runner.node.js";
import { argv, cli, writeCsv } from "../helpers/cli.js";
import { removeDir, smallData, tempDir } from "../helpers/runs.js";

const OPTIONS = {
  k: { type: "integer", min: 1, default: 2, doc: "Features kept." },
  gain: { type: "number", min: 0, exclusiveMin: true, default: 1, doc: "Scale of W." },
} as const satisfies OptionSchema;

type ScaledBaselineOptions = OptionsOf<typeof OPTIONS>;

/** W = gain * I_{d x k}: the first k features, scaled. */
class ScaledBaseline extends Estimator<ScaledBaselineOptions, { gain: number }> {
  constructor(options: Partial<ScaledBaselineOptions> = {}) {
    super(SCALED_BASELINE, options);
  }

  protected fitCore(data: TrainingData, _ctx: FitContext): CoreFitResult<{ gain: number }> {
    const W = Matrix.identity(data.d, this.params.k);
    for (let t = 0; t < W.data.length; t++) W.data[t] *= this.params.gain;
    return {
      components: W,
      iterations: 0,
      converged: true,
      stopReason: "closed-form",
      solver: "closed-form",
      details: { gain: this.params.gain },
    };
  }
}

const SCALED_BASELINE = defineMethod({
  name: "scaled-baseline",
  displayName: "Scaled baseline",
  summary: "The first k features times a gain (a test method).",
  supervised: false,
  options: OPTIONS,
  tuned: { gain: { paper: [1, 2, 4], authors: [1], quick: [1, 2] } },
  create: (options) => new ScaledBaseline(options),
});

const dir = tempDir("extra-method");
const data = smallData(9);
const csv = `${dir}/small.csv`;

beforeAll(() => {
  registerMethod(SCALED_BASELINE);
  writeCsv(csv, data.X, data.y);
});
afterAll(() => {
  unregisterMethod("scaled-baseline");
  removeDir(dir);
});

describe("an extra method declared in a test file", () => {
  it("is in the registry, after the built-in methods, and loads from its JSON", () => {
    expect(methodNames().at(-1)).toBe("scaled-baseline");
    expect(protocolOrder().at(-1)).toBe("scaled-baseline");
    // A name spelt as a user may type it at run time: a string, normalised by the registry.
    const typed: string = "Scaled_Baseline";
    const model = createMethod(typed, { k: 3, gain: 2 }).fit(data.X, data.y);
    expect(model.displayName).toBe("Scaled baseline");
    expect(model.fitInfo.details).toEqual({ gain: 2 });
    const again = loadModel(JSON.stringify(model.toJSON()));
    expect(Array.from(again.transform(data.X).data)).toEqual(
      Array.from(model.transform(data.X).data),
    );
  });

  it("has grids from its own declaration", () => {
    expect(hyperparameterGrid("scaled-baseline", "paper")).toEqual([
      { gain: 1 },
      { gain: 2 },
      { gain: 4 },
    ]);
    expect(hyperparameterGrid("scaled-baseline", "quick")).toEqual([{ gain: 1 }, { gain: 2 }]);
    expect(tunableParams()).toEqual(["alpha", "beta", "delta", "eta", "gain"]);
  });

  it("runs in the protocol, tuned over its grid", async () => {
    const res = await runExperiment({
      datasets: [{ name: "Small", X: data.X, y: data.y }],
      methods: ["scaled-baseline"],
      grid: "quick",
      kGrid: [4, 8],
      repeats: 1,
      seed: 1,
      workers: 1,
    });
    const points = res.records.map((r) => `${r.k}:${r.params.gain}`).sort();
    expect(points).toEqual(["4:1", "4:2", "8:1", "8:2"]);
  });

  it("gets CLI flags from its options, listed in --help", async () => {
    const help = await cli(["fit", "--help"]);
    expect(help.stdout).toMatch(/--gain <x>\s+Scale of W\. \[scaled-baseline\]/);
    expect(help.stdout).toMatch(/scaled-baseline \(case-insensitive/);
    const out = `${dir}/model.json`;
    const r = await cli(
      argv`fit --data ${csv} --method scaled-baseline --k 3 --gain 4 --out ${out} --no-progress`,
    );
    expect(r.code).toBe(0);
    const refused = await cli(argv`fit --data ${csv} --method pca --k 3 --gain 4 --out ${out}`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/PCA has no option 'gain'/);
  });
});
