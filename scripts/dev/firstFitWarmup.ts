/**
 * What the first fit in a fresh process pays for, beyond a warm fit (docs/performance.md,
 * "Fitting the paper's methods"): each run is a fresh process that loads the data set,
 * optionally fits the same method once on generated data first (`tiny`: 40 x 30;
 * `mid`: 120 x 400), then times the first fit on the data set's training split (repeat 0)
 * and three more. A warm-up fit that brings the first fit down to the warm ones shows that
 * the extra time is one-off work of the code paths that fit exercises. Prints each run and
 * the medians per warm-up.
 *
 * Usage: npx tsx scripts/dev/firstFitWarmup.ts [--file Yale_32x32.mat] [--name Yale]
 *        [--method sdspca] [--k 20] [--runs 5]
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { median } from "../../bench/harness.js";

const { values: args } = parseArgs({
  options: {
    child: { type: "string" },
    file: { type: "string", default: "Yale_32x32.mat" },
    name: { type: "string", default: "Yale" },
    method: { type: "string", default: "sdspca" },
    k: { type: "string", default: "20" },
    runs: { type: "string", default: "5" },
  },
});

if (args.child !== undefined) {
  // The child: what a library user gets in Node by default (the node entry).
  await import("../../packages/sdspcaan/src/index.node.js");
  const { Matrix } = await import("../../packages/sdspcaan/src/core/matrix.js");
  const { createMethod } = await import("../../packages/sdspcaan/src/methods/registry.js");
  const { loadDataset } = await import("../../packages/sdspcaan-cli/src/io/load.js");
  const { makeSplit } = await import("../../packages/sdspcaan/src/data/splits.js");
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const ds = await loadDataset(join(root, "data", args.file));
  const split = makeSplit(ds.X.rows, { seed: 0, dataset: args.name, repeat: 0 });
  const X = ds.X.selectRows(split.train);
  const y = Array.from(split.train, (i) => ds.y[i]);
  if (args.child !== "none") {
    const [n, d] = args.child === "tiny" ? [40, 30] : [120, 400];
    const T = new Matrix(n, d);
    for (let i = 0; i < T.data.length; i++) T.data[i] = Math.sin(i * 1.7) + (i % 7);
    const ty = Array.from({ length: n }, (_, i) => i % 4);
    createMethod(args.method, { k: 4 }).fit(T, ty);
  }
  const times: number[] = [];
  for (let r = 0; r < 4; r++) {
    const t0 = performance.now();
    createMethod(args.method, { k: Number(args.k) }).fit(X, y);
    times.push(performance.now() - t0);
  }
  console.log(JSON.stringify({ first: times[0], warm: median(times.slice(1)) }));
} else {
  const script = fileURLToPath(import.meta.url);
  const runs = Number(args.runs);
  const rest = ["--file", args.file, "--name", args.name, "--method", args.method, "--k", args.k];
  const results = new Map<string, { first: number[]; warm: number[] }>();
  for (let r = 0; r < runs; r++) {
    // Warm-ups alternate so that a change of load hits all three.
    for (const warmup of ["none", "tiny", "mid"]) {
      const out = spawnSync(
        process.execPath,
        ["--import", "tsx", script, "--child", warmup, ...rest],
        {
          encoding: "utf8",
        },
      );
      if (out.status !== 0) throw new Error(`child failed: ${out.stderr}`);
      const { first, warm } = JSON.parse(out.stdout.trim().split("\n").pop() as string) as {
        first: number;
        warm: number;
      };
      const entry = results.get(warmup) ?? { first: [], warm: [] };
      entry.first.push(first);
      entry.warm.push(warm);
      results.set(warmup, entry);
      console.log(
        `run ${r + 1}, warm-up ${warmup}: first ${first.toFixed(1)} ms, warm ${warm.toFixed(1)} ms`,
      );
    }
  }
  console.log(
    `${args.method} on ${args.name} (k = ${args.k}), medians of ${runs} fresh processes:`,
  );
  for (const [warmup, { first, warm }] of results) {
    console.log(
      `  warm-up ${warmup.padEnd(4)}: first ${median(first).toFixed(1)} ms, warm ${median(warm).toFixed(1)} ms (${(median(first) / median(warm)).toFixed(2)}x)`,
    );
  }
}
