import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bestPerK, selectAll, selectModel } from "#internal/protocol/selection.js";
import { rec } from "../helpers/makeRecord.js";

describe("selectModel", () => {
  it("picks the best validation BCA per k, then the best k, and reports its test BCA", () => {
    const records = [
      rec({ k: 10, params: { delta: 1 }, valBCA: 0.7, testBCA: 0.71 }),
      rec({ k: 10, params: { delta: 10 }, valBCA: 0.8, testBCA: 0.6 }),
      rec({ k: 20, params: { delta: 1 }, valBCA: 0.9, testBCA: 0.85 }),
      rec({ k: 20, params: { delta: 10 }, valBCA: 0.6, testBCA: 0.99 }),
    ];
    const s = selectModel(records);
    expect(s.k).toBe(20);
    expect(s.params).toEqual({ delta: 1 });
    expect(s.testBCA).toBe(0.85);
    expect(s.perK.map((c) => [c.k, c.params.delta])).toEqual([
      [10, 10],
      [20, 1],
    ]);
  });

  it("breaks ties among hyperparameters by grid order, whatever the record order", () => {
    const records = [
      rec({ k: 10, params: { alpha: 1, delta: 10 }, valBCA: 0.8, testBCA: 0.1 }),
      rec({ k: 10, params: { alpha: 1, delta: 0.1 }, valBCA: 0.8, testBCA: 0.2 }),
      rec({ k: 10, params: { alpha: 0.01, delta: 100 }, valBCA: 0.8, testBCA: 0.3 }),
    ];
    // Canonical order: alpha first, ascending.
    expect(selectModel(records).testBCA).toBe(0.3);
    expect(selectModel([...records].reverse()).testBCA).toBe(0.3);
    // An explicit grid order wins over the canonical one.
    const grid = () => [
      { alpha: 1, delta: 10 },
      { alpha: 1, delta: 0.1 },
      { alpha: 0.01, delta: 100 },
    ];
    expect(selectModel(records, { grid }).testBCA).toBe(0.1);
  });

  it("follows the order of a custom grid spec", () => {
    const records = [
      rec({ k: 10, params: { alpha: 1, beta: 1, delta: 1 }, valBCA: 0.5, testBCA: 0.1 }),
      rec({ k: 10, params: { alpha: 1, beta: 1, delta: 0.1 }, valBCA: 0.5, testBCA: 0.2 }),
    ];
    expect(selectModel(records, { grid: { alpha: [1], beta: [1], delta: [1, 0.1] } }).testBCA).toBe(
      0.1,
    );
    expect(selectModel(records, { grid: "authors" }).testBCA).toBe(0.2);
    expect(() => selectModel(records, { grid: "quick" })).not.toThrow();
    expect(() =>
      selectModel([rec({ k: 10, params: { delta: 3 }, valBCA: 0.5, testBCA: 0.1 })], {
        grid: "paper",
      }),
    ).toThrow(/params \{delta=3\}, which are not in the grid/);
  });

  it("breaks ties among k by the smallest k", () => {
    const records = [
      rec({ k: 30, valBCA: 0.9, testBCA: 0.3 }),
      rec({ k: 20, valBCA: 0.9, testBCA: 0.2 }),
      rec({ k: 40, valBCA: 0.8, testBCA: 0.4 }),
    ];
    expect(selectModel(records).k).toBe(20);
  });

  it("returns a fit whose validation BCA is the maximum, independent of record order", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            k: fc.constantFrom(10, 20, 30),
            delta: fc.constantFrom(0.01, 0.1, 1),
            val: fc.constantFrom(0.5, 0.6, 0.7),
          }),
          { minLength: 1, maxLength: 9 },
        ),
        (items) => {
          // One record per (k, delta).
          const uniq = new Map(items.map((it) => [`${it.k}|${it.delta}`, it]));
          const records = [...uniq.values()].map((it) =>
            rec({
              k: it.k,
              params: { delta: it.delta },
              valBCA: it.val,
              testBCA: it.k / 100 + it.delta,
            }),
          );
          const s = selectModel(records);
          const best = Math.max(...records.map((r) => r.valBCA));
          expect(s.valBCA).toBe(best);
          const tied = records.filter((r) => r.valBCA === best);
          expect(s.k).toBe(Math.min(...tied.map((r) => r.k)));
          expect(s.params.delta).toBe(
            Math.min(...tied.filter((r) => r.k === s.k).map((r) => r.params.delta as number)),
          );
          expect(selectModel([...records].reverse()).testBCA).toBe(s.testBCA);
        },
      ),
    );
  });

  it("ignores later duplicates of a fit and refuses mixed groups", () => {
    const a = rec({ k: 10, valBCA: 0.5, testBCA: 0.5 });
    const dup = rec({ k: 10, valBCA: 0.9, testBCA: 0.9 });
    expect(bestPerK([a, dup])[0].testBCA).toBe(0.5);
    expect(() => selectModel([a, rec({ k: 10, repeat: 1, valBCA: 0, testBCA: 0 })])).toThrow(
      /one \(dataset, repeat, method\) at a time/,
    );
    expect(() => selectModel([])).toThrow(/at least one fit record/);
  });
});

describe("selectAll", () => {
  it("selects per (dataset, repeat, method) in a stable order", () => {
    const records = [
      rec({ dataset: "B", method: "pca", repeat: 1, k: 10, valBCA: 0.5, testBCA: 0.5 }),
      rec({ dataset: "A", method: "pca", repeat: 0, k: 10, valBCA: 0.5, testBCA: 0.4 }),
      rec({ dataset: "B", method: "pca", repeat: 0, k: 10, valBCA: 0.5, testBCA: 0.3 }),
      rec({ dataset: "B", method: "lda", repeat: 0, k: 10, valBCA: 0.5, testBCA: 0.2 }),
    ];
    expect(selectAll(records).map((s) => [s.dataset, s.method, s.repeat])).toEqual([
      ["B", "pca", 0],
      ["B", "pca", 1],
      ["B", "lda", 0],
      ["A", "pca", 0],
    ]);
  });
});
