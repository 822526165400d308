#!/usr/bin/env python3
"""Plots the CSVs that io.neardup.bench.eval.Evaluate writes into a report folder.

usage: python3 docs/benchmarks/plot.py <report-dir> [title]
Writes recall_k.png (PSM recall against max_flips k), scurve.png (empirical LSH S-curve against
theory) and, when latency_sizes.csv exists, latency_sizes.png. Needs matplotlib (Debian:
apt-get install python3-matplotlib; run with /usr/bin/python3 if the default python3 lacks it).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(v):
    try:
        return float(v)
    except ValueError:
        return float("nan")


def recall_k(d, title):
    data = rows(os.path.join(d, "recall_k.csv"))
    fig, ax = plt.subplots(figsize=(5.2, 3.4), dpi=100)
    for h in sorted({r["h"] for r in data}, key=int):
        pts = [(int(r["k"]), num(r["recall"])) for r in data if r["h"] == h]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", ms=4, label=f"h = {h}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("max_flips k")
    ax.set_ylabel("PSM recall against exact")
    ax.set_ylim(min(0.5, ax.get_ylim()[0]), 1.01)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(f"PSM recall against k: {title}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "recall_k.png"))


def scurve(d, title):
    data = rows(os.path.join(d, "scurve.csv"))
    b, r = int(data[0]["bands"]), int(data[0]["rows"])
    fig, ax = plt.subplots(figsize=(5.2, 3.4), dpi=100)
    xs = [i / 200 for i in range(201)]
    ax.plot(xs, [1 - (1 - x ** r) ** b for x in xs], color="C0", lw=1, label=f"theory 1-(1-s^{r})^{b}")
    pts = [(num(p["bin_lo"]) + 0.025, num(p["empirical"]), num(p["returned_08"])) for p in data if int(p["pairs"]) > 0]
    ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", color="C0", ms=4, label="empirical P(candidate)")
    ret = [p for p in pts if p[2] == p[2]]
    ax.plot([p[0] for p in ret], [p[2] for p in ret], "x", color="C3", ms=5, label="returned by the query, min_similarity 0.8")
    ax.axvline(0.8, color="grey", ls=":", lw=1)
    ax.set_xlim(0.3, 1.0)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("exact Jaccard of 3-word shingle sets (bins of 0.05)")
    ax.set_ylabel("share of pairs")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(f"LSH S-curve ({b} x {r}): {title}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "scurve.png"))


def latency_sizes(d, title):
    path = os.path.join(d, "latency_sizes.csv")
    if not os.path.exists(path):
        return
    data = rows(path)
    fig, ax = plt.subplots(figsize=(5.2, 3.4), dpi=100)
    for i, m in enumerate(["psm", "exact", "script_score", "ids_baseline"]):
        pts = sorted((int(r["size"]), num(r["median_ms"]), num(r["p99_ms"])) for r in data if r["method"] == m)
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=f"C{i}", ms=4, label=f"{m} median")
        ax.plot([p[0] for p in pts], [p[2] for p in pts], ":", color=f"C{i}", lw=1, label=f"{m} p99")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("documents in the index")
    ax.set_ylabel("latency (ms, client)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=6.5, ncol=2)
    ax.set_title(f"latency against corpus size: {title}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(d, "latency_sizes.png"))


def main():
    d = sys.argv[1]
    title = sys.argv[2] if len(sys.argv) > 2 else os.path.basename(os.path.normpath(d))
    recall_k(d, title)
    scurve(d, title)
    latency_sizes(d, title)


if __name__ == "__main__":
    main()
