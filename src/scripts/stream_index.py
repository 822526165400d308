#!/usr/bin/env python3
# Indexes a JSON-lines corpus (gzipped or not) into a new index as ClustersEvaluation does (Evaluate.indexCorpus: the
# `neardup-eval` pipeline, the same settings and mapping, _id = line number, `text` and `group` sent), but streamed from
# the file instead of read into memory first: ClustersEvaluation holds every text in the client (~8-9 GB of heap at
# 10M synthetic documents). Then refresh, force-merge to one segment a shard, refresh, as the evaluation does.
# Used for the curve 1M -> 3M -> 10M (docs/clusters.md section 10); the runs then go by hand (clusters_phase_split.py).
#
#   stream_index.py <url> <index> <corpus.jsonl[.gz]> [--shards 2] [--max-docs N] [--batch 500] [--in-flight 2] [--format 1] [--merge true]
#                  [--from N --create false]   (continue: lines before N skipped, the index exists)
# --max-docs counts lines from the start of the file, so --max-docs 3000000 then --from 3000000 make the first 3M
# documents an index of their own for a while (runs on them), then the rest.
#
# --in-flight bulks are sent at once (the evaluation sends one at a time; the ingest pipeline runs a bulk on one
# thread, so two keep both cores of a 2-core node busy). --format is index.neardup.fingerprint_format, 1 as in the
# evaluation. Prints progress every 100,000 documents and a last line of JSON: documents, bulk s, docs/s, merge s.
import argparse, gzip, http.client, json, re, sys, time, threading, queue
from urllib.parse import urlparse

p = argparse.ArgumentParser()
p.add_argument("url"); p.add_argument("index"); p.add_argument("corpus")
p.add_argument("--shards", type=int, default=2); p.add_argument("--max-docs", type=int, default=0)
p.add_argument("--batch", type=int, default=500); p.add_argument("--in-flight", type=int, default=2)
p.add_argument("--format", type=int, default=1)
p.add_argument("--from", dest="start", type=int, default=0, help="skip the first N lines (their _ids stay theirs): continue an index")
p.add_argument("--create", default="true", help="false: the index and pipeline exist (with --from)")
p.add_argument("--merge", default="true", help="false: leave the force-merge to be run by hand (it needs the index's size again on disk)")
a = p.parse_args()
u = urlparse(a.url)
PIPELINE = "neardup-eval"

def call(method, path, body=None, conn=None, timeout=3600):
    c = conn or http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    c.request(method, path, body=body, headers={"Content-Type": "application/json"})
    r = c.getresponse()
    data = r.read()
    if conn is None:
        c.close()
    if r.status >= 300:
        raise SystemExit("%s %s -> %d: %s" % (method, path, r.status, data[:2000]))
    return json.loads(data)

# Evaluate.putPipeline and Evaluate.indexDefinition(shards, "", "", PIPELINE, format)
def create():
  call("PUT", "/_ingest/pipeline/" + PIPELINE, json.dumps({"description": "neardup evaluation", "processors": [
    {"near_dup_fingerprint": {"field": "text", "target_field": "fp"}}]}))
  call("PUT", "/" + a.index, json.dumps({
    "settings": {"number_of_shards": a.shards, "number_of_replicas": 0, "refresh_interval": "-1",
                 "index.default_pipeline": PIPELINE, "index.sort.field": "fp.simhash",
                 "index.neardup.fingerprint_format": a.format},
    "mappings": {"properties": {"text": {"type": "text"}, "group": {"type": "keyword"}, "fp": {"properties": {
        "simhash": {"type": "simhash"}, "minhash": {"type": "minhash"}, "content_hash": {"type": "keyword"}}}}}}))

if a.create == "true":
    create()

# The corpus lines are {"id": ..., "group": ..., "text": ...}: the document is the line without its "id" (the
# evaluation sends text and group only); lines of another shape go through the JSON parser.
ID_PREFIX = re.compile(r'^\{"id":"[^"\\]*",')

def document(line):
    m = ID_PREFIX.match(line)
    if m:
        return "{" + line[m.end():]
    d = json.loads(line)
    return json.dumps({k: d[k] for k in ("text", "group") if d.get(k) is not None})

work = queue.Queue(maxsize=a.in_flight * 2)
errors = []

def sender():
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    while True:
        body = work.get()
        if body is None:
            return
        try:
            r = call("POST", "/%s/_bulk" % a.index, body, conn)
            if r.get("errors"):
                bad = [i for i in r["items"] if "error" in next(iter(i.values()))]
                errors.extend(bad[:5])
        except BaseException as e:  # keep the failure for the main thread
            errors.append(repr(e))

threads = [threading.Thread(target=sender, daemon=True) for _ in range(a.in_flight)]
for t in threads:
    t.start()
t0 = time.time()
n = 0
buf = []
opener = gzip.open if a.corpus.endswith(".gz") else open
with opener(a.corpus, "rt", encoding="utf-8") as f:
    for line in f:
        if a.max_docs and n >= a.max_docs:
            break
        line = line.strip()
        if not line:
            continue
        if n < a.start:
            n += 1
            continue
        buf.append('{"index":{"_id":"%d"}}\n%s\n' % (n, document(line)))
        n += 1
        if len(buf) == a.batch:
            work.put("".join(buf)); buf = []
        if n % 100000 == 0:
            el = time.time() - t0
            print("%d documents, %.0f s, %.0f docs/s, load %s, bulk errors %d" % (
                n, el, (n - a.start) / el, open("/proc/loadavg").read().split()[0], len(errors)), flush=True)
        if errors and len(errors) > 100:
            raise SystemExit("bulk errors: %s" % errors[:5])
if buf:
    work.put("".join(buf))
for _ in threads:
    work.put(None)
for t in threads:
    t.join()
bulk_s = time.time() - t0
call("POST", "/%s/_refresh" % a.index)
t1 = time.time()
if a.merge == "true":
    call("POST", "/%s/_forcemerge?max_num_segments=1" % a.index)
    call("POST", "/%s/_refresh" % a.index)
merge_s = time.time() - t1
count = call("GET", "/%s/_count" % a.index)["count"]
print(json.dumps({"index": a.index, "documents": n, "count": count, "bulk_s": round(bulk_s, 1),
                  "docs_per_s": round((n - a.start) / bulk_s), "merge_s": round(merge_s, 1), "bulk_errors": errors[:5],
                  "load": open("/proc/loadavg").read().split()[:3]}), flush=True)
