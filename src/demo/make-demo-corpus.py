"""Draws the demo corpus from the development corpus (run from the repository root):

    python3 src/demo/make-demo-corpus.py ../shared/corpus/manpages.jsonl.gz > src/demo/manpages-demo.jsonl

Deterministic: the same input gives the same file. Whole groups are taken, so every page that
has several releases keeps its near-duplicates together; short singletons are mixed in as noise.
"""
import collections
import gzip
import json
import random
import sys

MAX_CHARS = 12_000
rng = random.Random(20261121)
groups = collections.OrderedDict()
with gzip.open(sys.argv[1], "rt", encoding="utf-8") as f:
    for line in f:
        doc = json.loads(line)
        groups.setdefault(doc["group"], []).append(doc)

eligible = [g for g, docs in sorted(groups.items()) if all(len(d["text"]) <= MAX_CHARS for d in docs)]
multi = [g for g in eligible if len(groups[g]) >= 2]
single = [g for g in eligible if len(groups[g]) == 1]
chosen = rng.sample(multi, 110) + rng.sample(single, 60)
docs = [d for g in chosen for d in groups[g]]
rng.shuffle(docs)
for d in docs:
    print(json.dumps({k: d[k] for k in ("id", "group", "package", "version", "text")}, ensure_ascii=False))
