#!/usr/bin/env python3
# What recording n cluster assignments costs, two ways, through the same bulks (docs/clusters.md section 9):
#   update: a partial update of documents 0..n-1 of <index> setting <target> to an assignment, as a run writes it
#           (without if_seq_no: the read that gives it is the run's members phase, not the write);
#   side:   an index of n small assignment documents (_id 0..n-1) into <index>, a side index made beforehand
#           (cluster keyword, size integer, representative boolean): the contract change estimated there.
#
#   assignment_write_cost.py <url> <update|side> <n> <bulk size> <bulks in flight> <index> [<target>] [<node pid file>]
#
# Prints seconds, documents a second and, with the pid file (node on this machine), the node's CPU per document.
import json, sys, time, urllib.request, concurrent.futures, os
url, mode, n, bulk, inflight, index = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
target = sys.argv[7] if len(sys.argv) > 7 else "side"
pid = int(open(sys.argv[8]).read()) if len(sys.argv) > 8 else None
def cpu():
    if pid is None: return 0
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
bodies = []
for start in range(0, n, bulk):
    lines = []
    for i in range(start, min(n, start + bulk)):
        a = {"cluster": str(i - i % 3), "size": 3, "representative": i % 3 == 0}
        if mode == "side":
            lines.append('{"index":{"_id":"%d"}}' % i); lines.append(json.dumps(a))
        else:
            lines.append('{"update":{"_id":"%d"}}' % i); lines.append(json.dumps({"doc": {target: a}}))
    bodies.append(("\n".join(lines) + "\n").encode())
def send(b):
    r = urllib.request.Request(url + "/" + index + "/_bulk", data=b, method="POST", headers={"Content-Type": "application/x-ndjson"})
    with urllib.request.urlopen(r) as resp:
        j = json.loads(resp.read())
        if j.get("errors"): raise SystemExit("errors: " + json.dumps(j)[:500])
c0 = cpu(); t0 = time.time()
with concurrent.futures.ThreadPoolExecutor(inflight) as ex:
    list(ex.map(send, bodies))
t = time.time() - t0; c = cpu() - c0
print(json.dumps({"mode": mode, "n": n, "bulk": bulk, "inflight": inflight, "seconds": round(t, 2), "docs_per_s": round(n / t), "node_cpu_s": round(c, 2), "cpu_us_per_doc": round(1e6 * c / n, 1), "load": open("/proc/loadavg").read().split()[0]}))
