#!/usr/bin/env python3
"""Reference timings for bench/suites/methods.ts: the NumPy/SciPy reference's `fit`
(../shared/reference/sdspcaan_ref.py, one BLAS thread) on a training split.

Usage: python3 bench/ref/methods_ref.py RUNS DATA SEED METHOD K ALPHA BETA DELTA [W_OUT]
Draws split 0 of the seeded 20/40/40 splits of DATA (sdspcaan_ref.make_splits), fits
METHOD on its training rows (no preprocessing, as the reference's `fit` command)
RUNS times, each with freshly prepared training data (Gram matrix and initial graph
timed too), and prints JSON: the training indices, the median wall time in ms, the
median CPU time of the process in ms, the median split of the wall time (eig / graph /
other) and the iteration count; with W_OUT, the last run's W (d x k, float64, row-major)
is written there.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "..", "..", "shared", "reference")))
import numpy as np  # noqa: E402
import sdspcaan_ref as R  # noqa: E402


def main():
    runs, data, seed, method, k = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    alpha, beta, delta = (float(v) for v in sys.argv[6:9])
    X, y, _ = R.load_dataset(data)
    train = np.asarray(R.make_splits(X.shape[0], 1, seed)[0]["train"])
    walls, cpus, parts, iterations = [], [], [], None
    for _ in range(runs):
        prep = R.TrainPrep(X[train], y[train])
        t0 = time.perf_counter()
        c0 = time.process_time()
        res = R.fit(method, k=k, alpha=alpha, beta=beta, delta=delta, prep=prep, record=False)
        cpus.append((time.process_time() - c0) * 1000)
        walls.append((time.perf_counter() - t0) * 1000)
        parts.append({key: 1000 * res.timing.get(key, 0.0) for key in ("eig", "graph", "other")})
        iterations = res.iterations
    if len(sys.argv) > 9:
        np.ascontiguousarray(res.W, dtype=np.float64).tofile(sys.argv[9])
    order = int(np.argsort(walls)[len(walls) // 2])
    print(json.dumps({"train": [int(i) for i in train], "ms": float(np.median(walls)),
                      "cpu_ms": float(np.median(cpus)),
                      "parts": parts[order], "iterations": iterations,
                      "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS")}))


if __name__ == "__main__":
    main()
