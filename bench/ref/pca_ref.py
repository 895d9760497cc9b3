#!/usr/bin/env python3
"""Reference timings for bench/suites/pca.ts: exact PCA and LDA in NumPy/SciPy (one
BLAS thread) on the matrix the suite wrote.

Usage: python3 bench/ref/pca_ref.py X.f64 Y.i32 N D OUT_DIR
X.f64 is N x D float64 (row-major), Y.i32 the N class codes. Each case runs once
untimed, then once timed (wall and CPU time), and its W is written to
OUT_DIR/<case>.f64 (D x k, row-major) for the suite's principal angles:
- pca10, pca50: centre, covariance Xc^T Xc or Gram Xc Xc^T (the smaller), then
  scipy.linalg.eigh(subset_by_index) for the k largest pairs (through the Gram
  matrix, V = Xc^T U S^-1);
- lda: centre, Xc^T Xc (d x d; the suite's data have d < n), scipy.linalg.eigh of
  all of it, the span of rank r (s_i^2 > 10 max(n, d) eps s_max^2), then the c x c
  problem C^T C with C = S_r^-1 R_r^T Xc^T H, H[:, j] = e_j / sqrt(n_j), and
  W = R_r S_r^-1 C Y diag(beta)^-1/2 for the c - 1 largest ratios beta.
Prints JSON {case: {"wall_ms", "cpu_ms", "k"}}.
"""
import json
import os
import sys
import time

import numpy as np
import scipy.linalg as sl


def pca(X, k):
    Xc = X - X.mean(axis=0)
    n, d = Xc.shape
    if d <= n:
        C = Xc.T @ Xc
        _, V = sl.eigh(C, subset_by_index=[d - k, d - 1])
        return V[:, ::-1]
    G = Xc @ Xc.T
    w, U = sl.eigh(G, subset_by_index=[n - k, n - 1])
    return (Xc.T @ U[:, ::-1]) / np.sqrt(w[::-1])


def lda(X, y):
    Xc = X - X.mean(axis=0)
    n, d = Xc.shape
    classes, codes = np.unique(y, return_inverse=True)
    c = len(classes)
    counts = np.bincount(codes)
    w, V = sl.eigh(Xc.T @ Xc)
    tol2 = 10 * max(n, d) * np.finfo(float).eps
    keep = w > tol2 * w[-1]
    lam, V = w[keep][::-1], V[:, keep][:, ::-1]
    H = np.zeros((n, c))
    H[np.arange(n), codes] = 1 / np.sqrt(counts[codes])
    C = (V.T @ (Xc.T @ H)) / np.sqrt(lam)[:, None]
    beta, Y = sl.eigh(C.T @ C)
    q = min(c - 1, len(lam))
    beta, Y = beta[::-1][:q], Y[:, ::-1][:, :q]
    Z = (C @ Y) / np.sqrt(beta)
    return V @ (Z / np.sqrt(lam)[:, None])


def main():
    xpath, ypath, n, d, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    X = np.fromfile(xpath, dtype=np.float64).reshape(n, d)
    y = np.fromfile(ypath, dtype=np.int32)
    cases = {"pca10": lambda: pca(X, 10), "pca50": lambda: pca(X, 50), "lda": lambda: lda(X, y)}
    result = {}
    for name, run in cases.items():
        run()
        w0, c0 = time.perf_counter(), time.process_time()
        W = run()
        w1, c1 = time.perf_counter(), time.process_time()
        np.ascontiguousarray(W, dtype=np.float64).tofile(os.path.join(out, f"{name}.f64"))
        result[name] = {"wall_ms": 1000 * (w1 - w0), "cpu_ms": 1000 * (c1 - c0), "k": int(W.shape[1])}
    result["blas_threads"] = os.environ.get("OPENBLAS_NUM_THREADS")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
