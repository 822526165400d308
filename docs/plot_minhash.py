#!/usr/bin/env python3
"""Plots the LSH S-curve CSV written by io.neardup.bench.MinhashEvaluation (--csv; retired,
its last version: git show 71eb01a:src/bench/java/io/neardup/bench/MinhashEvaluation.java).

usage: /usr/bin/python3 docs/plot_minhash.py docs/minhash-scurve.csv docs/minhash-scurve.png
Needs matplotlib (Debian: apt-get install python3-matplotlib).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def lshp(s, b, r):
    return 1 - (1 - s ** r) ** b


def main(src, dst):
    rows = {}
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            rows.setdefault(row["banding"], []).append(row)
    fig, ax = plt.subplots(figsize=(7, 4.4), dpi=100)
    xs = [i / 200 for i in range(201)]
    styles = [("9x13", "C0", "default 9 x 13 (threshold 0.8)"), ("12x10", "C1", "12 x 10 (threshold 0.8, fp/fn weight 0.2/0.8)"),
              ("14x9", "C2", "14 x 9 (threshold 0.8, fp/fn weight 0.1/0.9)")]
    for name, color, label in styles:
        if name not in rows:
            continue
        b, r = (int(v) for v in name.split("x"))
        ax.plot(xs, [lshp(x, b, r) for x in xs], color=color, lw=1, alpha=0.8, label=f"{label}: 1-(1-s^r)^b")
        pts = [(float(p["bin_lo"]) + 0.025, float(p["empirical_oph"]), float(p["empirical_classic"]), p["oph_seed_mean"], p["seeds"])
               for p in rows[name] if int(p["pairs"]) > 0]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", color=color, ms=4, label=f"{name} one_permutation, seed 0")
        ax.plot([p[0] for p in pts], [p[2] for p in pts], "x", color=color, ms=5, label=f"{name} classic, seed 0")
        if pts and pts[0][3]:
            ax.plot([p[0] for p in pts], [float(p[3]) for p in pts], "s", mfc="none", color=color, ms=7,
                    label=f"{name} one_permutation, mean of {pts[0][4]} seeds")
    ax.axvline(0.8, color="grey", ls=":", lw=1)
    ax.set_xlim(0.4, 1.0)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("exact Jaccard of 3-word shingle sets (bin centre, bins of 0.05)")
    ax.set_ylabel("P(candidate: shares >= 1 band)")
    ax.set_title("LSH S-curve on the man pages (5,501 docs, 128 values)")
    ax.legend(fontsize=6.5, loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(dst)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
