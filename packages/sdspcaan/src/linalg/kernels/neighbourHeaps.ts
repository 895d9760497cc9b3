/**
 * The k nearest neighbours of many rows kept while pairs are scanned: bounded
 * max-heaps per row in flat typed arrays (their storage crosses to helper threads as
 * is), and the rows of two neighbour searches put together.
 */

/** The index of an empty heap slot. */
const NO_INDEX = 0x7fffffff;

/**
 * d = p + lambda * l kept in its two parts (p: the primary squared distance, l: the
 * secondary one). Row i's candidates occupy [i * count, (i + 1) * count), ascending
 * by (d, index). For a plain search l is 0.
 */
export interface TwoPartNeighbours {
  readonly rows: number;
  readonly count: number;
  readonly indices: Int32Array;
  /** d as ranked: the floating-point value p + lambda * l. */
  readonly distances: Float64Array;
  /** p, the squared distance between the rows of the searched matrix. */
  readonly primary: Float64Array;
  /** l, the secondary squared distance (0 when there is no second term). */
  readonly secondary: Float64Array;
  /** The lambda that weighted l (0 when there is no second term). */
  readonly lambda: number;
}

/** The rows of consecutive parts' neighbours, in order, as one result (parts of one search). */
export function concatNeighbourRows(
  parts: readonly TwoPartNeighbours[],
  count: number,
  lambda: number,
): TwoPartNeighbours {
  let rows = 0;
  for (const p of parts) rows += p.rows;
  const indices = new Int32Array(rows * count);
  const distances = new Float64Array(rows * count);
  const primary = new Float64Array(rows * count);
  const secondary = new Float64Array(rows * count);
  let at = 0;
  for (const p of parts) {
    indices.set(p.indices, at);
    distances.set(p.distances, at);
    primary.set(p.primary, at);
    secondary.set(p.secondary, at);
    at += p.rows * count;
  }
  return { rows, count, indices, distances, primary, secondary, lambda };
}

/** The storage of NeighbourHeaps, as a helper thread sends it back. */
export interface HeapStorage {
  readonly size: Int32Array;
  readonly dist: Float64Array;
  readonly index: Int32Array;
  /** p and l of each candidate (absent for a one-part distance: p = d, l = 0). */
  readonly first?: Float64Array;
  readonly second?: Float64Array;
}

/**
 * One bounded max-heap per row, keyed by (d, index): the root is the worst kept
 * candidate, so a new candidate is accepted only if it beats the root. `worstDistance`
 * and `worstIndex` mirror the root (+inf / NO_INDEX until the heap is full) so that
 * the hot loops can reject most candidates with one comparison.
 */
export class NeighbourHeaps {
  readonly rows: number;
  readonly count: number;
  readonly size: Int32Array;
  readonly dist: Float64Array;
  readonly index: Int32Array;
  readonly first: Float64Array;
  readonly second: Float64Array;
  readonly worstDistance: Float64Array;
  readonly worstIndex: Int32Array;

  constructor(rows: number, count: number) {
    this.rows = rows;
    this.count = count;
    this.size = new Int32Array(rows);
    this.dist = new Float64Array(rows * count);
    this.index = new Int32Array(rows * count);
    this.first = new Float64Array(rows * count);
    this.second = new Float64Array(rows * count);
    this.worstDistance = new Float64Array(rows).fill(Number.POSITIVE_INFINITY);
    this.worstIndex = new Int32Array(rows).fill(NO_INDEX);
  }

  /** True when row i's heap is full and (d, j) does not beat its worst candidate. */
  rejects(i: number, d: number, j: number): boolean {
    if (this.size[i] < this.count) return false;
    const w = this.worstDistance[i];
    return d > w || (d === w && j > this.worstIndex[i]);
  }

  /** Offers candidate j (distance d = p + lambda l) to row i; call only when not rejected. */
  push(i: number, d: number, j: number, p: number, l: number): void {
    const base = i * this.count;
    const dist = this.dist;
    const index = this.index;
    const first = this.first;
    const second = this.second;
    const cnt = this.count;
    let s = this.size[i];
    // The sift up and the sift down below move an entry's four fields by hand, as
    // each other does: this is the innermost step of every neighbour search, kept free
    // of calls and temporaries on purpose (a written-out duplicate, not an oversight).
    if (s < cnt) {
      // Sift up from the new leaf.
      let pos = s;
      while (pos > 0) {
        const parent = (pos - 1) >> 1;
        const pd = dist[base + parent];
        if (pd > d || (pd === d && index[base + parent] > j)) break;
        dist[base + pos] = pd;
        index[base + pos] = index[base + parent];
        first[base + pos] = first[base + parent];
        second[base + pos] = second[base + parent];
        pos = parent;
      }
      dist[base + pos] = d;
      index[base + pos] = j;
      first[base + pos] = p;
      second[base + pos] = l;
      s++;
      this.size[i] = s;
      if (s === cnt) {
        this.worstDistance[i] = dist[base];
        this.worstIndex[i] = index[base];
      }
      return;
    }
    // Replace the root and sift down.
    let pos = 0;
    for (;;) {
      const left = 2 * pos + 1;
      if (left >= cnt) break;
      let child = left;
      const right = left + 1;
      if (right < cnt) {
        const ld = dist[base + left];
        const rd = dist[base + right];
        if (rd > ld || (rd === ld && index[base + right] > index[base + left])) child = right;
      }
      const cd = dist[base + child];
      if (cd < d || (cd === d && index[base + child] < j)) break;
      dist[base + pos] = cd;
      index[base + pos] = index[base + child];
      first[base + pos] = first[base + child];
      second[base + pos] = second[base + child];
      pos = child;
    }
    dist[base + pos] = d;
    index[base + pos] = j;
    first[base + pos] = p;
    second[base + pos] = l;
    this.worstDistance[i] = dist[base];
    this.worstIndex[i] = index[base];
  }

  /** Offers (d, j) to row i if it beats the current worst. */
  offer(i: number, d: number, j: number, p: number, l: number): void {
    if (!this.rejects(i, d, j)) this.push(i, d, j, p, l);
  }

  /**
   * Offers every candidate another set of heaps (of the same shape) kept, e.g. a
   * helper thread's part of a search. Without `first` and `second` (a one-part
   * distance) p is the distance and l is 0. The heaps keep the smallest (d, index)
   * pairs whatever the order of the offers, so merging parts gives one search's result.
   */
  offerAll(part: HeapStorage): void {
    const { size, dist, index, first, second } = part;
    const cnt = this.count;
    for (let i = 0; i < size.length; i++) {
      const base = i * cnt;
      for (let t = 0; t < size[i]; t++) {
        const d = dist[base + t];
        this.offer(
          i,
          d,
          index[base + t],
          first ? first[base + t] : d,
          second ? second[base + t] : 0,
        );
      }
    }
  }

  /**
   * Every row's candidates ascending by (d, index). Throws when some row holds fewer
   * than `count` candidates (a search that could not find enough of them).
   */
  sorted(lambda: number): TwoPartNeighbours {
    return this.sortedRows(lambda, 0, this.rows);
  }

  /** As `sorted`, for rows from..to-1 only (row i of the result is row from + i). */
  sortedRows(lambda: number, from: number, to: number): TwoPartNeighbours {
    const { count } = this;
    const rows = to - from;
    const indices = new Int32Array(rows * count);
    const distances = new Float64Array(rows * count);
    const primary = new Float64Array(rows * count);
    const secondary = new Float64Array(rows * count);
    for (let i = 0; i < rows; i++) {
      const heapBase = (from + i) * count;
      if (this.size[from + i] !== count) {
        throw new RangeError(
          `Row ${from + i} has ${this.size[from + i]} neighbour candidates, fewer than the ${count} asked for.`,
        );
      }
      const base = i * count;
      for (let a = 0; a < count; a++) {
        const d = this.dist[heapBase + a];
        const j = this.index[heapBase + a];
        const p = this.first[heapBase + a];
        const l = this.second[heapBase + a];
        let b = a - 1;
        while (
          b >= 0 &&
          (distances[base + b] > d || (distances[base + b] === d && indices[base + b] > j))
        ) {
          distances[base + b + 1] = distances[base + b];
          indices[base + b + 1] = indices[base + b];
          primary[base + b + 1] = primary[base + b];
          secondary[base + b + 1] = secondary[base + b];
          b--;
        }
        distances[base + b + 1] = d;
        indices[base + b + 1] = j;
        primary[base + b + 1] = p;
        secondary[base + b + 1] = l;
      }
    }
    return { rows, count, indices, distances, primary, secondary, lambda };
  }
}
