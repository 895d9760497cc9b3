/**
 * Builds the library package (packages/sdspcaan): ES modules into dist/esm and
 * CommonJS into dist/cjs (marked by its own package.json, so that `require` gets
 * CommonJS on every Node >= 20), each with its type declarations. The Node-only
 * entry (`sdspcaan/node`, *.node.ts) uses import.meta and is ES modules only.
 * Run from packages/sdspcaan (its `npm run build`).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
rmSync("dist", { recursive: true, force: true });
// The JavaScript without comments (they are in the declarations, where editors show
// them): the tarball stays small although it carries two module formats.
for (const config of ["tsconfig.build.json", "tsconfig.cjs.json"]) {
  const tscRun = (...flags) =>
    execFileSync(process.execPath, [tsc, "-p", config, ...flags], { stdio: "inherit" });
  tscRun("--declaration", "false", "--removeComments", "true");
  tscRun("--emitDeclarationOnly", "true");
}
mkdirSync(join("dist", "cjs"), { recursive: true });
writeFileSync(join("dist", "cjs", "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
console.log("sdspcaan: built dist/esm (ES modules) and dist/cjs (CommonJS)");
