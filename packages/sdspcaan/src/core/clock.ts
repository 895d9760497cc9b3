/**
 * Milliseconds from an arbitrary origin, for timings. performance is a Web API, present
 * in browsers, workers and Node, but not in every JavaScript host (bare embedded
 * engines): the millisecond clock there.
 */
export function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}
