/**
 * `npm run typecheck`: the four TypeScript programs of the repository (the packages,
 * tests, benchmarks and scripts for Node; the playground for the browser; the browser
 * tests; the public types' test, packages/sdspcaan/test/types), checked one after the
 * other by TypeScript 7's native compiler (the `typescript-7` development
 * dependency): about 4 s of CPU for all of them where TypeScript 5.9's tsc
 * takes 42. The build (`npm run build`) and typedoc (`npm run docs`, whose API needs
 * TypeScript 6 or older) use the `typescript` dependency, so the library's sources are
 * checked by both compilers. The compiler uses every core itself, so the programs run
 * one at a time. The exit code is the first non-zero one.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// TypeScript 7's package exports no path to its command; its package.json sits beside it.
const tsc = join(
  dirname(createRequire(import.meta.url).resolve("typescript-7/package.json")),
  "bin",
  "tsc",
);
const programs = [
  "tsconfig.json",
  "packages/sdspcaan-cli/src/playground/tsconfig.json",
  "test/e2e/tsconfig.json",
  // The public types as users meet them, @ts-expect-error lines included (a program of
  // its own: its plug-in's declaration merging would otherwise reach every test).
  "packages/sdspcaan/test/types/tsconfig.json",
];

/** Checks one program; resolves to tsc's exit code, its output printed as it comes. */
function check(project) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, "-p", project, "--noEmit"], { stdio: "inherit" });
    child.on("error", (error) => {
      process.stderr.write(`typecheck: cannot run ${tsc}: ${error.message}\n`);
      resolve(1);
    });
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

let failed = 0;
for (const project of programs) {
  const code = await check(project);
  if (code !== 0) {
    process.stderr.write(`typecheck: ${project} has type errors (tsc exit code ${code})\n`);
    if (failed === 0) failed = code;
  }
}
process.exit(failed);
