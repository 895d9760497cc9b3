/**
 * The core as a browser would get it: bundled by esbuild for the browser platform
 * (which fails on any Node built-in), then run in a fresh JavaScript context that has
 * only the standard globals (no process, require, Buffer or fs), where it fits a
 * model, transforms, classifies and round-trips through JSON.
 */
import { resolve } from "node:path";
import { runInNewContext } from "node:vm";
import { build } from "esbuild";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";

describe("the core in a browser-like context", () => {
  it("bundles for the browser and runs without Node globals", async () => {
    const result = await build({
      entryPoints: [resolve(repoRoot, "packages/sdspcaan/src/index.ts")],
      bundle: true,
      platform: "browser",
      format: "iife",
      globalName: "sdspcaan",
      write: false,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    const code = result.outputFiles[0].text;
    const script = `${code}
      const { SDSPCAAN, loadModel, NearestNeighbour1, balancedAccuracy } = sdspcaan;
      // A small seeded generator (Park-Miller), uniform noise: enough for separated classes.
      let seed = 1;
      const rng = { normal: () => ((seed = (seed * 48271) % 2147483647) / 2147483647 - 0.5) * 2 };
      const X = [], y = [];
      for (let i = 0; i < 45; i++) {
        const c = i % 3;
        X.push(Array.from({ length: 16 }, (_, j) => (j === c ? 6 : 0) + rng.normal()));
        y.push("class-" + c);
      }
      const model = new SDSPCAAN({ k: 3, m: 5 }).fit(X, y);
      const Z = model.transform(X);
      const again = loadModel(JSON.stringify(model.toJSON()));
      const same = Array.from(again.transform(X).data).every((v, i) => v === Z.data[i]);
      const pred = new NearestNeighbour1().fit(Z, y).predict(Z);
      ({ rows: Z.rows, cols: Z.cols, same, bca: balancedAccuracy(y, pred),
         hasProcess: typeof process !== "undefined", hasRequire: typeof require !== "undefined" });
    `;
    const out = runInNewContext(script, {}, { timeout: 60_000 }) as Record<string, unknown>;
    expect(out).toEqual({
      rows: 45,
      cols: 3,
      same: true,
      bca: 1,
      hasProcess: false,
      hasRequire: false,
    });
  });
});
