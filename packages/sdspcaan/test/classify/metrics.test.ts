import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  accuracy,
  balancedAccuracy,
  bca,
  confusionMatrix,
  perClassRecall,
} from "#internal/classify/metrics.js";
import { ValidationError } from "#internal/core/errors.js";

/** Pairs of equal-length label vectors over a few classes. */
const labelPairs = fc
  .integer({ min: 1, max: 40 })
  .chain((n) =>
    fc.tuple(
      fc.array(fc.integer({ min: 0, max: 4 }), { minLength: n, maxLength: n }),
      fc.array(fc.integer({ min: 0, max: 6 }), { minLength: n, maxLength: n }),
    ),
  );

describe("balancedAccuracy", () => {
  it("lies in [0, 1]", () => {
    fc.assert(
      fc.property(labelPairs, ([t, p]) => {
        const v = balancedAccuracy(t, p);
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("is 1 for perfect predictions", () => {
    fc.assert(
      fc.property(labelPairs, ([t]) => {
        expect(balancedAccuracy(t, t)).toBe(1);
      }),
    );
  });

  it("does not depend on the order of the samples", () => {
    fc.assert(
      fc.property(
        labelPairs.chain(([t, p]) =>
          fc.tuple(
            fc.constant(t),
            fc.constant(p),
            fc.shuffledSubarray([...t.keys()], { minLength: t.length, maxLength: t.length }),
          ),
        ),
        ([t, p, perm]) => {
          const tp = perm.map((i) => t[i]);
          const pp = perm.map((i) => p[i]);
          expect(balancedAccuracy(tp, pp)).toBeCloseTo(balancedAccuracy(t, p), 14);
        },
      ),
    );
  });

  it("does not depend on the names of the classes", () => {
    fc.assert(
      fc.property(labelPairs, ([t, p]) => {
        // An injective renaming of every label that occurs, to strings.
        const rename = (v: number) => `cls-${(v * 7 + 3) % 11}`;
        expect(balancedAccuracy(t.map(rename), p.map(rename))).toBeCloseTo(
          balancedAccuracy(t, p),
          14,
        );
      }),
    );
  });

  it("equals accuracy when every class has the same number of samples", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 6 }),
        fc.infiniteStream(fc.integer({ min: 0, max: 6 })),
        (classes, perClass, stream) => {
          const t: number[] = [];
          for (let c = 0; c < classes; c++) for (let i = 0; i < perClass; i++) t.push(c);
          const it = stream[Symbol.iterator]();
          const p = t.map(() => it.next().value as number);
          expect(balancedAccuracy(t, p)).toBeCloseTo(accuracy(t, p), 14);
        },
      ),
    );
  });

  it("averages recall over the classes present in yTrue only", () => {
    // Class a: 2 of 3 right; class b: 0 of 1 right (predicted as an absent class c).
    expect(balancedAccuracy(["a", "a", "a", "b"], ["a", "a", "c", "c"])).toBeCloseTo(
      (2 / 3 + 0) / 2,
      15,
    );
    expect(bca([1, 1, 2], [1, 1, 2])).toBe(1);
  });

  it("rejects empty, mismatched and mixed-kind labels, naming the argument", () => {
    expect(() => balancedAccuracy([], [])).toThrow(/yTrue must hold at least 1 label/);
    try {
      balancedAccuracy([1, 2], [1]);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe("yPred");
      expect((err as Error).message).toMatch(/yPred has 1 labels, but yTrue has 2/);
    }
    expect(() => balancedAccuracy([1, 2], ["1", "2"])).toThrow(/same kind/);
    expect(() => balancedAccuracy([1, Number.NaN], [1, 1])).toThrow(/finite/);
  });
});

describe("perClassRecall", () => {
  it("reports the recall and support of each class in sorted order", () => {
    const r = perClassRecall([3, 1, 1, 3, 3], [3, 1, 3, 1, 3]);
    expect(r.classes).toEqual([1, 3]);
    expect(Array.from(r.support)).toEqual([2, 3]);
    expect(r.recall[0]).toBeCloseTo(0.5, 15);
    expect(r.recall[1]).toBeCloseTo(2 / 3, 15);
  });
});

describe("confusionMatrix", () => {
  it("counts true classes by row and predictions by column over the sorted union", () => {
    const cm = confusionMatrix(["b", "a", "a", "b"], ["b", "a", "c", "a"]);
    expect(cm.classes).toEqual(["a", "b", "c"]);
    expect(cm.counts).toEqual([
      [1, 0, 1],
      [1, 1, 0],
      [0, 0, 0],
    ]);
  });

  it("follows a given class order and rejects labels outside it", () => {
    const cm = confusionMatrix([2, 1], [1, 1], [2, 1]);
    expect(cm.classes).toEqual([2, 1]);
    expect(cm.counts).toEqual([
      [0, 1],
      [0, 1],
    ]);
    expect(() => confusionMatrix([2, 1], [3, 1], [2, 1])).toThrow(/yPred\[0\] is 3/);
  });

  it("sums to the number of samples, with the diagonal counting the hits", () => {
    fc.assert(
      fc.property(labelPairs, ([t, p]) => {
        const { counts } = confusionMatrix(t, p);
        const total = counts.flat().reduce((a, b) => a + b, 0);
        const diag = counts.reduce((a, row, i) => a + row[i], 0);
        expect(total).toBe(t.length);
        expect(diag / t.length).toBeCloseTo(accuracy(t, p), 14);
      }),
    );
  });
});
