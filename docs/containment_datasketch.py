"""datasketch's MinHashLSHEnsemble (Zhu et al., "LSH Ensemble: Internet-Scale Domain Search", VLDB 2016) on the
planted containment corpus that ContainmentAccuracy exports (--export DIR): the same shingle sets, the same truth,
the same pair bands, F1 per band for c in 0.7, 0.8, 0.9, and query latency. See docs/containment.md, "Accuracy".

    PYTHONPATH=$DATASKETCH python3 docs/containment_datasketch.py $EXPORT [--num-perm 256] [--num-part 32]

contained: like   -- each embedded text queries an ensemble of every document: LSH Ensemble's own question
                     (the indexed sets that contain at least c of the query).
contained: document -- LSH Ensemble has no query for the sets that lie inside the query. The same pairs are
                     found by turning the join around: an ensemble of the hosts (the queries of this direction),
                     queried with every document; a pair (host, document) is a hit when the document's query
                     returns the host. Its F1 is comparable; it has no per-query latency (the join's time is given).

"raw" is what the library answers (candidates, unverified); "verified" keeps the candidates whose exact containment
of the shingle sets is at least c: the best precision its candidates allow.
"""

import argparse
import statistics
import time

import numpy as np
from datasketch import MinHash, MinHashLSHEnsemble

CS = (0.7, 0.8, 0.9)
BAND_EDGES = (1.2, 2, 5, 10, 20)
BAND_LABELS = ("< 1.2", "1.2–2", "2–5", "5–10", "10–20", "≥ 20")


def read(export):
    docs = []
    with open(f"{export}/sets.tsv", encoding="utf-8") as f:
        for line in f:
            pos, kind, source, band, size, values = line.rstrip("\n").split("\t")
            vals = np.array(values.split(), dtype=np.uint64) if values else np.zeros(0, dtype=np.uint64)
            docs.append((kind, int(source), int(band), int(size), vals))
    contained_in = [[] for _ in docs]  # a -> [(b, C(a, b))]
    contains = [[] for _ in docs]  # b -> [(a, C(a, b))]
    with open(f"{export}/truth.tsv", encoding="utf-8") as f:
        for line in f:
            a, b, c = line.split("\t")
            contained_in[int(a)].append((int(b), float(c)))
            contains[int(b)].append((int(a), float(c)))
    return docs, contained_in, contains


def size_band(x, y):
    ratio = max(x, y) / max(1, min(x, y))
    band = 0
    while band < len(BAND_EDGES) and ratio >= BAND_EDGES[band]:
        band += 1
    return band


def pair_band(docs, a, b):
    """As ContainmentAccuracy.band: the planted band of a host and its embedded text, else the size ratio's."""
    if docs[a][0] != "embedded" and docs[a][1] == b:
        return docs[a][2] + 1
    if docs[b][0] != "embedded" and docs[b][1] == a:
        return docs[b][2] + 1
    return size_band(docs[a][3], docs[b][3])


def minhash(values, num_perm):
    # The values are 32-bit already (the truth shingles folded): hashed by the identity, as sha1_hash32 would give
    # 32-bit values to datasketch's permutations.
    m = MinHash(num_perm=num_perm, seed=1, hashfunc=int)
    if len(values):
        m.update_batch(values.tolist())
    return m


def tally(docs, truth_of, hits_of, queries, c):
    tp = [0] * len(BAND_LABELS)
    fp = [0] * len(BAND_LABELS)
    fn = [0] * len(BAND_LABELS)
    for q in queries:
        hits = hits_of[q] - {q}
        for other, value in truth_of[q]:
            if value < c:
                continue
            band = pair_band(docs, q, other)
            if other in hits:
                tp[band] += 1
                hits.discard(other)
            else:
                fn[band] += 1
        for other in hits:
            fp[pair_band(docs, q, other)] += 1
    return tp, fp, fn


def cell(tp, fp, fn):
    if tp + fp + fn == 0:
        return "–"
    p = 1 if tp + fp == 0 else tp / (tp + fp)
    r = 1 if tp + fn == 0 else tp / (tp + fn)
    f1 = 0 if p + r == 0 else 2 * p * r / (p + r)
    return f"**{f1:.3f}** ({p:.3f} / {r:.3f}, {tp + fn:,})"


def percentile(sorted_values, q):
    return sorted_values[max(0, int(np.ceil(q * len(sorted_values))) - 1)]


def containment(sets, a, b):
    return len(sets[a] & sets[b]) / max(1, len(sets[a]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("export")
    parser.add_argument("--num-perm", type=int, default=256)
    parser.add_argument("--num-part", type=int, default=32)
    args = parser.parse_args()
    docs, contained_in, contains = read(args.export)
    n = len(docs)
    t0 = time.perf_counter()
    minhashes = [minhash(d[4], args.num_perm) for d in docs]
    print(f"MinHash (num_perm {args.num_perm}) of {n:,} sets in {time.perf_counter() - t0:.1f} s")
    sets = [set(d[4].tolist()) for d in docs]
    like_queries = [i for i in range(n) if docs[i][0] == "embedded"]
    document_queries = [i for i in range(n) if docs[i][0] != "embedded"]
    # The query's own MinHash, as the plugin fingerprints the like text: its cost per query.
    minhash_ms = []
    for q in like_queries[:200]:
        t = time.perf_counter()
        minhash(docs[q][4], args.num_perm)
        minhash_ms.append((time.perf_counter() - t) * 1e3)
    minhash_ms.sort()

    header = "| c | " + " | ".join(BAND_LABELS) + " | all |"
    rule = "|---|" + "---|" * (len(BAND_LABELS) + 1)
    results = {}
    for c in CS:
        # contained: like
        t = time.perf_counter()
        ensemble = MinHashLSHEnsemble(threshold=c, num_perm=args.num_perm, num_part=args.num_part)
        ensemble.index([(i, minhashes[i], max(1, docs[i][3])) for i in range(n)])
        build = time.perf_counter() - t
        hits, millis = {}, []
        for q in like_queries:
            t = time.perf_counter()
            hits[q] = set(ensemble.query(minhashes[q], max(1, docs[q][3])))
            millis.append((time.perf_counter() - t) * 1e3)
        millis.sort()
        verified = {q: {h for h in hits[q] if containment(sets, q, h) >= c} for q in like_queries}
        results[("like", c)] = (
            tally(docs, contained_in, hits, like_queries, c),
            tally(docs, contained_in, verified, like_queries, c),
            f"{statistics.median(millis):.2f} / {percentile(millis, 0.9):.2f}",
            build,
        )
        # contained: document, the join turned around: hosts indexed, every document a query.
        t = time.perf_counter()
        hosts = MinHashLSHEnsemble(threshold=c, num_perm=args.num_perm, num_part=args.num_part)
        hosts.index([(h, minhashes[h], max(1, docs[h][3])) for h in document_queries])
        host_hits = {h: set() for h in document_queries}
        for d in range(n):
            for h in hosts.query(minhashes[d], max(1, docs[d][3])):
                host_hits[h].add(d)
        join = time.perf_counter() - t
        verified = {h: {d for d in host_hits[h] if containment(sets, d, h) >= c} for h in document_queries}
        results[("document", c)] = (
            tally(docs, contains, host_hits, document_queries, c),
            tally(docs, contains, verified, document_queries, c),
            f"n/a (the join: {join:.1f} s)",
            0,
        )
        print(f"c {c}: like ensemble built in {build:.1f} s; document join in {join:.1f} s", flush=True)

    for direction, queries in (("like", like_queries), ("document", document_queries)):
        for name, which in (("raw", 0), ("verified", 1)):
            print(f"\ncontained: {direction}, {name} ({len(queries):,} queries), num_perm {args.num_perm}, "
                  f"num_part {args.num_part}\n")
            print(header + (" query() median / p90 ms |" if which == 0 else ""))
            print(rule + ("---|" if which == 0 else ""))
            for c in CS:
                tp, fp, fn = results[(direction, c)][which]
                row = f"| {c} | " + " | ".join(cell(tp[b], fp[b], fn[b]) for b in range(len(BAND_LABELS)))
                row += " | " + cell(sum(tp), sum(fp), sum(fn)) + " |"
                if which == 0:
                    row += f" {results[(direction, c)][2]} |"
                print(row)
    print(f"\nMinHash of a query text's set (num_perm {args.num_perm}), median / p90: "
          f"{statistics.median(minhash_ms):.2f} / {percentile(minhash_ms, 0.9):.2f} ms")


if __name__ == "__main__":
    main()
