/**
 * Orders of rows that the neighbour searches share: the whole search
 * (neighbours.ts) and the one tracked across a fit's iterations
 * (trackedNeighbours.ts) both scan rows class by class and query rows first.
 */

/**
 * A scan order with the query rows first (the scan's active positions), then the other
 * rows of `rows` (all n rows when null) in their order.
 */
export function queryRowsFirst(
  query: ArrayLike<number>,
  rows: ArrayLike<number> | null,
  n: number,
): Int32Array {
  const total = rows === null ? n : rows.length;
  const order = new Int32Array(total);
  const isQuery = new Uint8Array(n);
  for (let t = 0; t < query.length; t++) {
    order[t] = query[t];
    isQuery[query[t]] = 1;
  }
  let at = query.length;
  for (let t = 0; t < total; t++) {
    const i = rows === null ? t : rows[t];
    if (isQuery[i] === 0) order[at++] = i;
  }
  return order;
}

/** The rows of each class in ascending order: byClass[start[c] .. start[c + 1]). */
export function classOrder(
  codes: Int32Array,
  classes: number,
): { start: Int32Array; byClass: Int32Array } {
  const n = codes.length;
  const start = new Int32Array(classes + 1);
  for (let i = 0; i < n; i++) start[codes[i] + 1]++;
  for (let c = 0; c < classes; c++) start[c + 1] += start[c];
  const byClass = new Int32Array(n);
  const fill = start.slice(0, classes);
  for (let i = 0; i < n; i++) byClass[fill[codes[i]]++] = i;
  return { start, byClass };
}
