/**
 * The plan of a run as a pure function of its settings: units and k lists, and
 * fingerprints that change with what decides a fit's result and with nothing else.
 */

import { ValidationError } from "sdspcaan";
import { makeSplit } from "sdspcaan/methods";
import { describe, expect, it } from "vitest";
import { FitFingerprints, planRun, type RunSettings } from "#internal/protocol/plan.js";

const settings: RunSettings = {
  format: "sdspcaan-experiment",
  version: 1,
  datasets: [
    {
      name: "D",
      n: 60,
      d: 24,
      classes: 4,
      checksum: "0123456789abcdef",
      splitsChecksum: null,
      origin: null,
      splitsFile: null,
    },
  ],
  methods: ["baseline", "pca", "sdspcaan"],
  grid: { alpha: [1], beta: [1], delta: [0.1, 10] },
  kGrid: [4, 8],
  repeats: 2,
  seed: 5,
  preprocess: "train-zscore",
  stratify: false,
  fractions: { train: 0.2, val: 0.4 },
  methodOptions: { baseline: {}, pca: {}, sdspcaan: { maxIter: 30 } },
};
const seeded = [{ y: null, splits: null }];

/** fitKey -> fingerprint of a plan, as a plain object. */
function prints(s: RunSettings, data = seeded): Record<string, string> {
  return Object.fromEntries(planRun(s, data).fingerprints);
}

describe("planRun", () => {
  it("plans every (repeat, method, k, grid point) of the settings, in run order", () => {
    const plan = planRun(settings, seeded);
    expect(plan.total).toBe(16);
    expect(plan.units.map((u) => [u.repeat, u.method, u.fits.length])).toEqual([
      [0, "baseline", 2],
      [0, "pca", 2],
      [0, "sdspcaan", 4],
      [1, "baseline", 2],
      [1, "pca", 2],
      [1, "sdspcaan", 4],
    ]);
    expect(plan.units[0].split).toEqual(makeSplit(60, { seed: 5, dataset: "D", repeat: 0 }));
    expect(plan.fingerprints.size).toBe(16);
    expect(new Set(plan.fingerprints.values()).size).toBe(16);
    expect(plan.warnings).toEqual([]);
  });

  it("keeps a fit's fingerprint when only other fits change (methods, k values, repeats)", () => {
    const before = prints(settings);
    const after = prints({
      ...settings,
      methods: ["pca", "sdspcaan"],
      methodOptions: { pca: {}, sdspcaan: { maxIter: 30 } },
      kGrid: [4, 8, 10],
      repeats: 3,
    });
    for (const [key, fp] of Object.entries(before)) {
      if (!key.includes('"baseline"')) expect(after[key]).toBe(fp);
    }
  });

  it("changes every affected fingerprint with the data, seed, preprocessing or a method option", () => {
    const before = prints(settings);
    const changed = (s: RunSettings) => {
      const after = prints(s);
      return Object.keys(before).filter((k) => after[k] !== before[k]).length;
    };
    expect(changed({ ...settings, seed: 6 })).toBe(16);
    expect(changed({ ...settings, preprocess: "none" })).toBe(16);
    expect(
      changed({
        ...settings,
        datasets: [{ ...settings.datasets[0], checksum: "fedcba9876543210" }],
      }),
    ).toBe(16);
    expect(changed({ ...settings, fractions: { train: 0.25, val: 0.35 } })).toBe(16);
    // maxIter of SDSPCAAN changes its 8 fits only; an option equal to the default changes nothing.
    expect(
      changed({
        ...settings,
        methodOptions: { ...settings.methodOptions, sdspcaan: { maxIter: 31 } },
      }),
    ).toBe(8);
    expect(
      changed({
        ...settings,
        methodOptions: { ...settings.methodOptions, sdspcaan: { maxIter: 30, tol: 1e-3 } },
      }),
    ).toBe(0);
  });

  it("gives SLNP under the authors preset other fingerprints when the k grid changes its PCA dimension", () => {
    const slnp: RunSettings = {
      ...settings,
      methods: ["slnp"],
      grid: "authors",
      methodOptions: { slnp: {} },
    };
    const a = planRun(slnp, seeded);
    const b = planRun({ ...slnp, kGrid: [4, 8, 10] }, seeded);
    expect(a.units[0].unitOptions).toEqual({ pcaDimensions: 8 });
    expect(b.units[0].unitOptions).toEqual({ pcaDimensions: 10 });
    const key = [...a.fingerprints.keys()][0];
    expect(b.fingerprints.get(key)).not.toBe(a.fingerprints.get(key));
  });

  it("agrees with the fingerprint of a line computed from the settings", () => {
    const plan = planRun(settings, seeded);
    const fp = new FitFingerprints(settings, (_, repeat) =>
      makeSplit(60, { seed: 5, dataset: "D", repeat }),
    );
    const unit = plan.units[2];
    const fit = unit.fits[1];
    expect(
      fp.ofLine({
        dataset: "D",
        repeat: unit.repeat,
        method: unit.method,
        k: fit.k,
        params: fit.params,
      }),
    ).toBe(fit.fingerprint);
    expect(fp.ofLine({ dataset: "E", repeat: 0, method: "pca", k: 4, params: {} })).toBeNull();
    expect(fp.ofLine({ dataset: "D", repeat: 0, method: "lda", k: 4, params: {} })).toBeNull();
  });

  it("still gives the lines of an earlier build's run their fingerprints", () => {
    // Two lines of the 10-repeat authors run of docs/reproduction.md, written by the
    // build of commit 4d4a117: a resumed run recognises its finished fits.
    const run: RunSettings = {
      ...settings,
      datasets: [
        {
          name: "YaleB",
          n: 2414,
          d: 1024,
          classes: 38,
          checksum: "b1c64ce2ab13a779",
          splitsChecksum: null,
          origin: null,
          splitsFile: null,
        },
      ],
      methods: ["pca", "sdspca", "sdspcaan"],
      grid: "authors",
      kGrid: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
      repeats: 10,
      seed: 0,
      preprocess: "dataset-zscore",
      methodOptions: { pca: {}, sdspca: {}, sdspcaan: {} },
    };
    const fp = new FitFingerprints(run, (_, repeat) =>
      makeSplit(2414, { seed: 0, dataset: "YaleB", repeat }),
    );
    const line = (method: string, params: Record<string, number>) =>
      fp.ofLine({ dataset: "YaleB", repeat: 0, method, k: 100, params });
    expect(line("sdspcaan", { alpha: 1, beta: 1, delta: 0.01 })).toBe("0ddafc264b4dbc80");
    expect(line("sdspca", { alpha: 1, beta: 1 })).toBe("132a5e585240278c");
    // PCA's line of runs/table4, written before PCA had `whiten`: an option added later
    // (its spec's `since`) at its default leaves the fingerprint as it was.
    expect(line("pca", {})).toBe("4731e6dacf0fed13");
  });

  it("bounds LDA's k by the classes of the training split and needs the labels for it", () => {
    const y = Array.from({ length: 60 }, (_, i) => i % 4);
    const split = {
      train: Int32Array.from([0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14]), // classes 0, 1, 2 only
      val: Int32Array.from(Array.from({ length: 24 }, (_, i) => 16 + i)),
      test: Int32Array.from([3, 7, 11, 15, ...Array.from({ length: 20 }, (_, i) => 40 + i)]),
    };
    const lda: RunSettings = {
      ...settings,
      methods: ["lda"],
      repeats: 1,
      kGrid: [1, 2, 3],
      methodOptions: { lda: {} },
    };
    const plan = planRun(lda, [{ y, splits: [split] }]);
    expect(plan.units[0].fits.map((f) => f.k)).toEqual([1, 2]);
    const { warnings } = planRun(lda, [{ y, splits: [split] }], { explicitKGrid: true });
    // Class 3 is left out of this training part on purpose, and the plan says so.
    expect(warnings).toContainEqual(expect.stringMatching(/D, lda: k = 3 dropped/));
    expect(warnings).toContainEqual(
      expect.stringMatching(/D, repeat 0: class 3 has no training sample/),
    );
    expect(() => planRun(lda, seeded)).toThrow(/LDA's k bound on D needs the labels/);
  });

  it("refuses an explicit k grid with no valid k, and notes a substituted k of the default grid", () => {
    expect(() => planRun({ ...settings, kGrid: [500] }, seeded, { explicitKGrid: true })).toThrow(
      ValidationError,
    );
    expect(() => planRun({ ...settings, kGrid: [500] }, seeded, { explicitKGrid: true })).toThrow(
      /The k grid \(500\) leaves no valid k for D \(repeat 0\): k must be in \[4, 12\]/,
    );
    const plan = planRun({ ...settings, kGrid: [500] }, seeded);
    expect(plan.units[0].fits.map((f) => f.k)).toEqual([12]);
    expect(plan.notes.join(" ")).toMatch(
      /D: no k of the grid \(500\) is in \[4, 12\].*nearest valid k = 12 runs/,
    );
    expect(() => planRun({ ...settings, stratify: true }, seeded)).toThrow(
      /stratified splits of D need its labels/,
    );
  });
});
