#!/usr/bin/env python3
"""Reference timings for bench/suites/grid.ts: the NumPy/SciPy reference's own protocol
(../shared/reference/sdspcaan_ref.py `run_protocol`, one BLAS thread) on the same splits
and the same configurations as our `authors` grid: whole-dataset z-scoring, a = b = 1,
c over {0.01, 0.1, 1, 10, 100} for SDSPCA-LPP and SDSPCAAN, k in {10, ..., 100} with
c <= k <= min(n_train, d), each fit followed by the 1-NN evaluation on the validation
part (and the test part when the validation score improves).

Usage: python3 bench/ref/grid_ref.py SPEC.json
SPEC: {"datasets": [{"path", "train", "val", "test"}], "methods": [...]}
Prints JSON: per dataset the wall time in ms, the number of fits and the median
iterations per method.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "..", "..", "shared", "reference")))
import sdspcaan_ref as R  # noqa: E402

MULT = [0.01, 0.1, 1.0, 10.0, 100.0]


def main():
    spec = json.load(open(sys.argv[1]))
    out = []
    for ds in spec["datasets"]:
        X, y, _ = R.load_dataset(ds["path"])
        split = {key: ds[key] for key in ("train", "val", "test")}
        t0 = time.perf_counter()
        res = R.run_protocol(X, y, [m.replace("-", "_") for m in spec["methods"]],
                             grids={"alpha": [1.0], "beta": [1.0], "delta": MULT},
                             splits=[split], prep_how="zscore-all")
        ms = (time.perf_counter() - t0) * 1000
        per = {m: {"fits": r[0]["n_fits"], "ms": r[0]["time_s"] * 1000,
                   "iterations_median": r[0]["iterations_median"]}
               for m, r in res["per_method"].items()}
        out.append({"path": ds["path"], "ms": ms, "methods": per,
                    "fits": sum(v["fits"] for v in per.values())})
    print(json.dumps({"datasets": out, "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS")}))


if __name__ == "__main__":
    main()
