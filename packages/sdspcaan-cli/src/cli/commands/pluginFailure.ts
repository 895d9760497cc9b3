/**
 * An error a plug-in's code throws while a command fits or applies its method is the
 * plug-in's failure, not a bug of sdspcaan: one line naming the method, the plug-in's
 * file and the error, status 1, instead of the "unexpected error" stack trace kept for
 * sdspcaan's own errors. The runner records the same errors as skipped fits
 * (runner/units.node.ts).
 */
import { SdspcaanError, ValidationError } from "sdspcaan";
import { methodPlugin } from "sdspcaan/methods";

/**
 * `err` as the command reports it: a plug-in method's error that is not one of
 * sdspcaan's (a TypeError of its code) becomes a one-line ValidationError; anything
 * else is returned as it is.
 */
export async function asPluginFailure(method: string, err: unknown): Promise<unknown> {
  if (err instanceof SdspcaanError || methodPlugin(method) === null) return err;
  // Loaded already when a plug-in is: it knows the file's full path.
  const { pluginOfMethod } = await import("../../runner/plugins.node.js");
  const file = pluginOfMethod(method)?.path ?? methodPlugin(method);
  const what =
    err instanceof Error
      ? `${err.name}: ${err.message.split("\n")[0]}`
      : String(err).split("\n")[0];
  return new ValidationError(
    "plugin",
    `The method ${JSON.stringify(method)} of the plug-in ${file} failed: its code threw ${what.replace(/\.$/, "")}.`,
  );
}

/** Runs `run`, reporting an error of the plug-in method `method` as asPluginFailure does. */
export async function inPluginTerms<T>(method: string, run: () => T): Promise<T> {
  try {
    return run();
  } catch (err) {
    throw await asPluginFailure(method, err);
  }
}
