#!/usr/bin/env python3
"""Reference timings for bench/suites/io.ts: scipy.io.loadmat of the same files.

Usage: python3 bench/ref/io_ref.py RUNS FILE [FILE ...]
Prints {"results": {FILE: ref_ms}} with the median wall time of scipy.io.loadmat
over RUNS calls after one warm-up call, or null for a file scipy cannot read
(MAT v7.3 / HDF5).
"""

import json
import sys
import time

import numpy as np
import scipy.io


def median_ms(fn, runs):
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return float(np.median(times))


def main():
    runs = int(sys.argv[1])
    results = {}
    for path in sys.argv[2:]:
        try:
            results[path] = median_ms(lambda: scipy.io.loadmat(path), runs)
        except NotImplementedError:
            results[path] = None
    json.dump({"results": results}, sys.stdout)


if __name__ == "__main__":
    main()
