/**
 * Starting a worker thread from this package's own modules, built or not: the
 * experiment runner's workers and the kernels' helper thread.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { SdspcaanError } from "../core/errors.js";

/**
 * The ES-module entry of tsx's API, for running a worker from its TypeScript source.
 * tsx is a development dependency: it is looked up only when the package runs from
 * its .ts sources (vitest, `npx tsx`), never from a build.
 */
function tsxApiUrl(what: string): string {
  const require = createRequire(import.meta.url);
  let pkgPath: string;
  try {
    pkgPath = require.resolve("tsx/package.json");
  } catch {
    throw new SdspcaanError(
      `${what} is running from its TypeScript sources, whose worker threads need the development dependency tsx, which is not installed. Install the development dependencies (npm install), or build (npm run build) and run dist/.`,
    );
  }
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as {
    exports: Record<string, { import?: { default?: string } }>;
  };
  const entry = pkg.exports["./esm/api"]?.import?.default;
  if (typeof entry !== "string") {
    throw new SdspcaanError(`Cannot find the ES-module API of tsx in ${pkgPath}.`);
  }
  return pathToFileURL(join(dirname(pkgPath), entry)).href;
}

/**
 * Starts the worker whose entry is `entry` (a module name without extension, e.g.
 * "./worker.node") relative to `base` (the caller's import.meta.url): from a build,
 * the built .js beside the caller; from sources, the .ts entry through tsx's loader.
 * `what` names the component in the messages of a broken installation.
 */
export function startWorker(
  base: string,
  entry: string,
  what: string,
  options: WorkerOptions = {},
): Worker {
  if (!fileURLToPath(base).endsWith(".ts")) {
    const js = new URL(`${entry}.js`, base);
    if (!existsSync(fileURLToPath(js))) {
      throw new SdspcaanError(
        `${what}'s worker ${fileURLToPath(js)} is missing: the installation is incomplete. Reinstall sdspcaan, or rebuild it (npm run build).`,
      );
    }
    return new Worker(js, options);
  }
  const ts = new URL(`${entry}.ts`, base);
  // Register tsx's loader in the worker (worker execArgv cannot carry --import on
  // Node 20), then load the .ts entry.
  const code = `import(${JSON.stringify(tsxApiUrl(what))}).then((m) => { m.register(); return import(${JSON.stringify(ts.href)}); });`;
  return new Worker(code, { ...options, eval: true });
}
