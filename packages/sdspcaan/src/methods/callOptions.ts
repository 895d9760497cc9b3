/**
 * The options objects of a fit and a transform, checked before any work: an object,
 * only the names the call takes, callbacks that are functions and a signal that is one
 * (a wrong onProgress would fail mid-fit, a signal that is not one would never cancel).
 */
import { optionNames } from "../core/options.js";
import { checkCallbackOption, checkCallOptions, checkSignalOption } from "../core/validate.js";
import type { FitCallbacks, FitOptions, TransformOptions } from "./fitReport.js";

/** The callbacks of a fit (`fitPrepared`'s, or with `names` a call's options holding them). */
export function checkCallbacks(
  callbacks: FitCallbacks,
  call: string,
  argument = "callbacks",
  names: readonly string[] = FIT_CALLBACK_NAMES,
): void {
  checkCallOptions(callbacks, call, names, argument);
  checkCallbackOption(callbacks.onProgress, "onProgress", call, "(progress) => void");
  checkSignalOption(callbacks.signal, call);
}

/** The callbacks' names, for every options type that holds them (fitInWorker's too). */
export const FIT_CALLBACKS = { onProgress: true, signal: true } as const;

const FIT_CALLBACK_NAMES = optionNames<FitCallbacks>(FIT_CALLBACKS);
const FIT_OPTION_NAMES = optionNames<FitOptions>({ ...FIT_CALLBACKS, featureNames: true });
const TRANSFORM_OPTION_NAMES = optionNames<TransformOptions>({
  featureNames: true,
  onWarning: true,
});

/** The options of a fit (the callbacks and featureNames), checked before it starts. */
export function checkFitOptions(options: FitOptions, call: string): void {
  checkCallbacks(options, call, "options", FIT_OPTION_NAMES);
}

/** The options of a transform (or of a pipeline's predict or score), checked before it runs. */
export function checkTransformOptions(options: TransformOptions, call: string): void {
  checkCallOptions(options, call, TRANSFORM_OPTION_NAMES);
  checkCallbackOption(options.onWarning, "onWarning", call, "(warning) => void");
}
