/**
 * Labelled test data with a known structure: Gaussian classes in a five-dimensional
 * latent subspace, mapped into d features by a random matrix, plus isotropic noise.
 * Shared by the SDSPCA-family tests and their slow LOBPCG case, which must fit the
 * same data for their thresholds to mean the same thing. And three classes that lift
 * every third feature, the worker tests' data.
 */
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";

/** n rows of c classes (row i in class i mod c), class centres `sep` apart in scale. */
export function blobs(seed: number, n = 60, d = 40, c = 3, sep = 3): { X: Matrix; y: number[] } {
  const rng = new Random(seed);
  const latent = 5;
  const centres = Array.from({ length: c }, () =>
    Array.from({ length: latent }, () => sep * rng.normal()),
  );
  const A = Array.from({ length: latent }, () => Array.from({ length: d }, () => rng.normal()));
  const X = new Matrix(n, d);
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const cls = i % c;
    y.push(cls);
    const z = centres[cls].map((m) => m + rng.normal());
    for (let j = 0; j < d; j++) {
      let v = 0.3 * rng.normal();
      for (let l = 0; l < latent; l++) v += z[l] * A[l][j];
      X.data[i * d + j] = v;
    }
  }
  return { X, y };
}

/**
 * n rows of three classes (row i in class i mod 3) in d features, class c lifting
 * every third feature from c by 1 over uniform noise from a Lehmer generator seeded
 * with `seed` (no dependence on the library's Random, for the worker tests' data).
 */
export function liftedThreeClasses(seed: number, n: number, d: number): { X: Matrix; y: number[] } {
  let s = seed;
  const rand = () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
  const X = new Matrix(n, d);
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    y.push(i % 3);
    for (let j = 0; j < d; j++) X.data[i * d + j] = rand() + (j % 3 === i % 3 ? 1 : 0);
  }
  return { X, y };
}
