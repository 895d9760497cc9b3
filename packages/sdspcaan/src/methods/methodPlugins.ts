/**
 * Which plug-in each method that is not built in comes from (a name for people: the
 * plug-in's file name). Model files of such a method save it, so that loading one
 * without the plug-in can say what to load. Kept apart from the registry, which
 * imports the estimator, so that the estimator's toJSON can read it.
 */
import { ValidationError } from "../core/errors.js";

const PLUGIN_OF = new Map<string, string>();

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
