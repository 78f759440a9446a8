"""FAISS side of scripts/faiss-compare.sh.

Loads the data the Go benchmark wrote (MEMLAB_VECBENCH_DUMP; format in
retrieval/vecstore_bench_test.go), searches it with faiss.IndexFlatIP (single
queries, then batches of 200), checks the top-10 ids against Go's, and
prints queries/s and GB/s scanned, plus the machine's streaming read
bandwidth (numpy sum over a large array) for the ratio.

usage: faiss_compare.py DATA THREADS
"""
import sys
import time

import faiss
import numpy as np


def load(path):
    with open(path, "rb") as f:
        n, d, nq, k = np.frombuffer(f.read(16), dtype="<i4")
        xb = np.frombuffer(f.read(4 * n * d), dtype="<f4").reshape(n, d)
        xq = np.frombuffer(f.read(4 * nq * d), dtype="<f4").reshape(nq, d)
        ids = np.frombuffer(f.read(4 * nq * k), dtype="<i4").reshape(nq, k)
        sc = np.frombuffer(f.read(4 * nq * k), dtype="<f4").reshape(nq, k)
    return int(k), xb, xq, ids, sc


def timed(fn, min_seconds=3.0):
    runs, t0 = 0, time.perf_counter()
    while True:
        fn()
        runs += 1
        el = time.perf_counter() - t0
        if el >= min_seconds:
            return runs, el


def main():
    path, threads = sys.argv[1], int(sys.argv[2])
    faiss.omp_set_num_threads(threads)
    k, xb, xq, go_ids, go_sc = load(path)
    n, d = xb.shape
    index = faiss.IndexFlatIP(d)
    index.add(np.ascontiguousarray(xb))
    gb = n * d * 4 / 1e9

    D, I = index.search(np.ascontiguousarray(xq), k)
    same = int((I == go_ids).all(axis=1).sum())
    # A differing id at equal score (within float32 rounding) is a tie, not an error.
    ties = 0
    for q in np.nonzero(~(I == go_ids).all(axis=1))[0]:
        if np.allclose(D[q], go_sc[q], atol=1e-5):
            ties += 1
    print(f"top-{k} ids identical for {same}/{len(xq)} queries"
          f" ({ties} more differ only at equal scores); max |score diff| {np.abs(D - go_sc).max():.2e}")

    qi = [0]

    def single():
        index.search(xq[qi[0] % len(xq):qi[0] % len(xq) + 1], k)
        qi[0] += 1

    runs, el = timed(single)
    print(f"single: {runs / el:8.2f} queries/s  {runs * gb / el:6.2f} GB/s scanned")
    runs, el = timed(lambda: index.search(xq, k))
    print(f"batch of {len(xq)}: {runs * len(xq) / el:8.2f} queries/s  {runs * gb / el:6.2f} GB/s scanned ({el / runs * 1e3:.0f} ms/batch)")

    big = np.ones(256 * 1024 * 1024 // 4, dtype=np.float32)  # 256 MB
    big.sum()
    runs, el = timed(big.sum, 2.0)
    print(f"streaming read (numpy sum of 256 MB, 1 thread): {runs * big.nbytes / el / 1e9:6.2f} GB/s")
    print(f"faiss {faiss.__version__}, numpy {np.__version__}, threads {threads}")


if __name__ == "__main__":
    main()
