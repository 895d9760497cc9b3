/**
 * The library imports where reading the environment is refused (Deno without
 * --allow-env): SDSPCAAN_KERNELS and SDSPCAAN_NATIVE then count as unset. Run in a
 * child process, whose environment the child replaces before the import.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";

describe("the kernels' environment variables", () => {
  it("are read as unset, not thrown, where the environment refuses the read", () => {
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        join(repoRoot, "packages/sdspcaan/test/linalg/kernels/wasm/noEnvironment.child.ts"),
      ],
      { cwd: join(repoRoot, "packages/sdspcaan"), encoding: "utf8" },
    );
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual({
      refused: ["SDSPCAAN_KERNELS", "SDSPCAAN_NATIVE"],
      request: "auto",
      components: 3,
    });
  });
});
