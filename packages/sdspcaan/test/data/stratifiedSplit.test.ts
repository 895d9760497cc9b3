/**
 * stratifiedSplit: each class cut 20/40/40 (or the fractions given) with MATLAB's
 * rounding, the parts disjoint and covering every row, the same split for the same
 * seed, and classes too small for a part refused by name.
 */
import fc from "fast-check";
import { stratifiedSplit } from "sdspcaan";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { makeSplit, roundedCount } from "#internal/data/splits.js";

/** Labels of classes with these sizes, interleaved (class c's samples at scattered rows). */
function labelsOf(sizes: readonly number[]): number[] {
  const y: number[] = [];
  const left = [...sizes];
  while (left.some((s) => s > 0)) {
    for (let c = 0; c < left.length; c++) {
      if (left[c] > 0) {
        y.push(10 * c + 3);
        left[c]--;
      }
    }
  }
  return y;
}

function count(y: readonly unknown[], part: Int32Array, label: unknown): number {
  return Array.from(part).filter((i) => y[i] === label).length;
}

const sizesArb = fc.array(fc.integer({ min: 3, max: 40 }), { minLength: 1, maxLength: 6 });

describe("stratifiedSplit", () => {
  it("gives each class round(0.2 N_c) / round(0.4 N_c) / the rest, disjoint, sorted, covering 0..n-1", () => {
    fc.assert(
      fc.property(sizesArb, fc.integer(), (sizes, seed) => {
        const y = labelsOf(sizes);
        const s = stratifiedSplit(y, { seed });
        const all = [...s.train, ...s.validation, ...s.test].sort((a, b) => a - b);
        expect(all).toEqual([...y.keys()]);
        for (const part of [s.train, s.validation, s.test]) {
          for (let i = 1; i < part.length; i++) expect(part[i]).toBeGreaterThan(part[i - 1]);
        }
        sizes.forEach((size, c) => {
          const label = 10 * c + 3;
          const train = roundedCount(0.2, size);
          const validation = roundedCount(0.4, size);
          expect(count(y, s.train, label)).toBe(train);
          expect(count(y, s.validation, label)).toBe(validation);
          expect(count(y, s.test, label)).toBe(size - train - validation);
        });
      }),
      { numRuns: 60 },
    );
  });

  it("keeps the class proportions of y in every part (Yale's shape: 15 classes of 11)", () => {
    const y = labelsOf(Array(15).fill(11));
    const s = stratifiedSplit(y, { seed: 4 });
    expect([s.train.length, s.validation.length, s.test.length]).toEqual([30, 60, 75]);
    for (let c = 0; c < 15; c++) {
      expect([
        count(y, s.train, 10 * c + 3),
        count(y, s.validation, 10 * c + 3),
        count(y, s.test, 10 * c + 3),
      ]).toEqual([2, 4, 5]);
    }
  });

  it("gives the same split for the same seed and labels, and another for another seed", () => {
    const y = labelsOf([30, 25, 12]).map((v) => `class ${v}`);
    const a = stratifiedSplit(y, { seed: 7 });
    expect(stratifiedSplit(y, { seed: 7 })).toEqual(a);
    expect(stratifiedSplit(y, { seed: 8 })).not.toEqual(a);
    expect(stratifiedSplit(y)).toEqual(stratifiedSplit(y, { seed: 0 }));
  });

  it("is the protocol's stratified cut with the seed as the permutations' seed", () => {
    // makeSplit derives its generator's seed from (seed, dataset, repeat); its cut of
    // each class is the same code, so the sizes per class agree for any seed.
    const y = labelsOf([9, 14, 5]);
    const s = stratifiedSplit(y, { seed: 3 });
    const p = makeSplit(y.length, { seed: 3, dataset: "d", repeat: 0, stratify: true, y });
    for (const label of [3, 13, 23]) {
      expect(count(y, s.train, label)).toBe(count(y, p.train, label));
      expect(count(y, s.validation, label)).toBe(count(y, p.val, label));
    }
  });

  it("takes other fractions, and all three when they add up to 1", () => {
    const y = labelsOf([10, 20]);
    const s = stratifiedSplit(y, { train: 0.5, validation: 0.3, test: 0.2, seed: 1 });
    expect([count(y, s.train, 3), count(y, s.validation, 3), count(y, s.test, 3)]).toEqual([
      5, 3, 2,
    ]);
    expect([count(y, s.train, 13), count(y, s.validation, 13), count(y, s.test, 13)]).toEqual([
      10, 6, 4,
    ]);
    expect(stratifiedSplit(y, { train: 0.5, validation: 0.3, seed: 1 })).toEqual(s);
  });

  it("refuses a class too small to give each part a sample, naming it", () => {
    const y = ["a", "a", "a", "b", "b", "c", "a", "c", "a"];
    expect(() => stratifiedSplit(y)).toThrow(
      new ValidationError(
        "y",
        'stratifiedSplit needs every class to give each part a sample; with fractions 0.2/0.4 these classes do not (samples: train/validation/test): "b" (2: 0/1/1), "c" (2: 0/1/1). Remove or merge them, or change the fractions.',
      ),
    );
    // Three samples give 1/1/1.
    expect(stratifiedSplit([...y, "b", "c"]).train.length).toBe(3);
  });

  it("refuses fractions out of range or not adding up, a bad seed, and bad labels", () => {
    const y = labelsOf([10, 10]);
    const message = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationError);
        return `${(err as ValidationError).argument}: ${(err as Error).message}`;
      }
      throw new Error("accepted");
    };
    expect(message(() => stratifiedSplit(y, { train: 0 }))).toBe(
      "train: The 'train' fraction of stratifiedSplit must be a number in (0, 1). Got 0 instead.",
    );
    expect(message(() => stratifiedSplit(y, { validation: 1.5 }))).toBe(
      "validation: The 'validation' fraction of stratifiedSplit must be a number in (0, 1). Got 1.5 instead.",
    );
    expect(message(() => stratifiedSplit(y, { train: 0.6, validation: 0.4 }))).toBe(
      "validation: train + validation must be < 1 so that the test part is not empty. Got 0.6 + 0.4 = 1.",
    );
    expect(message(() => stratifiedSplit(y, { test: 0.5 }))).toBe(
      "test: The fractions of stratifiedSplit must add up to 1. Got train 0.2 + validation 0.4 + test 0.5 = 1.1.",
    );
    expect(message(() => stratifiedSplit(y, { seed: Number.NaN }))).toBe(
      "seed: The 'seed' of stratifiedSplit must be a finite number. Got NaN instead.",
    );
    expect(message(() => stratifiedSplit([]))).toBe("y: stratifiedSplit needs labels: y is empty.");
    expect(message(() => stratifiedSplit([1, 2, Number.NaN]))).toBe(
      "y: y[2] is NaN; numeric labels must be finite.",
    );
  });
});
