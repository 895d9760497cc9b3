/**
 * Made-up but realistic inputs for the figure tests, generated deterministically (a
 * Park-Miller sequence) so every run draws the same figures.
 */
import type {
  BcaAtK,
  EmbeddingPoints,
  ParameterGridCell,
  SplitName,
} from "#internal/plot/index.js";

export const METHODS = [
  "Baseline",
  "PCA",
  "JPCDA",
  "SDSPCA",
  "SLNP",
  "SPCAN",
  "SDSPCA-LPP",
  "SDSPCAAN",
] as const;

function sequence(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

/** 8 methods x k in {10, ..., 100}, BCA between about 60 % and 95 %. */
export function bcaSeries(withStd = true): BcaAtK[] {
  const next = sequence(11);
  const level = [63, 79, 80.4, 80.3, 78, 62, 80.8, 82.6];
  const out: BcaAtK[] = [];
  METHODS.forEach((method, m) => {
    for (let k = 10; k <= 100; k += 10) {
      const bca = (level[m]! + 10 * Math.log10(k / 10) - 4 + 2 * next()) / 100;
      out.push(withStd ? { method, k, bca, std: 0.01 + 0.02 * next() } : { method, k, bca });
    }
  });
  return out;
}

export const GRID = [0.01, 0.1, 1, 10, 100] as const;

/** BCA over the 5 x 5 x 5 multiplier grid: flat in α and β, peaked at δ = 0.1. */
export function sensitivityGrid(): ParameterGridCell[] {
  const cells: ParameterGridCell[] = [];
  for (const a of GRID) {
    for (const b of GRID) {
      for (const c of GRID) {
        const bca =
          0.826 -
          0.004 * Math.abs(Math.log10(a)) -
          0.003 * Math.abs(Math.log10(b)) -
          0.04 * Math.abs(Math.log10(c) + 1) ** 1.5;
        cells.push({ a, b, c, bca });
      }
    }
  }
  return cells;
}

/** `n` points in `classes` Gaussian clusters, with a 30 / 70 train / test split. */
export function clusters(
  classes: number,
  n: number,
  names?: readonly string[],
): EmbeddingPoints & { split: SplitName[] } {
  const next = sequence(7);
  const gauss = () => Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next());
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  const label: (string | number)[] = [];
  const split: SplitName[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % classes;
    const radius = 6 * (1 + k / classes);
    x[i] = radius * Math.cos(2.4 * k) + gauss();
    y[i] = radius * Math.sin(2.4 * k) + gauss();
    label.push(names ? names[k]! : k + 1);
    split.push(next() < 0.3 ? "train" : "test");
  }
  return { x, y, label, split };
}
