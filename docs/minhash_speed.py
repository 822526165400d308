#!/usr/bin/env python3
"""Speed and quality of near_duplicate (minhash field) against OpenSearch's own min_hash token filter,
on a running node (stdlib only).

usage: python3 docs/minhash_speed.py <http://127.0.0.1:9310> <manpages.jsonl.gz> <truth.tsv> [queries=200] [seed=42]

truth.tsv: from `MinhashEvaluation --truth-out` (every pair with exact 3-shingle Jaccard >= 0.5, by line number;
retired, last version: git show 71eb01a:src/bench/java/io/neardup/bench/MinhashEvaluation.java). `JaccardAccuracy --export DIR` writes
DIR/truth.tsv in the same format, its truth from FNV-1a shingle hashes instead of the plugin's.
Indexes the corpus twice (_id = line number, 1 shard, 0 replicas):
  nd: body -> near_dup_fingerprint pipeline (minhash only) -> body_fp.minhash (`minhash`, threshold 0.8 = 9 x 13);
  nd12x10, nd14x9: the same with bands/rows 12 x 10 and 14 x 9 (the false-negative-weighted bandings)
  mh: body analyzed by standard tokenizer, lowercase, shingle 3/3 (no unigrams), min_hash (1 x 128, set 1, rotation)
Queries, for the same query documents (drawn at random among documents with >= 1 neighbour at Jaccard >= 0.8):
  (a) near_duplicate like {_id}, min_similarity 0.8
  (b) bool of `term` queries, one per distinct min_hash token of the document (from _termvectors), with
      minimum_should_match = ceil(p * #tokens) for several p (the `match` + minimum_should_match query, built
      from the indexed tokens so that they round-trip exactly)
Reports latency (client wall time and server `took`) and micro precision / recall against Jaccard >= 0.8.
"""
import gzip
import json
import math
import random
import statistics
import sys
import time
import urllib.request

TAU = 0.8
INDICES = ("nd", "nd12x10", "nd14x9", "mh")


def req(base, method, path, body=None, ndjson=False):
    data = None
    headers = {}
    if body is not None:
        data = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode("utf-8")
        headers["Content-Type"] = "application/x-ndjson" if ndjson else "application/json"
    r = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(r, timeout=600) as resp:
            return json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"{method} {path}: {e.code} {e.read()[:500]!r}")


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, max(0, math.ceil(p / 100 * len(v)) - 1))]


def main():
    base, corpus, truth_path = sys.argv[1], sys.argv[2], sys.argv[3]
    nq = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 42
    texts = []
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                texts.append(json.loads(line)["text"])
    neighbours = {}
    with open(truth_path) as f:
        for line in f:
            a, b, j = line.split("\t")
            if float(j) >= TAU:
                neighbours.setdefault(int(a), set()).add(int(b))
                neighbours.setdefault(int(b), set()).add(int(a))

    for index in INDICES:
        try:
            req(base, "DELETE", "/" + index)
        except RuntimeError:
            pass
    req(base, "PUT", "/_ingest/pipeline/fp",
        {"processors": [{"near_dup_fingerprint": {"field": "body", "target_field": "body_fp", "outputs": ["minhash"]}}]})
    settings = {"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": "-1"}
    for index, banding in (("nd", {"threshold": 0.8}), ("nd12x10", {"bands": 12, "rows": 10}), ("nd14x9", {"bands": 14, "rows": 9})):
        req(base, "PUT", "/" + index, {"settings": dict(settings, **{"index.default_pipeline": "fp"}),
                                       "mappings": {"properties": {"body": {"type": "text", "index": False},
                                                                   "body_fp": {"properties": {"minhash": dict(type="minhash", **banding)}}}}})
    req(base, "PUT", "/mh", {"settings": dict(settings, analysis={
        "filter": {"sh3": {"type": "shingle", "min_shingle_size": 3, "max_shingle_size": 3, "output_unigrams": False},
                   "mh128": {"type": "min_hash", "hash_count": 1, "bucket_count": 128, "hash_set_size": 1, "with_rotation": True}},
        "analyzer": {"minhash": {"type": "custom", "tokenizer": "standard", "filter": ["lowercase", "sh3", "mh128"]}}}),
        "mappings": {"properties": {"body": {"type": "text", "analyzer": "minhash", "term_vector": "yes"}}}})

    ingest = {}
    for index in INDICES:
        t0 = time.time()
        for start in range(0, len(texts), 500):
            lines = []
            for i in range(start, min(len(texts), start + 500)):
                lines.append(json.dumps({"index": {"_index": index, "_id": str(i)}}))
                lines.append(json.dumps({"body": texts[i]}))
            r = req(base, "POST", "/_bulk", "\n".join(lines) + "\n", ndjson=True)
            if r.get("errors"):
                bad = [it for it in r["items"] if it["index"].get("error")][:2]
                raise RuntimeError(f"bulk errors in {index}: {bad}")
        req(base, "POST", f"/{index}/_refresh")
        req(base, "POST", f"/{index}/_forcemerge?max_num_segments=1")
        ingest[index] = time.time() - t0
    sizes = {i: req(base, "GET", f"/{i}/_stats/store")["indices"][i]["primaries"]["store"]["size_in_bytes"] for i in INDICES}

    rng = random.Random(seed)
    pool = sorted(neighbours)
    queries = rng.sample(pool, min(nq, len(pool)))
    tokens = {}
    for q in queries:
        tv = req(base, "GET", f"/mh/_termvectors/{q}?fields=body&positions=false&offsets=false&term_statistics=false&field_statistics=false")
        tokens[q] = sorted(tv["term_vectors"]["body"]["terms"].keys()) if tv.get("term_vectors") else []

    def run(name, body_of, exclude_self):
        # warm-up pass, then the measured pass
        for q in queries[:20]:
            req(base, "POST", "/" + name + "/_search", body_of(q))
        wall, took, tp, ret, truth = [], [], 0, 0, 0
        for q in queries:
            body = body_of(q)
            t0 = time.perf_counter()
            r = req(base, "POST", "/" + name + "/_search", body)
            wall.append((time.perf_counter() - t0) * 1000)
            took.append(r["took"])
            got = {int(h["_id"]) for h in r["hits"]["hits"]}
            if exclude_self:
                got.discard(q)
            want = neighbours.get(q, set())
            tp += len(got & want)
            ret += len(got)
            truth += len(want)
        p = tp / ret if ret else float("nan")
        rc = tp / truth
        return {"median_ms": statistics.median(wall), "p99_ms": pct(wall, 99), "took_median": statistics.median(took),
                "took_p99": pct(took, 99), "precision": p, "recall": rc, "f1": 2 * p * rc / (p + rc) if p + rc else 0,
                "returned": ret, "tp": tp, "truth": truth}

    results = []
    results.append(("near_duplicate, min_similarity 0.8 (9 x 13 bands)", run("nd", lambda q: {
        "size": 200, "_source": False,
        "query": {"near_duplicate": {"field": "body_fp.minhash", "like": {"_id": str(q)}, "min_similarity": TAU}}}, False)))
    for index, name in (("nd12x10", "12 x 10"), ("nd14x9", "14 x 9")):
        results.append((f"near_duplicate, min_similarity 0.8 ({name} bands)", run(index, lambda q: {
            "size": 200, "_source": False,
            "query": {"near_duplicate": {"field": "body_fp.minhash", "like": {"_id": str(q)}, "min_similarity": TAU}}}, False)))
    for p in (0.6, 0.7, 0.75, 0.8, 0.85):
        def body(q, p=p):
            ts = tokens[q]
            return {"size": 200, "_source": False, "query": {"bool": {
                "should": [{"term": {"body": t}} for t in ts], "minimum_should_match": max(1, math.ceil(p * len(ts)))}}}
        results.append((f"min_hash tokens, minimum_should_match {int(p * 100)}%", run("mh", body, True)))

    print(f"queries: {len(queries)} (seed {seed}, among {len(pool)} documents with a neighbour at Jaccard >= {TAU}); "
          f"mean distinct min_hash tokens per query doc: {statistics.mean(len(t) for t in tokens.values()):.1f}")
    print("indexing 5,501 docs (bulk 500, then refresh + force-merge to 1 segment): "
          + ", ".join(f"{i} {ingest[i]:.1f} s / {sizes[i] / 1e6:.1f} MB" for i in INDICES))
    print()
    print("| query | median ms (client) | p99 ms (client) | median / p99 `took` ms | returned | TP | precision | recall | F1 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in results:
        print(f"| {name} | {r['median_ms']:.2f} | {r['p99_ms']:.2f} | {r['took_median']} / {r['took_p99']} | {r['returned']} | {r['tp']} "
              f"| {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} |")
    print(f"\n(truth pairs over the query documents: {results[0][1]['truth']})")


if __name__ == "__main__":
    main()
