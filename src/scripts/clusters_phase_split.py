#!/usr/bin/env python3
# Runs one _near_dup_clusters with writes as a task and prints how long each phase took (docs/clusters.md
# section 9): the task's status is polled every 100 ms and each change of its `phase` is timed (scanning,
# reading_members, clustering, writing; `writing` includes the pass over documents in no cluster and the refresh).
#
#   clusters_phase_split.py <url> <index> <target_field | dest:<new index>> [<url params, e.g. &slices=2>] [<field>] [<options: a JSON fragment>]
#
# Defaults: field fp.minhash, options fragment "min_similarity": 0.8 (e.g. add , "singletons": true). With NODE_PID_FILE set to a file holding the node's
# pid (on the same machine), also prints the node's CPU seconds over the run and from the write phase on.
# Also prints the response's matches, clustered_documents, coordinator_bytes and data_node_bytes, and the peaks of heap
# used and of the `neardup` breaker over the run (the largest node's; _nodes/stats/jvm,breaker polled every 200 ms, as
# ClustersEvaluation polls them), with the 1-minute load at the start and at the end. A dry run: params "&dry_run=true".
# With RESPONSE_FILE set, the task's whole last answer (status and response) is written there.
import json, sys, time, urllib.request, os
pidf = os.environ.get("NODE_PID_FILE")
def cpu():
    if not pidf: return 0
    f = open("/proc/%s/stat" % open(pidf).read().strip()).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
url, index, target = sys.argv[1], sys.argv[2], sys.argv[3]
params = sys.argv[4] if len(sys.argv) > 4 else ""
field = sys.argv[5] if len(sys.argv) > 5 else "fp.minhash"
opts = sys.argv[6] if len(sys.argv) > 6 else '"min_similarity": 0.8'
def req(method, path, body=None):
    r = urllib.request.Request(url + path, method=method, data=None if body is None else body.encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(r) as resp:
        return json.loads(resp.read())
# A target of the form dest:<index> writes records into that new index ("dest") instead of into the documents.
into = '"dest": {"index": "%s"}' % target[5:] if target.startswith("dest:") else '"target_field": "%s"' % target
body = '{"field": "%s", %s, %s, "linkage": "single"}' % (field, into, opts)
c0 = cpu(); phc = {}
t0 = time.time()
r = req("POST", "/%s/_near_dup_clusters?wait_for_completion=false&refresh=true%s" % (index, params), body)
task = r["task"]
phases = {}
last = None
peak_heap = peak_breaker = 0
load_start = open("/proc/loadavg").read().split()[0]
def poll_peaks():
    global peak_heap, peak_breaker
    for n in req("GET", "/_nodes/stats/jvm,breaker")["nodes"].values():
        peak_heap = max(peak_heap, n["jvm"]["mem"]["heap_used_in_bytes"])
        peak_breaker = max(peak_breaker, n["breakers"].get("neardup", {}).get("estimated_size_in_bytes", 0))
polls = 0
while True:
    if polls % 2 == 0:
        poll_peaks()
    polls += 1
    s = req("GET", "/_tasks/" + task)
    st = s["task"]["status"]
    ph = st.get("phase")
    if ph != last:
        phases[ph] = time.time() - t0
        phc[ph] = cpu() - c0
        last = ph
    if s.get("completed"):
        break
    time.sleep(0.1)
end = time.time() - t0
cend = cpu() - c0
resp = s.get("response", {})
order = ["scanning", "reading_members", "clustering", "writing", "done"]
prev = None
split = {}
ts = [(p, phases[p]) for p in order if p in phases]
for i, (p, t) in enumerate(ts):
    nxt = ts[i + 1][1] if i + 1 < len(ts) else end
    split[p] = round(nxt - t, 2)
st = resp.get("status", resp)
print(json.dumps({"target": target, "params": params, "wall": round(end, 2), "took_ms": resp.get("took"), "split": split,
  "updated": resp.get("updated", st.get("updated")), "noops": resp.get("noops", st.get("noops")),
  "conflicts": resp.get("version_conflicts", st.get("version_conflicts")), "clusters": resp.get("clusters", st.get("clusters")),
  "failures": len(resp.get("failures", [])), "node_cpu_s": round(cend, 2), "write_cpu_s": round(cend - phc.get("writing", cend), 2), "load": open("/proc/loadavg").read().split()[0],
  "load_start": load_start, "matches": resp.get("matches"), "clustered_documents": resp.get("clustered_documents"),
  "coordinator_bytes": resp.get("coordinator_bytes"), "data_node_bytes": resp.get("data_node_bytes"),
  "peak_heap_bytes": peak_heap, "peak_breaker_bytes": peak_breaker}))
if os.environ.get("RESPONSE_FILE"):
    with open(os.environ["RESPONSE_FILE"], "w") as f:
        json.dump(s, f, indent=1)
