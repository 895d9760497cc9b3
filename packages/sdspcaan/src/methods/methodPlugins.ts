/**
 * Which plug-in each method that is not built in comes from (a name for people: the
 * plug-in's file name). Model files of such a method save it, so that loading one
 * without the plug-in can say what to load. Kept apart from the registry, which
 * imports the estimator, so that the estimator's toJSON can read it.
 */
import { ValidationError } from "../core/errors.js";

const PLUGIN_OF = new Map<string, string>();

/**
 * The built-in methods' names (registry.ts adds them). Here rather than in the
 * registry so that the model format, which the registry imports, can tell that a
 * built-in method's model never names a plug-in.
 */
const BUILT_IN = new Set<string>();

/** Records `name` as a built-in method's (registry.ts, once per built-in). */
export function markBuiltInMethod(name: string): void {
  BUILT_IN.add(name);
}

/** Whether `name` (as registered, lower-case) is one of the methods the library comes with. */
export function isBuiltInMethod(name: string): boolean {
  return BUILT_IN.has(name);
}

/**
 * Records that the registered method `name` comes from the plug-in `plugin` (null
 * forgets it). The CLI's `--plugin` loader calls it for every method a plug-in
 * registers; a program that imports a plug-in itself may too.
 */
export function setMethodPlugin(name: string, plugin: string | null): void {
  if (plugin === null) {
    PLUGIN_OF.delete(name);
    return;
  }
  // A built-in model saved with a plug-in's name would not load (checkModelJSON).
  if (BUILT_IN.has(name)) {
    throw new ValidationError(
      "name",
      `${JSON.stringify(name)} is one of the built-in methods: it comes from no plug-in.`,
    );
  }
  const control = typeof plugin === "string" && [...plugin].some((ch) => ch.charCodeAt(0) < 0x20);
  if (typeof plugin !== "string" || plugin.trim() === "" || control) {
    throw new ValidationError(
      "plugin",
      `A plug-in's name must be a non-empty string without control characters. Got ${JSON.stringify(plugin)}.`,
    );
  }
  PLUGIN_OF.set(name, plugin);
}

/** The plug-in the method `name` comes from, or null (a built-in, or not recorded). */
export function methodPlugin(name: string): string | null {
  return PLUGIN_OF.get(name) ?? null;
}
