#!/usr/bin/env python3
"""Scratch measurement: datasketch MinHash + MinHashLSH on an exported shingle corpus.

Usage: python3 datasketch_eval.py CORPUS_DIR [--name NAME] [--sample-queries N] [--sample-seed 42]

CORPUS_DIR holds shingles.tsv (line k = doc k's distinct shingles, uint32 decimal,
space-separated) and truth.tsv (i<TAB>j<TAB>jaccard for all i<j with exact J >= 0.5).

Each shingle value is fed to datasketch as the bytes of its decimal text
(b"123456") through the default sha1_hash32 hashfunc, via MinHash.bulk
(which is copy() + update_batch per document), seed=1.
"""
import argparse
import os
import platform
import random
import subprocess
import sys
import time

import numpy as np
import scipy

import datasketch
from datasketch import MinHash, MinHashLSH

TAUS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95]


def load_shingles(path):
    docs = []
    with open(path, "rb") as f:
        for line in f:
            # bytes.split() gives the decimal text of each value as bytes
            docs.append(line.split())
    return docs


def load_truth(path, n):
    ii, jj, jac = [], [], []
    with open(path) as f:
        for line in f:
            a, b, c = line.split("\t")
            ii.append(int(a))
            jj.append(int(b))
            jac.append(float(c))
    ii = np.array(ii, dtype=np.int64)
    jj = np.array(jj, dtype=np.int64)
    jac = np.array(jac, dtype=np.float64)
    assert np.all(ii < jj) and np.all(jj < n)
    return ii, jj, jac


def build(docs, num_perm):
    t0 = time.perf_counter()
    ms = MinHash.bulk(docs, num_perm=num_perm)  # seed=1, hashfunc=sha1_hash32 defaults
    return ms, time.perf_counter() - t0


def evaluate(ms, tau, num_perm, queries, truth, n):
    ii, jj, jac = truth
    sel = jac >= tau
    ti, tj = ii[sel], jj[sel]
    # ordered true pairs: both directions
    true_keys = set((ti * n + tj).tolist()) | set((tj * n + ti).tolist())
    qset = set(queries)
    if len(queries) == n:
        n_true = len(true_keys)
    else:
        n_true = sum(1 for k in true_keys if (k // n) in qset)

    lsh = MinHashLSH(threshold=tau, num_perm=num_perm)  # default weights (0.5, 0.5)
    t0 = time.perf_counter()
    for i, m in enumerate(ms):
        lsh.insert(i, m)
    t_insert = time.perf_counter() - t0

    n_cand = 0
    n_pred = 0
    tp = 0
    t_lsh = 0.0
    t_total = 0.0
    for i in queries:
        mi = ms[i]
        t0 = time.perf_counter()
        res = lsh.query(mi)
        t1 = time.perf_counter()
        kept = [j for j in res if j != i and mi.jaccard(ms[j]) >= tau]
        t2 = time.perf_counter()
        t_lsh += t1 - t0
        t_total += t2 - t0
        n_cand += sum(1 for j in res if j != i)
        n_pred += len(kept)
        base = i * n
        for j in kept:
            if base + j in true_keys:
                tp += 1
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_true if n_true else 0.0
    f1 = 2 * p * r / (p + r) if (p + r) else 0.0
    return dict(tau=tau, num_perm=num_perm, b=lsh.b, r=lsh.r, n_true=n_true, n_cand=n_cand,
                n_pred=n_pred, tp=tp, P=p, R=r, F1=f1, t_insert=t_insert, t_lsh=t_lsh,
                t_total=t_total, us_per_q=1e6 * t_total / len(queries),
                us_lsh_per_q=1e6 * t_lsh / len(queries))


def git_head(path):
    try:
        return subprocess.check_output(["git", "-C", path, "rev-parse", "HEAD"], text=True).strip()
    except Exception:
        return "unknown"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus_dir")
    ap.add_argument("--name", default=None)
    ap.add_argument("--sample-queries", type=int, default=0,
                    help="query only a random sample of N docs (index still holds all docs)")
    ap.add_argument("--sample-seed", type=int, default=42)
    args = ap.parse_args()
    name = args.name or os.path.basename(os.path.normpath(args.corpus_dir))

    t0 = time.perf_counter()
    docs = load_shingles(os.path.join(args.corpus_dir, "shingles.tsv"))
    n = len(docs)
    truth = load_truth(os.path.join(args.corpus_dir, "truth.tsv"), n)
    t_load = time.perf_counter() - t0
    n_empty = sum(1 for d in docs if not d)
    n_shingles = sum(len(d) for d in docs)

    if args.sample_queries and args.sample_queries < n:
        queries = sorted(random.Random(args.sample_seed).sample(range(n), args.sample_queries))
        sample_note = (f"**SAMPLED QUERIES**: index holds all {n} docs, but only {len(queries)} docs "
                       f"(random.Random({args.sample_seed}).sample(range({n}), {len(queries)})) were queried; "
                       f"'true pairs', P, R, F1 count only ordered pairs (i, j) whose query i is in the sample.")
    else:
        queries = list(range(n))
        sample_note = f"All {n} docs inserted and all {n} docs queried."

    ds_dir = os.path.dirname(os.path.dirname(os.path.abspath(datasketch.__file__)))
    out = []
    out.append(f"# datasketch MinHashLSH on `{name}`")
    out.append("")
    out.append(f"- corpus: `{os.path.abspath(args.corpus_dir)}`: {n} docs, {n_shingles} shingles total, "
               f"{n_empty} empty docs, {len(truth[0])} truth pairs (J >= 0.5)")
    out.append(f"- datasketch: source checkout `{ds_dir}` @ {git_head(ds_dir)} (run from source via PYTHONPATH)")
    out.append(f"- python {platform.python_version()} (`{sys.executable}`), numpy {np.__version__}, "
               f"scipy {scipy.__version__}, {os.cpu_count()} CPUs")
    out.append("- MinHash: `MinHash.bulk(docs, num_perm=P)` (seed=1, hashfunc=sha1_hash32 default); each shingle "
               "fed as the bytes of its decimal text")
    out.append("- LSH: `MinHashLSH(threshold=tau, num_perm=P)` (weights=(0.5, 0.5) default), `insert(i, m_i)` for "
               "every doc; result j != i kept iff `m_i.jaccard(m_j) >= tau`; P/R/F1 over ordered pairs (query i, result j)")
    out.append(f"- {sample_note}")
    out.append("- 'query µs/doc' = mean over queried docs of `lsh.query` + jaccard verification of its results")
    out.append("")
    print("\n".join(out), flush=True)

    print(f"[progress] load {t_load:.2f}s; building MinHashes", file=sys.stderr, flush=True)
    ms128, t_b128 = build(docs, 128)
    print(f"[progress] build128 {t_b128:.2f}s", file=sys.stderr, flush=True)
    rows = []
    for tau in TAUS:
        rows.append(evaluate(ms128, tau, 128, queries, truth, n))
        print(f"[progress] {rows[-1]}", file=sys.stderr, flush=True)
    ms512, t_b512 = build(docs, 512)
    del docs
    print(f"[progress] build512 {t_b512:.2f}s", file=sys.stderr, flush=True)
    rows.append(evaluate(ms512, 0.8, 512, queries, truth, n))
    print(f"[progress] {rows[-1]}", file=sys.stderr, flush=True)

    t = []
    t.append("| tau | true pairs | P | R | F1 | query µs/doc |")
    t.append("|---|---|---|---|---|---|")
    for row in rows:
        label = f"{row['tau']}" if row["num_perm"] == 128 else f"{row['tau']} (num_perm=512)"
        t.append(f"| {label} | {row['n_true']} | {row['P']:.4f} | {row['R']:.4f} | {row['F1']:.4f} | "
                 f"{row['us_per_q']:.1f} |")
    t.append("")
    t.append(f"Build times (MinHash.bulk over all {n} docs): num_perm=128: {t_b128:.2f} s; "
             f"num_perm=512: {t_b512:.2f} s. (Reading/splitting shingles.tsv + truth.tsv: {t_load:.2f} s, not included.)")
    t.append("")
    t.append("Details:")
    t.append("")
    t.append("| tau | num_perm | b x r | candidates (j != i) | kept | TP | insert s | query s (total) | "
             "of which lsh.query s | lsh.query µs/doc |")
    t.append("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        t.append(f"| {row['tau']} | {row['num_perm']} | {row['b']} x {row['r']} | {row['n_cand']} | {row['n_pred']} | "
                 f"{row['tp']} | {row['t_insert']:.2f} | {row['t_total']:.2f} | {row['t_lsh']:.2f} | "
                 f"{row['us_lsh_per_q']:.1f} |")
    print("\n".join(t), flush=True)


if __name__ == "__main__":
    main()
