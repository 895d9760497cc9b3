/**
 * The library as a user installs it: packs packages/sdspcaan with `npm pack`, installs
 * the tarball into a new project in a temporary folder and checks, failing loudly on
 * the first thing that does not hold:
 * - the tarball holds no .node, .mat or .map file and unpacks to at most 2.3 MiB;
 * - `npm ls --all` of the project shows none of the CLI's heavy dependencies;
 * - `import` (ES modules) and `require` (CommonJS) both fit and transform;
 * - TypeScript projects with `module: nodenext` (CommonJS output) and with
 *   `moduleResolution: bundler` type-check against the published declarations and run;
 * - an esbuild browser bundle of a file that imports only PCA is at most 106 KB
 *   (106,000 bytes; see MAX_BUNDLE) minified and has no `node:` import;
 * - the CLI's tarball (with the other three packages') installs into a new project
 *   and `npx sdspcaan` runs there;
 * - with `--runtimes` (`npm run test:runtimes`): Bun and Deno, installed from the npm
 *   registry into the temporary folder, run the same consumer programs, and a Pipeline
 *   of every method fitted there predicts Node's labels with Node's BCA, with Node's
 *   components to the last bit but for the methods ENGINE_BITS_DIFFER names.
 * Needs a build (`npm ci` makes one) and the npm registry (for the CLI's dependencies). Run by
 * .ci/run as `npm run test:package` and `npm run test:runtimes`. Prints
 * "N passed, 0 failed" at the end.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const withRuntimes = process.argv.includes("--runtimes");
const require = createRequire(import.meta.url);
const tsc = require.resolve("typescript/bin/tsc");
const { build } = await import("esbuild");

// 2.3 MiB: the library reads delimited text itself (formats/csv*.ts, 100 KB of ES
// modules, CommonJS and declarations) where it depended on csv-parse (1.5 MB installed),
// and sdspcaan/node has the command's file loaders and data set registry (io/*.node.ts,
// 45 KB, ES modules only): 2.2 MiB until then. 2.5 MiB since PCA's outputs, inverseTransform,
// the generated option input types (methods/optionTypes.ts) and plug-in support (2,407 KiB).
const MAX_UNPACKED = 2.5 * 1024 * 1024;
// PCA alone: the estimator contract, the model format, the eigen-solvers and the
// WebAssembly kernels (one module for every kernel, embedded compressed: 7 KB).
// 80 KB until the "fast" backend, whose relaxed-SIMD GEMM and routing added 1.7 KB; 96.6 KB
// since every estimator has inverseTransform (its least-squares inverse reaches the thin
// SVD) and PCA its explained variance, k as a fraction and whitening; 98.4 KB since every
// options object refuses names it does not take (with the constructors' did-you-mean) and
// a supervised fit refuses labels that are not class labels; 104.6 KB since a method's
// declaration is checked when defined (an option schema's own check, core/options.ts),
// components must be finite, model files refuse negative z-score scales and a plug-in
// field on a built-in, and the kernels refuse an unknown SDSPCAAN_KERNELS.
const MAX_BUNDLE = 106 * 1000;
const FORBIDDEN_DEPS = [
  "vega",
  "vega-lite",
  "@resvg/resvg-js",
  "h5wasm",
  "commander",
  "cli-progress",
  "sdspcaan-native",
];

// `--runtimes`: the consumer programs again under Bun and Deno, installed from the npm
// registry (their packages carry each platform's binary) at these versions.
const RUNTIMES = { bun: "1.4.5", deno: "2.9.6" };
// Methods whose components are not Node's bits under that runtime. They reach
// Math.hypot (the dense eigen-solvers' rotations: JavaScriptCore's differs from V8's)
// or Math.exp (LPP's heat kernel: Deno's V8 and JavaScriptCore differ from Node's);
// neither is correctly rounded anywhere, and each engine rounds its own way. Their
// labels and BCA are the same. The check fails when this list is wrong either way.
const ENGINE_BITS_DIFFER = {
  bun: ["pcan", "spcan", "jpcda", "slnp", "lda", "lpp"],
  deno: ["lpp"],
};
// A Pipeline of each built-in method on data made with integer arithmetic only (data
// from Math.sin would already differ between engines), printing the components' bytes
// in hexadecimal, the BCA and the predicted labels.
const ENGINES_PROGRAM = `import { Pipeline, createMethod, methodNames, setKernelBackend } from "sdspcaan";
// The "fast" default differs by engine by design (relaxed-SIMD FMA where validated): compare "portable".
setKernelBackend("portable");
let state = 12345;
const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 4294967296;
const X = [], y = [];
for (let i = 0; i < 90; i++) {
  const c = i % 3;
  X.push(Array.from({ length: 20 }, (_, j) => (j === c ? 1.5 : 0) + next()));
  y.push("abc"[c]);
}
const fits = {};
for (const name of methodNames()) {
  const p = new Pipeline(createMethod(name, { k: 2 })).fit(X, y);
  const W = p.estimator.components;
  const bytes = new Uint8Array(W.data.buffer, W.data.byteOffset, W.data.byteLength);
  const components = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  fits[name] = { components, bca: p.score(X, y), labels: p.predict(X).join("") };
}
console.log(JSON.stringify(fits));
`;

let passed = 0;
/** A failed check: it ends the run, after the temporary folder is removed. */
class CheckFailed extends Error {}
function check(what, ok, detail = "") {
  if (!ok) {
    console.error(`FAIL ${what}${detail ? `: ${detail}` : ""}`);
    console.error(`${passed} passed, 1 failed`);
    throw new CheckFailed(what);
  }
  passed++;
  console.log(`ok   ${what}${detail ? ` (${detail})` : ""}`);
}

function run(cmd, args, cwd, env = process.env) {
  return execFileSync(cmd, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

const work = mkdtempSync(join(tmpdir(), "sdspcaan-package-"));
try {
  // 1. The tarball.
  const packed = JSON.parse(
    run("npm", ["pack", "--workspace", "sdspcaan", "--json", "--pack-destination", work], root),
  )[0];
  const tarball = join(work, packed.filename);
  const files = packed.files.map((f) => f.path);
  const bad = files.filter((f) => /\.(node|mat|map)$/.test(f));
  check("the tarball holds no .node, .mat or .map file", bad.length === 0, bad.join(", "));
  check(
    "the tarball unpacks to at most 2.3 MiB",
    packed.unpackedSize <= MAX_UNPACKED,
    `${(packed.unpackedSize / 1024).toFixed(0)} KiB in ${files.length} files, ${(packed.size / 1024).toFixed(0)} KiB packed`,
  );

  // 2. A consumer project.
  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: "consumer", version: "1.0.0", private: true }, null, 2)}\n`,
  );
  run("npm", ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline"], app);
  const tree = run("npm", ["ls", "--all", "--json"], app);
  const names = new Set();
  const walk = (deps) => {
    for (const [name, node] of Object.entries(deps ?? {})) {
      // An optional peer that is not installed (sdspcaan-native) is listed empty.
      if (node.version === undefined) continue;
      names.add(name);
      walk(node.dependencies);
    }
  };
  walk(JSON.parse(tree).dependencies);
  const heavy = FORBIDDEN_DEPS.filter((d) => names.has(d));
  check(
    "the install tree has no plotting, HDF5, CLI or native package",
    heavy.length === 0,
    [...names].join(", "),
  );

  const data = `const X = [], y = [];
for (let i = 0; i < 30; i++) {
  const c = i % 3;
  X.push(Array.from({ length: 8 }, (_, j) => (j === c ? 5 : 0) + Math.sin(7 * i + 3 * j)));
  y.push(c);
}`;
  const use = `const model = new PCA({ k: 2 }).fit(X, y);
const Z = model.transform(X);
if (Z.rows !== 30 || Z.cols !== 2) throw new Error("unexpected shape " + Z.rows + "x" + Z.cols);
const again = loadModel(JSON.stringify(model.toJSON()));
if (again.transform(X).data.some((v, i) => v !== Z.data[i])) throw new Error("reload differs");
console.log("fit and transform: " + Z.rows + " x " + Z.cols);`;

  // The consumer programs: each prints a line its check matches; with --runtimes they
  // run again under Bun and Deno (section 6).
  const consumers = [
    {
      file: "esm.mjs",
      what: "import (ES modules) fits and transforms",
      source: `import { PCA, loadModel } from "sdspcaan";\n${data}\n${use}\n`,
      expect: /30 x 2/,
    },
    {
      file: "cjs.cjs",
      what: "require (CommonJS) fits and transforms",
      source: `const { PCA, loadModel } = require("sdspcaan");\n${data}\n${use}\n`,
      expect: /30 x 2/,
    },
    {
      file: "subpaths.cjs",
      what: "require of sdspcaan/formats, sdspcaan/methods and sdspcaan/worker",
      source: `const { parseBytes } = require("sdspcaan/formats");
const { methodDescriptors } = require("sdspcaan/methods");
const { fitInWorker, serveFits } = require("sdspcaan/worker");
if (typeof parseBytes !== "function" || methodDescriptors().length < 11) throw new Error("subpaths");
if (typeof fitInWorker !== "function" || typeof serveFits !== "function") throw new Error("worker");
console.log("subpaths ok");\n`,
      expect: /subpaths ok/,
    },
    {
      file: "pipeline.cjs",
      what: "a Pipeline fits, predicts, scores and reloads (CommonJS)",
      source: `const { Pipeline, PCA, loadModel } = require("sdspcaan");\n${data}
const p = new Pipeline(new PCA({ k: 2 })).fit(X, y);
const again = loadModel(JSON.stringify(p.toJSON()));
const same = again.predict(X).every((l, i) => l === p.predict(X)[i]);
console.log("pipeline " + p.score(X, y) + " " + same);\n`,
      expect: /pipeline 1 true/,
    },
    {
      file: "engines.mjs",
      what: "a Pipeline of every method fits and prints its components' bits",
      source: ENGINES_PROGRAM,
      expect: /^\{"baseline":/,
    },
  ];
  const outputs = {};
  for (const { file, what, source, expect } of consumers) {
    writeFileSync(join(app, file), source);
    outputs[file] = run("node", [file], app);
    check(what, expect.test(outputs[file]));
  }

  // 3. TypeScript consumers, against the published declarations (skipLibCheck off).
  const typed = `import { PCA, loadModel, type PCAOptions } from "sdspcaan";
const options: Partial<PCAOptions> = { k: 2 };
const X: number[][] = [];
const y: number[] = [];
for (let i = 0; i < 30; i++) {
  const c = i % 3;
  X.push(Array.from({ length: 8 }, (_, j) => (j === c ? 5 : 0) + Math.sin(7 * i + 3 * j)));
  y.push(c);
}
const model = new PCA(options).fit(X, y);
const Z = model.transform(X);
const again = loadModel(JSON.stringify(model.toJSON()));
if (again.transform(X).data.some((v: number, i: number) => v !== Z.data[i])) throw new Error("reload");
console.log("typed: " + Z.rows + " x " + Z.cols);
`;
  const compilerBase = {
    target: "ES2022",
    strict: true,
    skipLibCheck: false,
    outDir: "out",
    lib: ["ES2022", "DOM"],
    types: [],
  };
  for (const [name, options, type] of [
    ["nodenext", { module: "nodenext", moduleResolution: "nodenext" }, "commonjs"],
    ["bundler", { module: "esnext", moduleResolution: "bundler" }, "module"],
  ]) {
    const dir = join(work, `ts-${name}`);
    mkdirSync(dir);
    writeFileSync(
      join(dir, "package.json"),
      `${JSON.stringify({ name: `ts-${name}`, version: "1.0.0", private: true, type })}\n`,
    );
    run("npm", ["install", tarball, "--no-audit", "--no-fund", "--prefer-offline"], dir);
    writeFileSync(
      join(dir, "tsconfig.json"),
      `${JSON.stringify({ compilerOptions: { ...compilerBase, ...options }, files: ["main.ts"] })}\n`,
    );
    writeFileSync(join(dir, "main.ts"), typed);
    try {
      run("node", [tsc, "-p", "."], dir);
    } catch (err) {
      check(`TypeScript (${name}) type-checks`, false, `${err.stdout}${err.stderr}`);
    }
    check(`TypeScript (${name}) type-checks`, true);
    check(`TypeScript (${name}) runs`, /typed: 30 x 2/.test(run("node", ["out/main.js"], dir)));
  }

  // 4. A browser bundle of PCA alone.
  writeFileSync(
    join(app, "pca-only.mjs"),
    `import { PCA } from "sdspcaan";\nexport function project(X, y) { return new PCA({ k: 2 }).fit(X, y).transform(X); }\n`,
  );
  const result = await build({
    entryPoints: [join(app, "pca-only.mjs")],
    absWorkingDir: app,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].text;
  check(
    `a browser bundle of PCA alone is at most ${MAX_BUNDLE / 1000} KB minified`,
    code.length <= MAX_BUNDLE,
    `${(code.length / 1000).toFixed(1)} KB`,
  );
  const nodeImports = Object.values(result.metafile.inputs)
    .flatMap((i) => i.imports.map((m) => m.path))
    .filter((p) => p.startsWith("node:"));
  check(
    "the bundle has no node: import",
    nodeImports.length === 0 && !/["']node:/.test(code),
    nodeImports.join(", "),
  );

  // 5. The command, as the README installs it: the four packages' tarballs into a new
  // project (the CLI's own dependencies from the registry), then its bin through npx.
  const tarballs = ["sdspcaan-hdf5", "sdspcaan-native", "sdspcaan-cli"].map((name) => {
    const p = JSON.parse(
      run("npm", ["pack", "--workspace", name, "--json", "--pack-destination", work], root),
    )[0];
    return join(work, p.filename);
  });
  const cliApp = join(work, "cli-app");
  mkdirSync(cliApp);
  writeFileSync(
    join(cliApp, "package.json"),
    `${JSON.stringify({ name: "cli-consumer", version: "1.0.0", private: true }, null, 2)}\n`,
  );
  run(
    "npm",
    ["install", tarball, ...tarballs, "--no-audit", "--no-fund", "--prefer-offline"],
    cliApp,
  );
  const version = run("npx", ["--no-install", "sdspcaan", "--version"], cliApp).trim();
  check("the CLI's tarball installs and `npx sdspcaan` runs", version === packed.version, version);
  const rows = ["a,b,c,d,label"];
  for (let i = 0; i < 30; i++) {
    const c = i % 3;
    const x = Array.from({ length: 4 }, (_, j) => (j === c ? 5 : 0) + Math.sin(7 * i + 3 * j));
    rows.push(`${x.join(",")},${"xyz"[c]}`);
  }
  writeFileSync(join(cliApp, "train.csv"), `${rows.join("\n")}\n`);
  const cliArgs = ["--data", "train.csv", "--label-col", "last"];
  run(
    "npx",
    [
      "--no-install",
      "sdspcaan",
      "fit",
      ...cliArgs,
      "--method",
      "sdspcaan",
      "--k",
      "2",
      "--pipeline",
      "--out",
      "model.json",
    ],
    cliApp,
  );
  const labels = run(
    "npx",
    ["--no-install", "sdspcaan", "predict", "--model", "model.json", ...cliArgs],
    cliApp,
  );
  check(
    "the installed CLI fits a pipeline and predicts",
    labels.trim().split("\n").slice(-3).join("") === "xyz",
    labels.trim().split("\n").slice(-3).join(" "),
  );

  // 6. Bun and Deno (--runtimes): the same consumer programs, and the same bits.
  if (withRuntimes) {
    const prefix = join(work, "runtimes");
    run(
      "npm",
      [
        "install",
        "--prefix",
        prefix,
        "--no-save",
        "--no-audit",
        "--no-fund",
        ...Object.entries(RUNTIMES).map(([name, version]) => `${name}@${version}`),
      ],
      root,
    );
    const bin = (name) => join(prefix, "node_modules", ".bin", name);
    // Deno runs with no permission flag: the library imports without any (it reads
    // SDSPCAAN_KERNELS where the environment may be read, and takes it as unset where not).
    const commands = { bun: [bin("bun")], deno: [bin("deno"), "run"] };
    // Their caches (Deno's analysis and code caches, Bun's transpiler cache) stay in the
    // temporary folder too, so nothing is left in the home directory.
    const env = {
      ...process.env,
      DENO_DIR: join(prefix, "deno-cache"),
      BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
      BUN_INSTALL_CACHE_DIR: join(prefix, "bun-cache"),
    };
    const node = JSON.parse(outputs["engines.mjs"]);
    for (const [runtime, [command, ...flags]] of Object.entries(commands)) {
      const version = run(command, ["--version"], app, env).trim().split("\n")[0];
      check(
        `${runtime} ${RUNTIMES[runtime]} is installed`,
        version.includes(RUNTIMES[runtime]),
        version,
      );
      for (const { file, what, expect } of consumers) {
        const output = run(command, [...flags, file], app, env);
        check(`${runtime}: ${what}`, expect.test(output));
        if (file !== "engines.mjs") continue;
        const fits = JSON.parse(output);
        const names = Object.keys(node);
        check(`${runtime}: the same methods`, Object.keys(fits).join() === names.join());
        const differ = names.filter((n) => fits[n].components !== node[n].components);
        const outcome = names.filter(
          (n) => fits[n].bca !== node[n].bca || fits[n].labels !== node[n].labels,
        );
        check(
          `${runtime}: every Pipeline predicts the same labels with the same BCA as in Node`,
          outcome.length === 0,
          outcome.join(", "),
        );
        check(
          `${runtime}: components are Node's bits but for ENGINE_BITS_DIFFER's methods`,
          differ.join() === ENGINE_BITS_DIFFER[runtime].join(),
          `differ: ${differ.join(", ") || "none"}; listed: ${ENGINE_BITS_DIFFER[runtime].join(", ")}`,
        );
        check(
          `${runtime}: SDSPCAAN's Pipeline has Node's components, bit for bit`,
          fits.sdspcaan.components === node.sdspcaan.components,
        );
      }
    }
  }

  console.log(`${passed} passed, 0 failed`);
} catch (error) {
  if (!(error instanceof CheckFailed)) throw error;
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
