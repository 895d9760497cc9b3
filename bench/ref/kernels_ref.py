#!/usr/bin/env python3
"""Reference timings for bench/suites/kernels.ts: OpenBLAS through NumPy/SciPy on one
thread, CPU time (time.process_time), on the shapes the suite lists.

Usage: python3 bench/ref/kernels_ref.py PLAN.json
PLAN.json: {"repeats": R, "gemm": [[m, n, p], ...], "symv": [n, ...], "sytrd": [n, ...]}.
For each shape: one untimed call, then R timed ones; prints {"gemm": [ms, ...], "symv":
[...], "sytrd": [...]}, the median CPU milliseconds of each. gemm is C = A B^T with A
m x p and B n x p (numpy's A @ B.T: dgemm with B transposed); symv is dsymv on the
lower triangle; sytrd is LAPACK's blocked dsytrd (the optimal workspace).
"""

import json
import os
import sys
import time

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np  # noqa: E402
import scipy.linalg.blas as blas  # noqa: E402
import scipy.linalg.lapack as lapack  # noqa: E402


def median_cpu_ms(fn, repeats, calls=1):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        for _ in range(calls):
            fn()
        times.append((time.process_time() - t0) * 1000 / calls)
    return float(np.median(times))


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    repeats = plan["repeats"]
    rng = np.random.default_rng(0)
    out = {"gemm": [], "symv": [], "sytrd": []}
    for m, n, p in plan["gemm"]:
        a = rng.standard_normal((m, p))
        b = rng.standard_normal((n, p))
        c = np.empty((m, n))
        out["gemm"].append(median_cpu_ms(lambda: np.matmul(a, b.T, out=c), repeats))
    for n in plan["symv"]:
        s = np.asfortranarray(rng.standard_normal((n, n)))
        x = rng.standard_normal(n)
        out["symv"].append(median_cpu_ms(lambda: blas.dsymv(1.0, s, x, lower=1), repeats, 50))
    for n in plan["sytrd"]:
        s = rng.standard_normal((n, n))
        s = s + s.T
        lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
        out["sytrd"].append(
            median_cpu_ms(lambda: lapack.dsytrd(s, lower=1, lwork=lwork), repeats)
        )
    out["blas_threads"] = os.environ.get("OPENBLAS_NUM_THREADS")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
