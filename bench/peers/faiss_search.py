"""FAISS flat search over the lab's raw float32 sidecar.

Run with Debian's interpreter (/usr/bin/python3, package python3-faiss).
Reads one JSON request on stdin and prints one JSON result on stdout:

  op search {sidecar, n, dim, metric, k, queries:[[...]], modes?=["single","batch"], threads?}
    -> {peer, metric, k, version, faiss_version, blas, runs:[{mode, load_ms, total_ms, results:[{ids, scores, ms?}]}]}

Scores follow duckdb.mjs: cosine similarity (IndexFlatIP on L2-normalised
vectors), inner product (IndexFlatIP), squared L2 distance (IndexFlatL2).
"""
import json
import os
import sys
import time
import traceback

import faiss
import numpy as np


def ms_since(t0):
    return (time.perf_counter() - t0) * 1000.0


def build(req):
    n, dim = int(req["n"]), int(req["dim"])
    size = os.path.getsize(req["sidecar"])
    if size != n * dim * 4:
        raise ValueError(f"sidecar {req['sidecar']} has {size} bytes, want n*dim*4 = {n * dim * 4}")
    x = np.fromfile(req["sidecar"], dtype="<f4").reshape(n, dim)
    metric = req["metric"]
    if metric == "cosine":
        x = np.ascontiguousarray(x, dtype=np.float32)
        faiss.normalize_L2(x)
        index = faiss.IndexFlatIP(dim)
    elif metric == "dot":
        index = faiss.IndexFlatIP(dim)
    elif metric == "l2":
        index = faiss.IndexFlatL2(dim)
    else:
        raise ValueError(f"unknown metric {metric!r}; known: cosine, dot, l2")
    index.add(np.ascontiguousarray(x, dtype=np.float32))
    return index


def queries_of(req):
    q = np.asarray(req["queries"], dtype=np.float32)
    if q.ndim != 2 or q.shape[1] != int(req["dim"]):
        raise ValueError(f"queries have shape {q.shape}, want (m, {req['dim']})")
    q = np.ascontiguousarray(q)
    if req["metric"] == "cosine":
        faiss.normalize_L2(q)
    return q


def hits(d, i):
    keep = i >= 0  # FAISS pads with -1 when k exceeds n
    return {"ids": [int(v) for v in i[keep]], "scores": [float(v) for v in d[keep]]}


def blas_name():
    """The BLAS library FAISS's matrix products run on, from the process's
    mappings: Debian's python3-faiss links libblas.so.3, which is the
    reference BLAS unless an optimised one (OpenBLAS) is installed as the
    alternative. The reference BLAS makes a batch ~30x slower, so the report
    names which one ran."""
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1]
                if "blas" in path or "mkl" in path:
                    libs.add(path)
    except OSError:
        return "unknown"
    for path in sorted(libs):
        base = os.path.basename(path)
        if base.startswith("libopenblas"):
            flavour = os.path.basename(os.path.dirname(path))
            version = base.split("-r", 1)[1].rsplit(".so", 1)[0] if "-r" in base else "?"
            return f"OpenBLAS {version} ({flavour})"
        if "mkl" in base:
            return "MKL"
    if any(p.endswith("/blas/libblas.so.3") for p in libs):
        return "reference BLAS (Debian libblas3)"
    return ", ".join(sorted(libs)) or "none found"


def search(req):
    for name in ("sidecar", "n", "dim", "metric", "k", "queries"):
        if req.get(name) is None:
            raise ValueError(f'request is missing "{name}"')
    if req.get("threads"):
        faiss.omp_set_num_threads(int(req["threads"]))
    k = int(req["k"])
    t0 = time.perf_counter()
    index = build(req)
    load_ms = ms_since(t0)
    q = queries_of(req)
    runs = []
    for mode in req.get("modes") or ["single", "batch"]:
        if mode == "single":
            results = []
            t1 = time.perf_counter()
            for row in q:
                s = time.perf_counter()
                d, i = index.search(row.reshape(1, -1), k)
                h = hits(d[0], i[0])
                h["ms"] = ms_since(s)
                results.append(h)
            runs.append({"mode": mode, "load_ms": load_ms, "total_ms": ms_since(t1), "results": results})
        elif mode == "batch":
            t1 = time.perf_counter()
            d, i = index.search(q, k)
            total = ms_since(t1)
            runs.append({"mode": mode, "load_ms": load_ms, "total_ms": total,
                         "results": [hits(d[j], i[j]) for j in range(len(q))]})
        else:
            raise ValueError(f"unknown mode {mode!r}; known: single, batch")
    blas = blas_name()
    return {"peer": "faiss", "metric": req["metric"], "k": k, "version": f"{faiss.__version__} on {blas}",
            "faiss_version": faiss.__version__, "blas": blas, "runs": runs}


def main():
    try:
        req = json.load(sys.stdin)
        ops = {"search": search}
        op = ops.get(req.get("op"))
        if op is None:
            raise ValueError(f"unknown op {req.get('op')!r}; known: {', '.join(ops)}")
        json.dump(op(req), sys.stdout)
        sys.stdout.write("\n")
    except Exception:
        sys.stderr.write("error: " + traceback.format_exc())
        sys.exit(1)


if __name__ == "__main__":
    main()
