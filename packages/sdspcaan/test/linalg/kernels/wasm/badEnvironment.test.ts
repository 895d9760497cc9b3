/**
 * An SDSPCAAN_KERNELS or SDSPCAAN_NATIVE that names nothing the library knows: the Node
 * entry still imports, the first fit is refused naming the variable and what it takes,
 * and the program's own choice (setKernelBackend, setNativeKernels) replaces it. Run in
 * a child process, whose environment is set before the import.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";

function run(env: Record<string, string>): unknown {
  const { SDSPCAAN_KERNELS: _, SDSPCAAN_NATIVE: __, ...rest } = process.env;
  const child = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      join(repoRoot, "packages/sdspcaan/test/linalg/kernels/wasm/badEnvironment.child.ts"),
    ],
    { cwd: join(repoRoot, "packages/sdspcaan"), encoding: "utf8", env: { ...rest, ...env } },
  );
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout);
}

describe("a kernels' environment variable that names nothing known", () => {
  it("SDSPCAAN_KERNELS=portible: imported, refused at the first fit, replaced by setKernelBackend", () => {
    expect(run({ SDSPCAAN_KERNELS: "portible" })).toEqual({
      refusal: {
        name: "ValidationError",
        argument: "SDSPCAAN_KERNELS",
        message:
          'The environment variable SDSPCAAN_KERNELS must be "auto", "fast", "portable", "wasm" or "ts" (or unset). Got "portible" instead.',
      },
      components: 3,
      backend: "wasm",
    });
  });

  it("SDSPCAAN_NATIVE=avx: imported, refused at the first fit, replaced by setNativeKernels", () => {
    expect(run({ SDSPCAAN_NATIVE: "avx" })).toEqual({
      refusal: {
        name: "ValidationError",
        argument: "SDSPCAAN_NATIVE",
        message:
          'The environment variable SDSPCAAN_NATIVE must be 0 (or off, false, no: the WebAssembly kernels), avx2, or 1 (or on, true, yes, auto), or be unset. Got "avx" instead.',
      },
      components: 3,
      backend: "fast",
    });
  });
});
