/**
 * Loading plug-ins (runner/plugins.node.ts): a module that registers methods, found
 * by path and recorded with its SHA-256; bad plug-ins are refused with one line
 * naming the file and what is wrong, and leave nothing registered behind.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Estimator, Matrix, methodNames, type TrainingData, ValidationError } from "sdspcaan";
import {
  type CoreFitResult,
  defineMethod,
  type MethodDescriptor,
  methodPlugin,
  type OptionSchema,
  registerMethod,
  unregisterMethod,
} from "sdspcaan/methods";
import { rejectionOf, repoRoot, smallData } from "sdspcaan-test-support";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { loadPlugin, loadPlugins, pluginOfMethod } from "#internal/runner/plugins.node.js";
import { runExperiment } from "#internal/runner/runner.node.js";
import { writeCsv } from "../helpers/cli.js";
import { removeDir, smallRun, tempDir } from "../helpers/runs.js";

const dir = tempDir("plugins");
afterAll(() => removeDir(dir));
afterEach(() => {
  for (const name of ["unit-a", "unit-b", "unit-c", "unit-bad", "unit-throws"]) {
    unregisterMethod(name);
  }
});

/** A plug-in that registers closed-form methods of the given names (W = I_{d x k}). */
function pluginSource(names: readonly string[], extra = ""): string {
  return `import { Estimator, Matrix } from "sdspcaan";
import { defineMethod, registerMethod } from "sdspcaan/methods";
for (const name of ${JSON.stringify(names)}) {
  const descriptor = defineMethod({
    name,
    displayName: name,
    summary: "A test plug-in method.",
    supervised: false,
    options: { k: { type: "integer", min: 1, default: 2, doc: "Components." } },
    create: (options) => new Identity(descriptor, options),
  });
  registerMethod(descriptor);
}
class Identity extends Estimator {
  fitCore(data) {
    return { components: Matrix.identity(data.d, this.params.k), iterations: 0, converged: true,
      stopReason: "closed-form", solver: "identity", details: {} };
  }
}
${extra}
`;
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("loadPlugin", () => {
  it("imports the module, records its path, hash and methods, and names the plug-in", async () => {
    const path = write("two.mjs", pluginSource(["unit-a", "unit-b"]));
    const loaded = await loadPlugin("two.mjs", { cwd: dir });
    expect(loaded).toEqual({ path, sha256: sha(path), methods: ["unit-a", "unit-b"] });
    expect(methodNames().slice(-2)).toEqual(["unit-a", "unit-b"]);
    expect(methodPlugin("unit-b")).toBe("two.mjs");
    expect(pluginOfMethod("unit-a")).toEqual(loaded);
    // Again (a path given twice, a worker that loads what the main thread did): the same.
    expect(await loadPlugins([path, "./two.mjs"], { cwd: dir })).toEqual([loaded]);
  });

  it("registers a plug-in's methods again after they were unregistered", async () => {
    const path = write("again.mjs", pluginSource(["unit-c"]));
    await loadPlugin(path);
    unregisterMethod("unit-c");
    expect(methodNames()).not.toContain("unit-c");
    await loadPlugin(path);
    expect(methodNames()).toContain("unit-c");
    expect(methodPlugin("unit-c")).toBe("again.mjs");
  });

  it("refuses a second plug-in of the same method name, and records the one registered", async () => {
    const first = write("first.mjs", pluginSource(["unit-a"]));
    const second = write("second.mjs", pluginSource(["unit-a"], "// another content"));
    await loadPlugin(first);
    const err = await rejectionOf(loadPlugin(second));
    expect(err.message).toBe(
      `The plug-in ${second} cannot be loaded: A method named "unit-a" is already registered (by the plug-in first.mjs).`,
    );
    unregisterMethod("unit-a");
    await loadPlugin(second);
    expect(pluginOfMethod("unit-a")?.path).toBe(second);
    // The first file's method cannot come back while the second's holds the name.
    expect((await rejectionOf(loadPlugin(first))).message).toBe(
      `The plug-in ${first} cannot be loaded: A method named "unit-a" is already registered (by the plug-in second.mjs).`,
    );
    expect(pluginOfMethod("unit-a")?.sha256).toBe(sha(second));
  });

  it("refuses a file whose hash is not the run's, naming it", async () => {
    const path = write("expected.mjs", pluginSource(["unit-a"]));
    const err = await rejectionOf(loadPlugin(path, { expectedSha256: "0".repeat(64) }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      `The plug-in ${path} changed while the run was going on: its SHA-256 is ${sha(path).slice(0, 12)}... now, 000000000000... when the run began. Run it again to start over with the plug-in as it is now.`,
    );
    expect(methodNames()).not.toContain("unit-a");
  });
});

describe("bad plug-ins", () => {
  const cases: [string, () => string, (path: string) => string][] = [
    [
      "a missing file",
      () => join(dir, "missing.mjs"),
      (p) => `The plug-in ${p} cannot be loaded: there is no such file.`,
    ],
    [
      "a folder",
      () => {
        mkdirSync(join(dir, "folder.mjs"), { recursive: true });
        return join(dir, "folder.mjs");
      },
      (p) => `The plug-in ${p} cannot be loaded: it is not a regular file.`,
    ],
    [
      "a module that throws on import",
      () => write("throws.mjs", pluginSource(["unit-a"], 'throw new RangeError("no GPU here");')),
      (p) => `The plug-in ${p} cannot be loaded: importing it threw RangeError: no GPU here.`,
    ],
    [
      "a module whose error ends its sentence",
      () =>
        write(
          "period.mjs",
          pluginSource(["unit-a"], 'throw new Error("tuned options (k, seed).");'),
        ),
      (p) =>
        `The plug-in ${p} cannot be loaded: importing it threw Error: tuned options (k, seed).`,
    ],
    [
      "a name that clashes with a built-in",
      () => write("clash.mjs", pluginSource(["unit-a", "pca"])),
      (p) =>
        `The plug-in ${p} cannot be loaded: A method named "pca" is already registered: it is one of the built-in methods; give the new method a name of its own.`,
    ],
    [
      "a module that registers nothing",
      () => write("empty.mjs", "export const nothing = 1;\n"),
      (p) =>
        `The plug-in ${p} cannot be loaded: it registered no method (a plug-in calls registerMethod from sdspcaan/methods when it is imported; see docs/plugins.md).`,
    ],
  ];
  it.each(cases)(
    "%s: refused with one line, nothing left registered",
    async (_w, make, message) => {
      const before = methodNames();
      const path = make();
      const err = await rejectionOf(loadPlugin(path));
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.message).toBe(message(path));
      expect(methodNames()).toEqual(before);
    },
  );

  it("refuses an empty path", async () => {
    const err = await rejectionOf(loadPlugin(""));
    expect(err.message).toBe('A plug-in is the path of an ES module file. Got "".');
  });
});

describe("a plug-in whose top-level await never settles, under the built command", () => {
  // Only a real process shows it: Node ends one whose event loop is empty, and a test
  // runner's loop never is. Needs the build (`npm ci` makes it).
  const BIN = join(repoRoot, "packages", "sdspcaan-cli", "dist", "cli", "bin.js");
  it.each([
    ["fit", ["--method", "pca", "--k", "3", "--out", "y.json"], "y.json"],
    ["experiment", ["--methods", "pca", "--k-grid", "4", "--out", "run"], "run"],
  ])("%s exits 1 with one line naming it, and writes nothing", (command, rest, output) => {
    const cwd = join(dir, `hang-${command}`);
    mkdirSync(cwd, { recursive: true });
    const hang = join(cwd, "hang.mjs");
    writeFileSync(hang, "await new Promise(() => {});\n");
    const data = smallData(3);
    writeCsv(join(cwd, "train.csv"), data.X, data.y);
    const res = spawnSync(
      process.execPath,
      [BIN, command, "--plugin", "hang.mjs", "--data", "train.csv", ...rest, "--no-progress"],
      { cwd, encoding: "utf8" },
    );
    expect(res.stderr).toBe(
      `sdspcaan: The plug-in ${hang} cannot be loaded: it never finished loading (a top-level await on a promise that never settles).\n`,
    );
    expect(res.status).toBe(1);
    expect(existsSync(join(cwd, output))).toBe(false);
  });
});

describe("a TypeScript plug-in under the built command", () => {
  // Node runs .ts files from 23.6 and 22.18 on (process.features.typescript says so).
  const runsTypeScript =
    typeof (process.features as { typescript?: unknown }).typescript === "string";
  const BIN = join(repoRoot, "packages", "sdspcaan-cli", "dist", "cli", "bin.js");
  it.skipIf(runsTypeScript)("on a Node without TypeScript, says which Node runs it", () => {
    const cwd = join(dir, "typescript");
    mkdirSync(cwd, { recursive: true });
    const plugin = join(cwd, "mine.ts");
    writeFileSync(plugin, "const k: number = 2;\nexport { k };\n");
    const res = spawnSync(process.execPath, [BIN, "fit", "--plugin", "mine.ts", "--help"], {
      cwd,
      encoding: "utf8",
    });
    expect(res.stderr).toBe(
      `sdspcaan: The plug-in ${plugin} cannot be loaded: Node ${process.version} does not run TypeScript files: Node runs them from 23.6 and 22.18 on, and from 22.6 with NODE_OPTIONS=--experimental-strip-types; or compile the plug-in to .mjs.\n`,
    );
    expect(res.status).toBe(1);
  });
});

describe("a plug-in method whose fits fail", () => {
  // unit-bad's W has one row too few; unit-throws' fitCore throws a TypeError.
  const source = `import { Estimator, Matrix } from "sdspcaan";
import { defineMethod, registerMethod } from "sdspcaan/methods";
class Bad extends Estimator {
  fitCore(data) {
    if (this.method === "unit-throws") null.x;
    return { components: Matrix.identity(data.d - 1, this.params.k), iterations: 0,
      converged: true, stopReason: "closed-form", solver: "bad", details: {} };
  }
}
for (const name of ["unit-bad", "unit-throws"]) {
  const descriptor = defineMethod({ name, displayName: name, summary: "Fails.", supervised: true,
    options: { k: { type: "integer", min: 1, default: 2, doc: "Components." } },
    create: (options) => new Bad(descriptor, options) });
  registerMethod(descriptor);
}
`;

  it.each([1, 2])(
    "is recorded as failed configurations, and the run goes on (%i workers)",
    async (workers) => {
      const path = write(`failing-${workers}.mjs`, source);
      const res = await runExperiment(
        smallRun({
          plugins: [path],
          methods: ["pca", "unit-bad", "unit-throws"],
          repeats: 1,
          workers,
        }),
      );
      expect(new Set(res.records.map((r) => r.method))).toEqual(new Set(["pca"]));
      expect(res.records).toHaveLength(2);
      const failures = res.skipped
        .map((s) => `${s.method} k=${s.k}: ${s.error}: ${s.reason}`)
        .sort();
      expect(failures).toEqual([
        "unit-bad k=4: ContractError: unit-bad's fitCore returned components of 23 x 4 for 24 features; they must be 24 x 4 (one row per feature, one column per component).",
        "unit-bad k=8: ContractError: unit-bad's fitCore returned components of 23 x 8 for 24 features; they must be 24 x 8 (one row per feature, one column per component).",
        "unit-throws k=4: TypeError: Cannot read properties of null (reading 'x')",
        "unit-throws k=8: TypeError: Cannot read properties of null (reading 'x')",
      ]);
    },
  );
});

describe("a method registered in this process, not from a plug-in file", () => {
  it("is refused for worker threads, which could not load it", async () => {
    class Identity extends Estimator<{ k: number }> {
      constructor(options: Partial<{ k: number }> = {}) {
        super(descriptor, options);
      }

      protected fitCore(data: TrainingData): CoreFitResult {
        return {
          components: Matrix.identity(data.d, this.params.k),
          iterations: 0,
          converged: true,
          stopReason: "closed-form",
          solver: "identity",
          details: {},
        };
      }
    }
    const options = {
      k: { type: "integer", min: 1, default: 2, doc: "Components." },
    } as const satisfies OptionSchema;
    const descriptor: MethodDescriptor<typeof options> = defineMethod({
      name: "unit-c",
      displayName: "unit-c",
      summary: "Registered by the test itself.",
      supervised: false,
      options,
      create: (values) => new Identity(values),
    });
    registerMethod(descriptor);
    const err = await rejectionOf(
      runExperiment(smallRun({ methods: ["unit-c"], repeats: 1, workers: 2 })),
    );
    expect(err.message).toBe(
      "The method \"unit-c\" was registered in this process, not loaded from a plug-in file, so the experiment's worker threads cannot load it: load it as a plug-in (the 'plugins' option, --plugin FILE), or run in-process (workers: 1).",
    );
  });
});
