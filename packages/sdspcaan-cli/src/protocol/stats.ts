/** Summary statistics and grouping used by the protocol's reports (internal helpers). */

/** Arithmetic mean of a non-empty list (an empty one is a bug in the caller: it throws). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError("mean: the list of values is empty.");
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/**
 * Sample standard deviation (divisor n - 1, as the paper's Table IV and MATLAB's
 * `std`) of a non-empty list; 0 for a single value.
 */
export function sampleStd(values: readonly number[]): number {
  const n = values.length;
  if (n === 0) throw new RangeError("sampleStd: the list of values is empty.");
  if (n === 1) return 0;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return Math.sqrt(ss / (n - 1));
}

/** Groups items by a key, keeping the order in which keys first appear. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
