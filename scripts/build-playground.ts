/**
 * Builds the in-browser playground (packages/sdspcaan-cli/src/playground/) into static
 * files in packages/sdspcaan-cli/dist/playground: the page, its worker and their shared chunks (esbuild, ES
 * modules; h5wasm is a separate chunk loaded only for MAT v7.3 / HDF5 files), the
 * style sheet, and datasets.json, the registry's data sets, with Yale and ORL copied
 * into data/ when the repository's data/ folder has them. Run by `npm run build`.
 *
 *   tsx scripts/build-playground.ts [--out dir] [--data dir]
 */
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { manifestFor } from "../packages/sdspcaan-cli/src/cli/playgroundServer.js";
import { DATASETS } from "../packages/sdspcaan-cli/src/io/registry.js";

/** The small data sets shipped with the page (about 0.5 MB together). */
const SHIPPED = ["Yale", "ORL"];

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? resolve(process.argv[i + 1]) : fallback;
}

export async function buildPlayground(out: string, dataDir: string): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const src = join(root, "packages", "sdspcaan-cli", "src", "playground");
  const result = await build({
    entryPoints: { main: join(src, "main.ts"), worker: join(src, "worker.ts") },
    outdir: out,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    // No source maps: h5wasm's alone would be 13 MB in the published package.
    sourcemap: false,
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning",
    metafile: true,
  });
  if (result.errors.length > 0) throw new Error("esbuild failed");
  for (const f of ["index.html", "style.css"]) copyFileSync(join(src, f), join(out, f));
  const served = new Map<string, { url: string; bytes: number }>();
  for (const name of SHIPPED) {
    const entry = DATASETS.find((d) => d.name === name);
    if (entry === undefined) continue;
    const from = join(dataDir, entry.file);
    if (!existsSync(from)) continue;
    mkdirSync(join(out, "data"), { recursive: true });
    copyFileSync(from, join(out, "data", entry.file));
    served.set(entry.name, { url: `data/${entry.file}`, bytes: statSync(from).size });
  }
  writeFileSync(join(out, "datasets.json"), `${JSON.stringify(manifestFor(served), null, 2)}\n`);
  const sizes = Object.entries(result.metafile.outputs)
    .filter(([f]) => f.endsWith(".js"))
    .map(([f, o]) => `${f.slice(f.lastIndexOf("/") + 1)} ${(o.bytes / 1024).toFixed(0)} KiB`);
  process.stdout.write(
    `playground: built ${out} (${sizes.join(", ")}; data sets shipped: ${[...served.keys()].join(", ") || "none"})\n`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildPlayground(
    arg("--out", join(root, "packages", "sdspcaan-cli", "dist", "playground")),
    arg("--data", join(root, "data")),
  );
}
