/**
 * A command loads what it needs and no more: `sdspcaan fit` runs without the experiment
 * runner, the reports and the figures' renderer (vega, vega-lite, resvg), which other
 * commands load when they run (cli/commands/loaders.ts). Checked in a child process whose
 * resolve hook lists every module it loads; `--help` still shows every command.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "../helpers/runs.js";

const dir = tempDir("startup-modules");
afterAll(() => removeDir(dir));

/** The module URLs `sdspcaan <args>` loads, run from the sources through tsx. */
function loadedBy(args: string[]): { urls: string[]; stdout: string; status: number | null } {
  const list = join(dir, `modules-${args[0]}.txt`);
  writeFileSync(list, "");
  const res = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      join(repoRoot, "packages/sdspcaan-cli/test/cli/loadedModules.register.mjs"),
      join(repoRoot, "packages/sdspcaan-cli/src/cli/bin.ts"),
      ...args,
    ],
    {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, SDSPCAAN_TEST_MODULES_FILE: list },
    },
  );
  return {
    urls: readFileSync(list, "utf8").split("\n").filter(Boolean),
    stdout: res.stdout,
    status: res.status,
  };
}

describe("the CLI's start-up", () => {
  it("fit loads neither the runner, nor the reports, nor the figures' renderer", () => {
    const rows = ["a,b,c,label"];
    for (let i = 0; i < 24; i++) rows.push(`${i % 5},${(i * 7) % 11},${(i * 3) % 4},${i % 3}`);
    const data = join(dir, "small.csv");
    writeFileSync(data, `${rows.join("\n")}\n`);
    const { urls, status } = loadedBy([
      "fit",
      "--data",
      data,
      "--method",
      "pca",
      "--k",
      "2",
      "--out",
      join(dir, "model.json"),
      "--no-progress",
    ]);
    expect(status).toBe(0);
    expect(urls.some((u) => u.includes("/cli/commands/fit."))).toBe(true);
    const heavy = urls.filter((u) =>
      /\/node_modules\/(vega|vega-lite|@resvg|d3-)|\/src\/(reports|plot|cluster)\/|\/runner\/runner\.node|\/cli\/commands\/(experiment|plot|report)\./.test(
        u,
      ),
    );
    expect(heavy).toEqual([]);
  });

  it("--help lists every command", () => {
    const { stdout, status } = loadedBy(["--help"]);
    expect(status).toBe(0);
    for (const name of ["fit", "transform", "predict", "evaluate", "experiment", "report"]) {
      expect(stdout).toMatch(new RegExp(`^\\s+${name}\\b`, "m"));
    }
    for (const name of ["compress", "plot", "demo", "datasets", "playground"]) {
      expect(stdout).toMatch(new RegExp(`^\\s+${name}\\b`, "m"));
    }
  });
});
