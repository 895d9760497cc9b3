/**
 * Connected components of the graph S, and the Laplacian split by component.
 *
 * Why: the multiplicity of 0 as an eigenvalue of L equals the number of connected
 * components (the fact the rank control of Algorithms 2 and 3 rests on), and L is
 * block diagonal over the components, so its spectrum is the union of theirs with
 * exactly one zero per component (eigenvector: the constant vector on it). An
 * eigen-solver for the c + 1 smallest eigenvalues of L can therefore solve each
 * component on its own (small ones densely), deflate each component's constant
 * vector, and merge with `mergeComponentSpectra`.
 */
import { ValidationError } from "../core/errors.js";
import type { CsrMatrix } from "../linalg/sparse.js";

export interface GraphComponents {
  /** Number of connected components. */
  readonly count: number;
  /** Component of each node; components are numbered by their lowest node. */
  readonly labels: Int32Array;
  /** Number of nodes in each component. */
  readonly sizes: Int32Array;
  /** The nodes of each component, ascending. */
  readonly members: readonly Int32Array[];
}

function find(parent: Int32Array, x: number): number {
  let root = x;
  while (parent[root] !== root) root = parent[root];
  while (parent[x] !== root) {
    const next = parent[x];
    parent[x] = root;
    x = next;
  }
  return root;
}

/**
 * Components of the undirected graph with an edge i - j wherever s_ij or s_ji is a
 * stored non-zero (so S need not be symmetric: this is the graph of (S + S^T)/2).
 * Union-find with path compression and union by lower root: O(nnz alpha(n)).
 */
export function connectedComponents(S: CsrMatrix): GraphComponents {
  if (S.rows !== S.cols) {
    throw new ValidationError(
      "S",
      `The 'S' parameter of connectedComponents must be a square matrix. Got ${S.rows} x ${S.cols} instead.`,
    );
  }
  const n = S.rows;
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  for (let i = 0; i < n; i++) {
    for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) {
      if (S.values[p] === 0) continue;
      const a = find(parent, i);
      const b = find(parent, S.colIdx[p]);
      // The lower root wins, so each root is its component's lowest node.
      if (a < b) parent[b] = a;
      else if (b < a) parent[a] = b;
    }
  }
  const labels = new Int32Array(n).fill(-1);
  let count = 0;
  const rootLabel = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const r = find(parent, i);
    if (rootLabel[r] < 0) rootLabel[r] = count++;
    labels[i] = rootLabel[r];
  }
  const sizes = new Int32Array(count);
  for (let i = 0; i < n; i++) sizes[labels[i]]++;
  const members = Array.from(sizes, (s) => new Int32Array(s));
  const fill = new Int32Array(count);
  for (let i = 0; i < n; i++) {
    const c = labels[i];
    members[c][fill[c]++] = i;
  }
  return { count, labels, sizes, members };
}

/** One component's block of L: local node k is global node `indices[k]`. */
export interface ComponentLaplacian {
  readonly indices: Int32Array;
  readonly laplacian: CsrMatrix;
}

/**
 * L restricted to each connected component (the diagonal blocks of L in component
 * order). `components` defaults to the components of L's own off-diagonal pattern.
 */
export function componentLaplacians(
  L: CsrMatrix,
  components: GraphComponents = connectedComponents(L),
): ComponentLaplacian[] {
  if (components.labels.length !== L.rows) {
    throw new ValidationError(
      "components",
      `The 'components' parameter of componentLaplacians must label the ${L.rows} nodes of L. Got ${components.labels.length} labels instead.`,
    );
  }
  return components.members.map((indices) => ({
    indices,
    laplacian: L.principalSubmatrix(indices),
  }));
}

/**
 * The `count` smallest values, ascending, of the union of the components' spectra
 * (each given in any order): the smallest eigenvalues of L from those of its blocks.
 */
export function mergeComponentSpectra(
  spectra: readonly ArrayLike<number>[],
  count: number,
): Float64Array {
  let total = 0;
  for (const s of spectra) total += s.length;
  if (!Number.isInteger(count) || count < 0 || count > total) {
    throw new ValidationError(
      "count",
      `The 'count' parameter of mergeComponentSpectra must be an integer in [0, ${total}] (the eigenvalues given). Got ${count} instead.`,
    );
  }
  const all = new Float64Array(total);
  let at = 0;
  for (const s of spectra) {
    for (let t = 0; t < s.length; t++) {
      const v = s[t];
      if (v - v !== 0) {
        throw new ValidationError(
          "spectra",
          `The 'spectra' parameter of mergeComponentSpectra must hold finite numbers. Got ${v} instead.`,
        );
      }
      all[at++] = v;
    }
  }
  all.sort();
  return all.slice(0, count);
}
