/**
 * `npm run typecheck`: the three TypeScript programs of the repository (the packages,
 * tests, benchmarks and scripts for Node; the playground for the browser; the browser
 * tests), checked at the same time. tsc is single-threaded and the three share no
 * work, so on two cores this takes the time of the largest instead of the sum.
 * Each program's output is printed whole, after it ends; the exit code is the first
 * non-zero one.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const programs = [
  "tsconfig.json",
  "packages/sdspcaan-cli/src/playground/tsconfig.json",
  "test/e2e/tsconfig.json",
];

const runs = programs.map(
  (project) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [tsc, "-p", project, "--noEmit"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (b) => {
        output += b;
      });
      child.stderr.on("data", (b) => {
        output += b;
      });
      child.on("error", (error) => resolve({ project, code: 1, output: String(error) }));
      child.on("close", (code, signal) =>
        resolve({ project, code: code ?? (signal ? 1 : 0), output }),
      );
    }),
);

let failed = 0;
for (const { project, code, output } of await Promise.all(runs)) {
  if (output.length > 0) process.stdout.write(output.endsWith("\n") ? output : `${output}\n`);
  if (code !== 0) {
    process.stderr.write(`typecheck: ${project} has type errors (tsc exit code ${code})\n`);
    if (failed === 0) failed = code;
  }
}
process.exit(failed);
