#!/usr/bin/env python3
# Compares what two _near_dup_clusters runs wrote into the same index under two target fields (docs/clusters.md
# section 8, step 5): every document holding either is read back by scroll, and the two objects compared whole.
#
#   compare_targets.py <url> <index> <target_a> <target_b>
#
# Prints the documents holding either, how many hold the same in both, and up to 5 that differ.
import json, sys, urllib.request

U, idx, a, b = sys.argv[1:5]
def req(m, p, body=None):
    r = urllib.request.Request(U + p, method=m, data=None if body is None else json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return json.loads(urllib.request.urlopen(r).read())
q = {"size": 5000, "_source": [a, b], "query": {"bool": {"should": [{"exists": {"field": a + ".cluster"}}, {"exists": {"field": b + ".cluster"}}]}}}
r = req("POST", "/%s/_search?scroll=2m" % idx, q)
n = same = 0; diff = []
while r["hits"]["hits"]:
    for h in r["hits"]["hits"]:
        n += 1
        s = h["_source"]
        if s.get(a) == s.get(b): same += 1
        elif len(diff) < 5: diff.append((h["_id"], s.get(a), s.get(b)))
    r = req("POST", "/_search/scroll", {"scroll": "2m", "scroll_id": r["_scroll_id"]})
print(json.dumps({"documents_with_either": n, "identical": same, "differing_examples": diff}))
