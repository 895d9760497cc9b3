/**
 * Labelled test data with a known structure: Gaussian classes in a five-dimensional
 * latent subspace, mapped into d features by a random matrix, plus isotropic noise.
 * Shared by the SDSPCA-family tests and their slow LOBPCG case, which must fit the
 * same data for their thresholds to mean the same thing.
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
