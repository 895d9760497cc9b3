/**
 * Plug-ins: ES modules that register methods of their own with the library's public
 * API (`registerMethod` from sdspcaan/methods) when they are imported. The CLI's
 * `--plugin FILE`, every experiment worker and every shard or cluster task load them
 * here, by absolute path, so that every process of a run knows the same methods.
 *
 * A plug-in is recorded by its path and the SHA-256 of its file: a run's settings.json
 * keeps them (with the methods each registered), a worker refuses a file that changed
 * since the run began, and a resumed run or a report refuses a plug-in whose hash is
 * not the recorded one (settingsFile.node.ts, `checkRunPlugins`).
 *
 * One registry: a plug-in imports `sdspcaan` and `sdspcaan/methods`, and must get the
 * very modules this CLI runs on, wherever the file lies (a plug-in outside any
 * node_modules tree would find no `sdspcaan`; one with its own node_modules copy would
 * register into that copy). A module resolve hook (node:module's `register`) maps those
 * specifiers, from any importer, to what they resolve to from here.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import * as nodeModule from "node:module";
import { basename, resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { methodNames, ValidationError } from "sdspcaan";
import {
  isBuiltInMethod,
  type MethodDescriptor,
  methodDescriptor,
  registerMethod,
  setMethodPlugin,
  unregisterMethod,
} from "sdspcaan/methods";
import type { PluginSettings, RunSettings } from "../protocol/plan.js";

/** A loaded plug-in: its absolute path, the SHA-256 of its file, and the methods it registered. */
export type LoadedPlugin = PluginSettings;

interface PluginState {
  readonly sha256: string;
  // biome-ignore lint/suspicious/noExplicitAny: descriptors of differently-typed options
  readonly descriptors: readonly MethodDescriptor<any>[];
}

/** The plug-ins this thread loaded, by absolute path. */
const LOADED = new Map<string, PluginState>();

/** How many times this thread imported each plug-in file (a failed import counts). */
const IMPORTS = new Map<string, number>();

/** The package's entries a plug-in may import, mapped to this CLI's copies. */
const LIBRARY_ENTRIES = [
  "sdspcaan",
  "sdspcaan/methods",
  "sdspcaan/formats",
  "sdspcaan/worker",
  "sdspcaan/node",
];

/** The resolve hook, as a module of its own (a data: URL needs no file and no build). */
const RESOLVE_HOOK = `let entries = {};
export async function initialize(data) { entries = data.entries; }
export async function resolve(specifier, context, next) {
  if (Object.hasOwn(entries, specifier)) return { url: entries[specifier], shortCircuit: true };
  return next(specifier, context);
}
`;

let hookInstalled = false;

/**
 * Installs the resolve hook in this thread (each worker thread installs its own):
 * `sdspcaan` and its entries resolve, from any module, to this CLI's copies. Where
 * the running loader cannot resolve them or has no hooks (a test runner's own module
 * graph, which resolves the package's names itself), nothing is installed.
 */
function installResolveHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  const register = (nodeModule as { register?: typeof nodeModule.register }).register;
  const resolveHere = (import.meta as { resolve?: (specifier: string) => string }).resolve;
  if (typeof register !== "function" || typeof resolveHere !== "function") return;
  const entries: Record<string, string> = {};
  for (const specifier of LIBRARY_ENTRIES) {
    try {
      const url = resolveHere(specifier);
      if (url.startsWith("file:")) entries[specifier] = url;
    } catch {
      // An entry this installation does not resolve is left to the default resolver.
    }
  }
  if (Object.keys(entries).length === 0) return;
  register(`data:text/javascript,${encodeURIComponent(RESOLVE_HOOK)}`, { data: { entries } });
}

function cannotLoad(path: string, why: string): ValidationError {
  // `why` may be an error's message that ends its own sentence.
  return new ValidationError(
    "plugin",
    `The plug-in ${path} cannot be loaded: ${why.replace(/\.+$/, "")}.`,
  );
}

/** The first line of an error's message (a plug-in's own errors can span lines). */
function firstLine(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message.split("\n")[0]}`;
  return String(err).split("\n")[0];
}

/** The SHA-256 (hex) of a plug-in's file, refusing what is not a readable regular file. */
export function pluginHash(path: string): string {
  let bytes: Buffer;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw cannotLoad(path, "it is not a regular file");
    bytes = readFileSync(path);
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const code = (err as { code?: string }).code;
    throw cannotLoad(
      path,
      code === "ENOENT"
        ? "there is no such file"
        : code === "EACCES"
          ? "it cannot be read (permission denied)"
          : `it cannot be read (${firstLine(err)})`,
    );
  }
  return createHash("sha256").update(bytes).digest("hex");
}

/** The descriptor registered under `name` now, or null. */
// biome-ignore lint/suspicious/noExplicitAny: descriptors of differently-typed options
function registered(name: string): MethodDescriptor<any> | null {
  return methodNames().includes(name) ? methodDescriptor(name) : null;
}

/**
 * Registers again what a loaded plug-in registered and was unregistered since (tests
 * do); a name another plug-in took meanwhile is refused as a clash.
 */
function reRegister(path: string, state: PluginState): void {
  for (const d of state.descriptors) {
    if (registered(d.name) === d) continue;
    try {
      registerMethod(d);
    } catch (err) {
      throw cannotLoad(
        path,
        firstLine(err)
          .replace(/^ValidationError: /, "")
          .replace(/\.$/, ""),
      );
    }
  }
  for (const d of state.descriptors) setMethodPlugin(d.name, basename(path));
}

/** Whether importing the file `path` failed because this Node cannot run TypeScript. */
function typeScriptUnsupported(err: unknown, path: string): boolean {
  return (
    /\.[cm]?ts$/i.test(path) &&
    (err as { code?: unknown } | null)?.code === "ERR_UNKNOWN_FILE_EXTENSION"
  );
}

/** What importSettling rejects with when the import can never settle. */
const NEVER_SETTLED = Symbol("never settled");

/**
 * Imports a module; rejects with NEVER_SETTLED when the process runs out of work while
 * the import is pending (a top-level await on a promise nothing will settle): Node
 * would otherwise end the process with status 0, the command silently undone.
 */
async function importSettling(href: string): Promise<void> {
  let onIdle = (): void => {};
  const idle = new Promise<never>((_, reject) => {
    onIdle = () => reject(NEVER_SETTLED);
  });
  process.once("beforeExit", onIdle);
  try {
    await Promise.race([import(href), idle]);
  } finally {
    process.off("beforeExit", onIdle);
  }
}

/**
 * Loads one plug-in: resolves its path (relative to `cwd`), hashes its file, imports
 * it and records the methods it registered. Loading the same file again is a no-op.
 * With `expectedSha256` (a worker or task of a run), a file whose hash differs is
 * refused: the plug-in changed since the run began.
 */
export async function loadPlugin(
  path: string,
  options: { readonly cwd?: string; readonly expectedSha256?: string } = {},
): Promise<LoadedPlugin> {
  if (typeof path !== "string" || path.trim() === "") {
    throw new ValidationError(
      "plugin",
      `A plug-in is the path of an ES module file. Got ${JSON.stringify(path)}.`,
    );
  }
  const abs = resolvePath(options.cwd ?? process.cwd(), path);
  const sha256 = pluginHash(abs);
  if (options.expectedSha256 !== undefined && options.expectedSha256 !== sha256) {
    throw new ValidationError(
      "plugin",
      `The plug-in ${abs} changed while the run was going on: its SHA-256 is ${short(sha256)} now, ${short(options.expectedSha256)} when the run began. Run it again to start over with the plug-in as it is now.`,
    );
  }
  const known = LOADED.get(abs);
  if (known !== undefined && known.sha256 === sha256) {
    reRegister(abs, known);
    return { path: abs, sha256, methods: known.descriptors.map((d) => d.name) };
  }
  if (known !== undefined) {
    // The file changed since this process imported it: its new text is a new module.
    for (const d of known.descriptors) if (registered(d.name) === d) unregisterMethod(d.name);
    LOADED.delete(abs);
  }
  installResolveHook();
  const before = new Set(methodNames());
  const url = pathToFileURL(abs);
  // A module's text is imported once per URL, and one that threw stays failed: a file
  // changed since, or tried again, is imported under a URL of its own.
  const attempt = (IMPORTS.get(abs) ?? 0) + 1;
  IMPORTS.set(abs, attempt);
  if (attempt > 1) url.search = `sha256=${sha256}&attempt=${attempt}`;
  try {
    await importSettling(url.href);
  } catch (err) {
    // Nothing half-registered stays behind a plug-in that failed.
    for (const name of methodNames()) if (!before.has(name)) unregisterMethod(name);
    const clash = err instanceof ValidationError && err.argument === "descriptor";
    throw cannotLoad(
      abs,
      err === NEVER_SETTLED
        ? "it never finished loading (a top-level await on a promise that never settles)"
        : typeScriptUnsupported(err, abs)
          ? `Node ${process.version} does not run TypeScript files: Node runs them from 23.6 and 22.18 on, and from 22.6 with NODE_OPTIONS=--experimental-strip-types; or compile the plug-in to .mjs`
          : clash
            ? err.message.replace(/\.$/, "")
            : `importing it threw ${firstLine(err)}`,
    );
  }
  const added = methodNames().filter((name) => !before.has(name));
  if (added.length === 0) {
    throw cannotLoad(
      abs,
      "it registered no method (a plug-in calls registerMethod from sdspcaan/methods when it is imported; see docs/plugins.md)",
    );
  }
  for (const name of added) setMethodPlugin(name, basename(abs));
  LOADED.set(abs, { sha256, descriptors: added.map((name) => methodDescriptor(name)) });
  return { path: abs, sha256, methods: added };
}

/** Loads plug-ins in order (see loadPlugin); a path given twice is loaded once. */
export async function loadPlugins(
  paths: readonly string[],
  options: { readonly cwd?: string } = {},
): Promise<LoadedPlugin[]> {
  if (!Array.isArray(paths)) {
    throw new ValidationError(
      "plugins",
      `The 'plugins' option must be a list of ES module paths. Got ${JSON.stringify(paths)}.`,
    );
  }
  const out: LoadedPlugin[] = [];
  for (const path of paths) {
    const loaded = await loadPlugin(path, options);
    if (!out.some((p) => p.path === loaded.path)) out.push(loaded);
  }
  return out;
}

/**
 * The loaded plug-in whose method `method` is the one registered now, or null (a
 * built-in, a method registered otherwise, or one of a plug-in since unregistered).
 */
export function pluginOfMethod(method: string): LoadedPlugin | null {
  const current = registered(method);
  if (current === null) return null;
  for (const [path, state] of LOADED) {
    if (state.descriptors.includes(current)) {
      return { path, sha256: state.sha256, methods: state.descriptors.map((d) => d.name) };
    }
  }
  return null;
}

/**
 * What settings.json records of the plug-ins a run's methods come from: each
 * plug-in's path, hash and those of its methods the run has (none: an empty list).
 */
export function pluginSettings(methods: readonly string[]): PluginSettings[] {
  const out: PluginSettings[] = [];
  for (const method of methods) {
    const plugin = pluginOfMethod(method);
    if (plugin === null) continue;
    const entry = out.find((p) => p.path === plugin.path);
    if (entry === undefined)
      out.push({ path: plugin.path, sha256: plugin.sha256, methods: [method] });
    else (entry.methods as string[]).push(method);
  }
  return out;
}

/**
 * Refuses a method that worker threads, shards or cluster tasks could not load: one
 * registered in this process without a plug-in file (it runs in-process only).
 */
export function checkMethodsLoadable(methods: readonly string[]): void {
  for (const method of methods) {
    if (isBuiltInMethod(method) || pluginOfMethod(method) !== null) continue;
    throw new ValidationError(
      "methods",
      `The method ${JSON.stringify(method)} was registered in this process, not loaded from a plug-in file, so the experiment's worker threads cannot load it: load it as a plug-in (the 'plugins' option, --plugin FILE), or run in-process (workers: 1).`,
    );
  }
}

/** The first 12 hex digits of a SHA-256, as messages show it. */
export function short(sha256: string): string {
  return `${sha256.slice(0, 12)}...`;
}

/**
 * Refuses to report (or merge the shards of) a run whose plug-in methods are not
 * loaded from the very files the run was made with: each plug-in recorded in its
 * settings.json must be loaded (--plugin), with the same SHA-256.
 */
export function checkRunPlugins(settings: RunSettings, settingsFile: string): void {
  for (const recorded of settings.plugins ?? []) {
    for (const method of recorded.methods) {
      const loaded = pluginOfMethod(method);
      if (loaded === null) {
        throw new ValidationError(
          "plugin",
          `The run in ${settingsFile} has the method ${JSON.stringify(method)} of the plug-in ${recorded.path}, which is not loaded: pass --plugin ${recorded.path} (the 'plugins' option).`,
        );
      }
      if (loaded.sha256 !== recorded.sha256) {
        throw new ValidationError(
          "plugin",
          `The plug-in ${loaded.path} (method ${method}) is not the one the run in ${settingsFile} was made with: its SHA-256 is ${short(loaded.sha256)}, the run's ${short(recorded.sha256)} (${recorded.path}). Report it with the plug-in the run used, or run the experiment again (--force redoes that method's fits).`,
        );
      }
    }
  }
}
