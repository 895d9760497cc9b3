/**
 * The built `sdspcaan` command (dist/cli/bin.js, as a user runs it; `npm ci` builds
 * it) with a standard output that stops taking bytes: a pipe whose reader has left,
 * as `| head -1` leaves it, ends the command quietly with its usual status; a full
 * device is one line and status 1. Never Node's stack trace.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { argv, cli, smallCsvFolder } from "../helpers/cli.js";

const BIN = join(repoRoot, "packages", "sdspcaan-cli", "dist", "cli", "bin.js");
const folder = smallCsvFolder("standard-streams");

interface Ended {
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Runs the built command with `stdout` as its standard output: "closed" is a pipe
 * whose reading end this process closes before the command writes anything.
 */
function run(args: string[], stdout: "closed" | number): Promise<Ended> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: folder.dir,
    stdio: ["ignore", stdout === "closed" ? "pipe" : stdout, "pipe"],
  });
  child.stdout?.destroy();
  let stderr = "";
  child.stderr?.on("data", (b: Buffer) => {
    stderr += b.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

async function fittedModel(): Promise<string> {
  const model = join(folder.dir, "model.json");
  const fit = await cli(
    argv`fit --data ${folder.csv} --label-col last --method pca --k 3 --out ${model}`,
  );
  expect(fit.stderr).toBe("");
  return model;
}

describe("a standard output whose reader has left (| head -1)", () => {
  it("ends transform quietly with status 0", async () => {
    const model = await fittedModel();
    const ended = await run(
      argv`transform --model ${model} --data ${folder.csv} --label-col last`,
      "closed",
    );
    expect(ended).toEqual({ code: 0, stderr: "" });
  });

  it("ends evaluate quietly with status 0", async () => {
    const ended = await run(
      argv`evaluate --data ${folder.csv} --label-col last --splits ${folder.splits} --method pca --k 3 --no-progress`,
      "closed",
    );
    expect(ended).toEqual({ code: 0, stderr: "" });
  });

  it("keeps the status of a command that fails", async () => {
    const ended = await run(argv`transform --model missing.json --data ${folder.csv}`, "closed");
    expect(ended).toEqual({
      code: 1,
      stderr: "sdspcaan: The model file missing.json does not exist (--model).\n",
    });
  });
});

describe("a standard output on a full device (> /dev/full)", () => {
  const full = "/dev/full";
  it.skipIf(!existsSync(full))("says so in one line and ends with status 1", async () => {
    const fd = openSync(full, "w");
    try {
      const ended = await run(
        argv`evaluate --data ${folder.csv} --label-col last --splits ${folder.splits} --method pca --k 3 --no-progress`,
        fd,
      );
      expect(ended).toEqual({
        code: 1,
        stderr:
          "sdspcaan: cannot write to standard output: no space left on the device (ENOSPC).\n",
      });
    } finally {
      closeSync(fd);
    }
  });
});
