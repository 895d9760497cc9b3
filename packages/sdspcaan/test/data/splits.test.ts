import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { deriveSeed } from "#internal/core/rng.js";
import {
  makeSplit,
  makeSplits,
  missingClassesReport,
  missingClassesWarning,
  parseSplitFile,
  roundedCount,
  type Split,
  splitSeed,
  splitSizes,
  splitsToJSON,
} from "#internal/data/splits.js";
import { inputs } from "../helpers/properties.js";

function expectPartition(s: Split, n: number): void {
  const all = [...s.train, ...s.val, ...s.test].sort((a, b) => a - b);
  expect(all).toEqual([...Array(n).keys()]);
  for (const part of [s.train, s.val, s.test]) {
    for (let i = 1; i < part.length; i++) expect(part[i]).toBeGreaterThan(part[i - 1]);
  }
}

describe("splitSizes", () => {
  it("gives round(0.2 N) / round(0.4 N) / rest", () => {
    expect(splitSizes(5)).toEqual({ train: 1, val: 2, test: 2 });
    expect(splitSizes(7)).toEqual({ train: 1, val: 3, test: 3 });
    expect(splitSizes(8)).toEqual({ train: 2, val: 3, test: 3 });
    expect(splitSizes(165)).toEqual({ train: 33, val: 66, test: 66 });
    expect(splitSizes(1799)).toEqual({ train: 360, val: 720, test: 719 });
    expect(splitSizes(2414)).toEqual({ train: 483, val: 966, test: 965 });
  });

  it("rounds halves up, as MATLAB", () => {
    expect(roundedCount(0.5, 5)).toBe(3);
    expect(roundedCount(0.3, 5)).toBe(2);
    expect(roundedCount(0.1, 5)).toBe(1);
    expect(roundedCount(0.2, 7)).toBe(1);
  });

  it("rejects sizes that leave a part empty, with the numbers", () => {
    expect(() => splitSizes(2)).toThrow(
      /'n' must be an integer in \[3, inf\) so that .* Got 2 instead/,
    );
    expect(() => splitSizes(10, { train: 0.04, val: 0.4 })).toThrow(/0\/4\/6/);
    expect(() => splitSizes(10, { train: 0.6, val: 0.4 })).toThrow(/must be < 1/);
  });
});

describe("makeSplit", () => {
  it("partitions 0..N-1 exactly with the right sizes", () => {
    fc.assert(
      fc.property(
        inputs({ n: [3, 400], seed: [0, 2 ** 31], repeat: [0, 20] }),
        ({ n, seed, repeat }) => {
          const s = makeSplit(n, { seed, dataset: "D", repeat });
          expectPartition(s, n);
          const sizes = splitSizes(n);
          expect([s.train.length, s.val.length, s.test.length]).toEqual([
            sizes.train,
            sizes.val,
            sizes.test,
          ]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("depends only on (seed, dataset, repeat)", () => {
    const alone = makeSplit(400, { seed: 7, dataset: "ORL", repeat: 3 });
    const inBatch = makeSplits(400, { seed: 7, dataset: "ORL", repeats: 5 })[3];
    expect(Array.from(alone.train)).toEqual(Array.from(inBatch.train));
    expect(Array.from(alone.val)).toEqual(Array.from(inBatch.val));
    expect(Array.from(alone.test)).toEqual(Array.from(inBatch.test));
    // Other datasets and repeats generated in between change nothing.
    makeSplit(165, { seed: 7, dataset: "Yale", repeat: 3 });
    const again = makeSplit(400, { seed: 7, dataset: "ORL", repeat: 3 });
    expect(Array.from(again.train)).toEqual(Array.from(alone.train));
    expect(splitSeed(7, "ORL", 3)).toBe(deriveSeed(7, "ORL", 3));
  });

  it("differs between repeats, datasets and seeds", () => {
    const a = makeSplit(400, { seed: 7, dataset: "ORL", repeat: 0 });
    const others = [
      makeSplit(400, { seed: 7, dataset: "ORL", repeat: 1 }),
      makeSplit(400, { seed: 7, dataset: "COIL20", repeat: 0 }),
      makeSplit(400, { seed: 8, dataset: "ORL", repeat: 0 }),
    ];
    for (const b of others) expect(Array.from(b.train)).not.toEqual(Array.from(a.train));
  });

  it("keeps class proportions when stratified", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 3, max: 40 }), { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (counts, seed) => {
          const y: string[] = [];
          counts.forEach((c, k) => {
            for (let i = 0; i < c; i++) y.push(`c${k}`);
          });
          // Interleave so classes are not contiguous.
          const order = [...y.keys()].sort((a, b) => ((a * 37) % y.length) - ((b * 37) % y.length));
          const yy = order.map((i) => y[i]);
          const s = makeSplit(yy.length, { seed, dataset: "S", repeat: 0, stratify: true, y: yy });
          expectPartition(s, yy.length);
          counts.forEach((c, k) => {
            const inTrain = Array.from(s.train).filter((i) => yy[i] === `c${k}`).length;
            const inVal = Array.from(s.val).filter((i) => yy[i] === `c${k}`).length;
            expect(inTrain).toBe(roundedCount(0.2, c));
            expect(inVal).toBe(roundedCount(0.4, c));
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it("validates its options, naming them", () => {
    expect(() => makeSplit(10, { seed: 0, dataset: "", repeat: 0 })).toThrow(/'dataset'/);
    expect(() => makeSplit(10, { seed: 0, dataset: "D", repeat: -1 })).toThrow(
      /'repeat' of a split must be an integer in \[0, inf\)\. Got -1/,
    );
    expect(() => makeSplit(10, { seed: 0, dataset: "D", repeat: 0, stratify: true })).toThrow(
      /needs the labels 'y'/,
    );
    expect(() =>
      makeSplit(4, { seed: 0, dataset: "D", repeat: 0, stratify: true, y: ["a", "b", "c", "d"] }),
    ).toThrow(/leaves the training part empty/);
  });
});

describe("parseSplitFile", () => {
  const valid = {
    index_base: 0,
    splits: [
      { train: [4, 0], val: [1, 2], test: [3, 5] },
      { train: [5], val: [0, 1, 2], test: [3, 4] },
    ],
  };

  it("reads a valid file (object or text) into sorted 0-based splits", () => {
    for (const input of [valid, JSON.stringify(valid)]) {
      const s = parseSplitFile(input, 6);
      expect(s).toHaveLength(2);
      expect(Array.from(s[0].train)).toEqual([0, 4]);
      expect(Array.from(s[1].val)).toEqual([0, 1, 2]);
    }
  });

  it("round-trips what splitsToJSON writes", () => {
    const splits = makeSplits(50, { seed: 1, dataset: "X", repeats: 3 });
    const back = parseSplitFile(JSON.stringify(splitsToJSON(splits, { seed: 1 })), 50);
    expect(back.map((s) => Array.from(s.test))).toEqual(splits.map((s) => Array.from(s.test)));
  });

  it("accepts 1-based files", () => {
    const s = parseSplitFile(
      { index_base: 1, splits: [{ train: [1], val: [2, 3], test: [4, 5, 6] }] },
      6,
    );
    expect(Array.from(s[0].train)).toEqual([0]);
    expect(Array.from(s[0].test)).toEqual([3, 4, 5]);
  });

  const cases: Array<[string, unknown, RegExp]> = [
    ["not JSON", "{oops", /not valid JSON/],
    ["no splits", { index_base: 0 }, /"splits" must be a non-empty array/],
    ["a bad base", { index_base: 2, splits: [] }, /"index_base" must be 0 or 1\. Got 2/],
    [
      "an empty part",
      { index_base: 0, splits: [{ train: [], val: [0], test: [1, 2, 3, 4, 5] }] },
      /splits\[0\]\.train must be a non-empty array/,
    ],
    [
      "a non-integer",
      { index_base: 0, splits: [{ train: [0.5], val: [1], test: [2] }] },
      /splits\[0\]\.train\[0\] is 0\.5; sample indices must be integers/,
    ],
    [
      "an index out of range",
      { index_base: 0, splits: [valid.splits[0], { train: [5], val: [0, 1], test: [2, 3, 4, 9] }] },
      /splits\[1\]\.test\[3\] is 9, outside \[0, 5\] \(index_base 0, N = 6\)/,
    ],
    [
      "a file without index_base",
      { splits: [{ train: [1, 2], val: [3, 4], test: [5, 6] }] },
      /has no "index_base": add "index_base": 0 .* or "index_base": 1/,
    ],
    [
      "overlapping parts",
      { index_base: 0, splits: [{ train: [0, 1], val: [2, 3], test: [3, 4, 5] }] },
      /splits\[0\]: index 3 is in both val and test/,
    ],
    [
      "a repeated index",
      { index_base: 0, splits: [{ train: [0, 0], val: [2, 3], test: [1, 4, 5] }] },
      /splits\[0\]\.train lists index 0 twice/,
    ],
    [
      "a missing sample",
      { index_base: 0, splits: [{ train: [0], val: [2, 3], test: [4, 5] }] },
      /splits\[0\] does not use sample index 1; each split must be a partition of the 6 samples/,
    ],
  ];

  it.each(cases)("rejects %s with a clear message", (_, input, message) => {
    try {
      parseSplitFile(input, 6);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe("splits");
      expect((err as Error).message).toMatch(message);
    }
  });

  it("accepts a split that leaves samples out only when allowSubset is set", () => {
    const subset = { index_base: 0, splits: [{ train: [0], val: [2, 3], test: [4, 5] }] };
    expect(() => parseSplitFile(subset, 6)).toThrow(/partition/);
    expect(parseSplitFile(subset, 6, { allowSubset: true })[0].val.length).toBe(2);
  });
});

describe("missingClassesReport", () => {
  const split: Split = {
    train: Int32Array.from([0, 1]),
    val: Int32Array.from([2, 3]),
    test: Int32Array.from([4, 5]),
  };

  it("gives the numbers its message quotes: the classes missing, all classes and the BCA bound", () => {
    const report = missingClassesReport([1, 1, 19, 23, 2, 23], split, "D, repeat 0");
    expect(report).toEqual({
      message:
        "D, repeat 0: classes 19, 23, 2 have no training sample, so 1-NN never predicts them: their recall is 0 and the BCA is at most 1/4.",
      values: { classes: 3, totalClasses: 4, bcaBound: 0.25 },
    });
    expect(missingClassesWarning([1, 1, 19, 23, 2, 23], split, "D, repeat 0")).toBe(
      report?.message,
    );
    expect(
      missingClassesReport(
        ["a", "b", "a", "b", "a", "b"],
        { ...split, train: Int32Array.from([0, 1]) },
        "D",
      ),
    ).toBeNull();
  });

  it("in the singular for one class", () => {
    expect(missingClassesReport(["a", "a", "b", "a", "a", "a"], split, "D")).toEqual({
      message:
        'D: class "b" has no training sample, so 1-NN never predicts it: its recall is 0 and the BCA is at most 1/2.',
      values: { classes: 1, totalClasses: 2, bcaBound: 0.5 },
    });
  });
});
