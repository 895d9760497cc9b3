/**
 * Shards of a run: for any number of shards the assignment is a partition of the
 * plan's fits, it does not depend on the order tasks are listed in (so every
 * process of an array and every resumed run computes the same one), and no shard
 * costs more than the mean plus the costliest task (the bound of list scheduling;
 * LPT usually does far better). Also the cost model's ranking, the task queue's
 * split affinity, and the job array environment.
 */
import fc from "fast-check";
import { ValidationError } from "sdspcaan";
import { describe, expect, it } from "vitest";
import { costFamily, fitCostMs } from "#internal/protocol/cost.js";
import { planRun, type RunSettings } from "#internal/protocol/plan.js";
import {
  assignShards,
  parseShard,
  parseShardFileName,
  planTasks,
  shardFileName,
  shardFromEnvironment,
  TaskQueue,
} from "#internal/protocol/shards.js";

function dataset(name: string, n: number, d: number, classes: number) {
  return {
    name,
    n,
    d,
    classes,
    checksum: "0123456789abcdef",
    splitsChecksum: null,
    origin: null,
    splitsFile: null,
  };
}

const settings: RunSettings = {
  format: "sdspcaan-experiment",
  version: 1,
  datasets: [
    dataset("Small", 120, 30, 4),
    dataset("Wide", 300, 1024, 15),
    dataset("Tall", 900, 60, 6),
  ],
  methods: ["baseline", "pca", "jpcda", "sdspca", "sdspcaan"],
  grid: "quick",
  kGrid: [10, 20, 30],
  repeats: 3,
  seed: 1,
  preprocess: "train-zscore",
  stratify: false,
  fractions: { train: 0.2, val: 0.4 },
  methodOptions: { baseline: {}, pca: {}, jpcda: {}, sdspca: {}, sdspcaan: {} },
};
const plan = planRun(
  settings,
  settings.datasets.map(() => ({ y: null, splits: null })),
);

/** Every planned fit as "unit:fit". */
function allFits(): string[] {
  return plan.units.flatMap((u, ui) => u.fits.map((_, fi) => `${ui}:${fi}`));
}

describe("planTasks and assignShards", () => {
  it("partition the plan's fits for any number of shards, with costs within mean + costliest task", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), (count) => {
        const tasks = planTasks(plan, settings, count);
        const owner = assignShards(tasks, count);
        const seen = tasks.flatMap((t) => t.fits.map((fi) => `${t.unit}:${fi}`));
        // Every fit in exactly one task, so in exactly one shard.
        expect(seen.slice().sort()).toEqual(allFits().sort());
        expect(new Set(seen).size).toBe(seen.length);
        expect(owner.every((s) => Number.isInteger(s) && s >= 0 && s < count)).toBe(true);
        const load = new Array<number>(count).fill(0);
        tasks.forEach((t, i) => {
          load[owner[i]] += t.cost;
        });
        const total = tasks.reduce((a, t) => a + t.cost, 0);
        const costliest = Math.max(...tasks.map((t) => t.cost));
        expect(Math.max(...load)).toBeLessThanOrEqual(total / count + costliest + 1e-9 * total);
      }),
      { numRuns: 40 },
    );
  });

  it("gives each task the same shard whatever order the tasks are listed in (stable across processes and resumes)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.integer(), (count, seed) => {
        const tasks = planTasks(plan, settings, count);
        const owner = assignShards(tasks, count);
        // A seeded shuffle of the task list.
        const order = tasks.map((_, i) => i);
        let s = seed >>> 0;
        for (let i = order.length - 1; i > 0; i--) {
          s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
          const j = s % (i + 1);
          [order[i], order[j]] = [order[j], order[i]];
        }
        const shuffled = order.map((i) => tasks[i]);
        const again = assignShards(shuffled, count);
        order.forEach((i, pos) => {
          expect(again[pos]).toBe(owner[i]);
        });
      }),
      { numRuns: 30 },
    );
  });

  it("cuts costly (unit, k) cells finer when there are more shards, down to single fits", () => {
    const one = planTasks(plan, settings, 1);
    const many = planTasks(plan, settings, 10_000);
    expect(many.length).toBeGreaterThan(one.length);
    const sdspcaanTasks = many.filter((t) => plan.units[t.unit].method === "sdspcaan");
    expect(sdspcaanTasks.every((t) => t.fits.length === 1)).toBe(true);
    // One task per (unit, k) with one shard: the k values of the quick k grid that fit.
    for (const t of one) {
      const ks = new Set(t.fits.map((fi) => plan.units[t.unit].fits[fi].k));
      expect(ks.size).toBe(1);
    }
  });

  it("balances shards within 25 % of the mean on this plan (LPT with small tasks)", () => {
    for (const count of [2, 3, 6, 8]) {
      const tasks = planTasks(plan, settings, count);
      const owner = assignShards(tasks, count);
      const load = new Array<number>(count).fill(0);
      tasks.forEach((t, i) => {
        load[owner[i]] += t.cost;
      });
      const mean = load.reduce((a, b) => a + b, 0) / count;
      expect(Math.max(...load)).toBeLessThanOrEqual(1.25 * mean);
    }
  });

  it("refuses a shard count that is not a positive integer", () => {
    expect(() => assignShards([], 0)).toThrow(ValidationError);
    expect(() => assignShards([], 1.5)).toThrow(/integer >= 1/);
  });
});

describe("the cost model", () => {
  it("reads the family from the descriptor's options and ranks an SDSPCAAN fit on a big set far above Baseline on a small one", () => {
    expect(costFamily("baseline")).toBe("closed-form");
    expect(costFamily("sdspca")).toBe("iterative");
    expect(costFamily("sdspcaan")).toBe("iterative-graph");
    const yaleB = fitCostMs("sdspcaan", { nTrain: 483, d: 1024, k: 100 });
    const musk = fitCostMs("baseline", { nTrain: 95, d: 166, k: 10 });
    expect(yaleB / musk).toBeGreaterThan(1000);
    // Monotone in the size of the problem.
    expect(fitCostMs("sdspca", { nTrain: 400, d: 500, k: 10 })).toBeGreaterThan(
      fitCostMs("sdspca", { nTrain: 200, d: 500, k: 10 }),
    );
  });
});

describe("TaskQueue", () => {
  const task = (split: string, cost: number, id: string) => ({ split, cost, id });

  it("hands a worker more of its last split, else the split with most work left that nobody is on", () => {
    const q = new TaskQueue([
      task("a", 1, "a1"),
      task("a", 5, "a2"),
      task("b", 3, "b1"),
      task("b", 4, "b2"),
      task("c", 2, "c1"),
    ]);
    expect(q.size).toBe(5);
    expect(q.take(null, new Set())?.id).toBe("b2"); // b has 7 left, a 6, c 2
    expect(q.take(null, new Set(["b"]))?.id).toBe("a2"); // b is taken: the next split with most work
    expect(q.take("b", new Set(["a"]))?.id).toBe("b1"); // its own split first
    expect(q.take("b", new Set(["a"]))?.id).toBe("c1"); // b is done; a is busy; c is free
    expect(q.take("c", new Set(["a"]))?.id).toBe("a1"); // only a is left: share it
    expect(q.take("a", new Set())).toBeUndefined();
    expect(q.size).toBe(0);
  });

  it("gives out every task exactly once", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            split: fc.constantFrom("a", "b", "c", "d"),
            cost: fc.double({ min: 0, max: 10, noNaN: true }),
          }),
          { maxLength: 40 },
        ),
        fc.array(fc.constantFrom<string | null>(null, "a", "b", "c", "d"), {
          minLength: 1,
          maxLength: 4,
        }),
        (specs, lasts) => {
          const tasks = specs.map((s, i) => ({ ...s, id: String(i) }));
          const q = new TaskQueue(tasks);
          const got: string[] = [];
          for (let i = 0; ; i++) {
            const t = q.take(
              lasts[i % lasts.length],
              new Set(lasts.filter((l): l is string => l !== null)),
            );
            if (t === undefined) break;
            got.push(t.id);
          }
          expect(got.sort()).toEqual(tasks.map((t) => t.id).sort());
        },
      ),
    );
  });
});

describe("shard specs", () => {
  it("parses i/N and refuses what is not a shard, naming the flag", () => {
    expect(parseShard("3/8")).toEqual({ index: 3, count: 8 });
    expect(() => parseShard("8/8")).toThrow(/\[0, 7\]/);
    expect(() => parseShard("1-of-2")).toThrow(/--shard must be INDEX\/COUNT/);
    expect(shardFileName({ index: 3, count: 8 })).toBe("results.shard-3-of-8.jsonl");
    expect(parseShardFileName("results.shard-3-of-8.jsonl")).toEqual({ index: 3, count: 8 });
    expect(parseShardFileName("results.shard-9-of-8.jsonl")).toBeNull();
    expect(parseShardFileName("results.jsonl")).toBeNull();
  });

  it("takes the shard from Slurm's or Kubernetes' environment, the given count winning", () => {
    expect(shardFromEnvironment({})).toBeNull();
    expect(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: "2", SLURM_ARRAY_TASK_COUNT: "6" })).toEqual(
      { index: 2, count: 6 },
    );
    // A resubmitted single task has SLURM_ARRAY_TASK_COUNT=1: the pinned count wins.
    expect(
      shardFromEnvironment({ SLURM_ARRAY_TASK_ID: "3", SLURM_ARRAY_TASK_COUNT: "1" }, 6),
    ).toEqual({ index: 3, count: 6 });
    expect(() =>
      shardFromEnvironment({ SLURM_ARRAY_TASK_ID: "3", SLURM_ARRAY_TASK_COUNT: "1" }),
    ).toThrow(/\[0, 0\]/);
    expect(shardFromEnvironment({ JOB_COMPLETION_INDEX: "4" }, 5)).toEqual({ index: 4, count: 5 });
    expect(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: "4" })).toThrow(/--shard-count/);
    expect(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: "x" }, 2)).toThrow(/not a task index/);
  });
});
