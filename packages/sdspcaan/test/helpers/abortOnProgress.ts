/** Cancelling a fit from its own progress report, for the tests of cancellation. */

/**
 * Fit options that abort the fit at its first progress report; `reports()` counts the
 * reports that arrived, the first included, to show how soon the fit stopped.
 */
export function abortOnProgress(): {
  options: { signal: AbortSignal; onProgress: () => void };
  reports: () => number;
} {
  const controller = new AbortController();
  let reports = 0;
  const onProgress = () => {
    reports++;
    controller.abort();
  };
  return { options: { signal: controller.signal, onProgress }, reports: () => reports };
}
