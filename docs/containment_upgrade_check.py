"""Containment answers across a plugin upgrade in place (docs/containment.md, "How candidates are found").

An index made by one build of the plugin is queried before and after the node runs another; then copies of some of
its documents are added and it is force-merged, so that a segment holds documents indexed by both builds. Each step
talks to a node on 127.0.0.1:PORT (src/scripts/node.sh start, then restart with the other build's zip):

  python3 docs/containment_upgrade_check.py create  PORT $DATA/debian-descriptions.jsonl.gz
  python3 docs/containment_upgrade_check.py record  PORT $DATA/debian-descriptions.jsonl.gz before.json
  bash src/scripts/node.sh restart $NODE $BUILD/opensearch-neardup-3.8.0.0.zip
  python3 docs/containment_upgrade_check.py record  PORT $DATA/debian-descriptions.jsonl.gz after.json
  python3 docs/containment_upgrade_check.py compare before.json after.json same
  python3 docs/containment_upgrade_check.py add     PORT $DATA/debian-descriptions.jsonl.gz
  python3 docs/containment_upgrade_check.py record  PORT $DATA/debian-descriptions.jsonl.gz added.json
  python3 docs/containment_upgrade_check.py compare before.json added.json added

"same": every query's hits and scores are equal. "added": the hits among the first file's documents are equal, and
each copy (its id is "new-" and its original's) scores as its original. Exits 1 if a query differs.
"""
import gzip
import http.client
import json
import sys

INDEX = "pages"
QUERIES = 60


def call(port, method, path, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    data = None if body is None else (body if isinstance(body, str) else json.dumps(body))
    content_type = "application/x-ndjson" if "_bulk" in path else "application/json"
    connection.request(method, path, body=data, headers={"Content-Type": content_type})
    response = connection.getresponse()
    text = response.read().decode()
    if response.status >= 300:
        sys.exit(f"{method} {path} -> {response.status}: {text[:500]}")
    return json.loads(text) if text else None


def texts(corpus):
    """3,000 descriptions of 30 to 150 words, and 300 hosts made of three of them each."""
    descriptions = []
    with gzip.open(corpus, "rt") as lines:
        for line in lines:
            text = json.loads(line)["text"]
            if 30 <= len(text.split()) <= 150:
                descriptions.append(text)
            if len(descriptions) == 3000:
                break
    hosts = [descriptions[i] + "\n" + descriptions[i + 1000] + "\n" + descriptions[i + 2000] for i in range(300)]
    return descriptions, hosts


def bulk(port, docs):
    for start in range(0, len(docs), 200):
        body = "".join(
            json.dumps({"index": {"_id": i}}) + "\n" + json.dumps({"text": t}) + "\n" for i, t in docs[start:start + 200])
        answer = call(port, "POST", f"/{INDEX}/_bulk", body)
        if answer["errors"]:
            sys.exit("bulk errors: " + json.dumps(answer)[:500])


def answers(port, descriptions, hosts):
    out = {}
    for q in range(QUERIES):
        for contained, text in (("like", descriptions[q]), ("document", hosts[q])):
            query = {"near_duplicate": {"field": "text_fp.minhash", "like": {"text": text},
                                        "min_containment": 0.8, "contained": contained}}
            answer = call(port, "POST", f"/{INDEX}/_search?filter_path=hits.hits._id,hits.hits._score",
                          {"size": 100, "_source": False, "query": query})
            hits = answer.get("hits", {}).get("hits", []) if answer else []
            out[f"{contained}-{q}"] = sorted([h["_id"], round(h["_score"], 6)] for h in hits)
    return out


def compare(first, second, mode):
    a, b = json.load(open(first)), json.load(open(second))
    differing = 0
    for key, hits in a.items():
        if mode == "same":
            if hits != b[key]:
                differing += 1
                print("differs:", key)
            continue
        if [h for h in b[key] if not h[0].startswith("new-")] != hits:
            differing += 1
            print("the first file's documents differ:", key)
        scores = {i: s for i, s in hits}
        for i, s in b[key]:
            if i.startswith("new-") and scores.get(i[len("new-"):]) != s:
                differing += 1
                print("a copy scores otherwise than its original:", key, i)
    print(f"{first} against {second} ({mode}): {len(a)} queries, {differing} differing")
    return differing == 0


def main(args):
    step = args[0]
    if step == "compare":
        return 0 if compare(args[1], args[2], args[3]) else 1
    port, (descriptions, hosts) = int(args[1]), texts(args[2])
    if step == "create":
        call(port, "PUT", "/_ingest/pipeline/fp", {"processors": [{"near_dup_fingerprint": {"field": "text"}}]})
        call(port, "PUT", f"/{INDEX}", {
            "settings": {"number_of_shards": 2, "number_of_replicas": 0, "index.default_pipeline": "fp"},
            "mappings": {"properties": {"text": {"type": "text"}, "text_fp": {"properties": {
                "simhash": {"type": "simhash"}, "minhash": {"type": "minhash", "containment": True}}}}}})
        bulk(port, [(f"d{i}", t) for i, t in enumerate(descriptions)] + [(f"h{i}", t) for i, t in enumerate(hosts)])
        call(port, "POST", f"/{INDEX}/_refresh")
    elif step == "add":
        bulk(port, [(f"new-h{i}", t) for i, t in enumerate(hosts[:100])]
             + [(f"new-d{i}", t) for i, t in enumerate(descriptions[:100])])
        call(port, "POST", f"/{INDEX}/_refresh")
        call(port, "POST", f"/{INDEX}/_forcemerge?max_num_segments=1")
        call(port, "POST", f"/{INDEX}/_refresh")
        print("segments after the force-merge:", len(call(port, "GET", f"/_cat/segments/{INDEX}?format=json")))
    elif step == "record":
        recorded = answers(port, descriptions, hosts)
        json.dump(recorded, open(args[3], "w"))
        print(f"{args[3]}: {sum(len(h) for h in recorded.values())} hits in {len(recorded)} queries")
    else:
        sys.exit("steps: create, record, add, compare")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
