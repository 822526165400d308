#!/usr/bin/env python3
# Attributes a node's CPU samples (and allocations) during an ingest benchmark to the parts of the
# indexing path: HTTP and bulk parsing, the ingest framework (source to map and back), the
# near_dup_fingerprint processor (analysis, simhash, MinHash, shingle sets, encodings, content hash),
# mapping the document (the plugin's field mappers among the rest), and Lucene (inverting, doc values,
# points, stored fields, flush, merges, the translog). The same for the partial updates of a
# _near_dup_clusters run's write phase (docs/clusters.md section 9), whose own steps are the realtime
# get of the stored document and merging the change into its source.
#
#   jfr_ingest_attribution.py <recording.jfr> [<jfr binary>] [--last-seconds S]
#
# --last-seconds S keeps only the samples of the recording's last S seconds (a run's write phase, when
# the recording stopped as the run ended).
#
# Reads `jfr print --json` of jdk.ExecutionSample and jdk.ObjectAllocationSample with deep stacks
# (start the node with -XX:FlightRecorderOptions:stackdepth=256 so that no stack is cut short), and
# prints a markdown table: samples per category, share of all samples, and sampled allocation.
# Each sample goes to the first rule that matches any frame of its stack (top to bottom rules below).
import json
import subprocess
import sys
from collections import Counter
from datetime import datetime

# (category, substrings of "class.method" any of which puts a sample there), most specific first.
PROCESSOR = "io.neardup.ingest.NearDupFingerprintProcessor.execute"
PROCESSOR_RULES = [
    ("processor: content hash", ["io.neardup.core.ContentHash."]),
    ("processor: shingle set encoding", ["ShingleSetCodec.encode", "ShingleSetCodec.payload"]),
    ("processor: shingle set (sort, distinct)", ["ShingleSetCodec.of"]),
    ("processor: signature encoding", ["SignatureCodec.encode"]),
    ("processor: simhash + margins encoding", ["Margins.encode", "SimhashCodec.toHex"]),
    ("processor: MinHash signature", ["io.neardup.core.MinHasher."]),
    ("processor: margins", ["io.neardup.core.Margins.of"]),
    ("processor: analysis (tokenizer, filters)", ["org.apache.lucene.analysis.", "Analyzer.tokenStream"]),
    ("processor: token and shingle hashing, features", ["Fingerprinter.token"]),
    ("processor: simhash accumulation", ["Fingerprinter.finish", "SimhashAccumulator"]),
    ("processor: lone surrogates scan", ["withoutLoneSurrogates"]),
]
MAPPER_RULES = [
    ("mapping: minhash field (decode, band terms)", ["io.neardup.index.MinhashFieldMapper."]),
    ("mapping: simhash field (decode)", ["io.neardup.index.SimhashFieldMapper."]),
    ("mapping: other fields and JSON parsing", ["org.opensearch.index.mapper."]),
]
LUCENE_RULES = [
    ("lucene: flush (segment writing)", ["DocumentsWriterPerThread.flush", "DocumentsWriter.doFlush"]),
    ("lucene: stored fields (_source, compressed)", ["StoredFieldsConsumer", "StoredFieldsWriter"]),
    ("lucene: doc values (buffering)", ["DocValuesWriter"]),
    ("lucene: points (buffering)", ["PointValuesWriter"]),
    ("lucene: text analysis at indexing", ["org.apache.lucene.analysis."]),
    ("lucene: inverting (terms hash, postings buffers)", ["IndexingChain", "TermsHash"]),
    ("lucene: other indexing", ["org.apache.lucene.index.IndexWriter"]),
]
# The steps an update adds to indexing the new version: they run inside the bulk action, before mapping.
UPDATE_RULES = [
    ("update: realtime get of the stored document", ["org.opensearch.index.get.ShardGetService."]),
    ("update: source to map, merge, map to source", ["org.opensearch.action.update.UpdateHelper."]),
]
INGEST_RULES = [
    ("ingest: source to map", ["XContentHelper.convertToMap", "IndexRequest.sourceAsMap", "IngestDocument.<init>",
                               "SourceToParse", "XContentHelper.convertToJson"]),
    ("ingest: map to source", ["IndexRequest.source", "XContentBuilder", "XContentFactory"]),
    ("ingest: deep copy and other framework", ["org.opensearch.ingest.", "IngestService"]),
]
TOP_RULES = [
    ("lucene: merges", ["org.apache.lucene.index.IndexWriter.merge", "ConcurrentMergeScheduler"]),
    ("translog", ["org.opensearch.index.translog."]),
]
OTHER_RULES = [
    ("bulk request parsing", ["BulkRequestParser", "BulkRequest.add"]),
    ("HTTP and transport (netty)", ["io.netty."]),
    ("engine and shard bookkeeping", ["org.opensearch.index.engine.", "org.opensearch.index.shard."]),
    ("bulk action (other)", ["org.opensearch.action.bulk."]),
]


def frames_of(stack):
    out = []
    for f in (stack or {}).get("frames", []):
        m = f.get("method", {})
        cls = m.get("type", {}).get("name", "?").replace("/", ".")
        out.append(cls + "." + m.get("name", "?"))
    return out


def started(event):
    return datetime.fromisoformat(event["values"]["startTime"].replace("Z", "+00:00")).timestamp()


def first_match(frames, rules):
    for category, needles in rules:
        if any(n in f for f in frames for n in needles):
            return category
    return None


def classify(frames, thread):
    if any(PROCESSOR in f for f in frames):
        # only the frames above the processor's execute belong to it
        top = frames[: next(i for i, f in enumerate(frames) if PROCESSOR in f)]
        return first_match(top, PROCESSOR_RULES) or "processor: other"
    if "Merge" in thread:
        return "lucene: merges"
    for rules in (TOP_RULES, LUCENE_RULES, MAPPER_RULES, UPDATE_RULES, INGEST_RULES, OTHER_RULES):
        c = first_match(frames, rules)
        if c:
            return c
    return "other (JVM, idle loops, search, ...)"


def main():
    args = sys.argv[1:]
    last_seconds = None
    if "--last-seconds" in args:
        at = args.index("--last-seconds")
        last_seconds = float(args[at + 1])
        del args[at:at + 2]
    recording = args[0]
    jfr = args[1] if len(args) > 1 else "jfr"
    printed = subprocess.run([jfr, "print", "--json", "--stack-depth", "256", "--events",
                              "jdk.ExecutionSample,jdk.ObjectAllocationSample", recording],
                             check=True, capture_output=True, text=True).stdout
    events = json.loads(printed)["recording"]["events"]
    if last_seconds is not None:
        end = max(started(e) for e in events)
        events = [e for e in events if started(e) >= end - last_seconds]
    samples, allocated = Counter(), Counter()
    for e in events:
        v = e["values"]
        thread = (v.get("sampledThread") or v.get("eventThread") or {}).get("javaName") or ""
        category = classify(frames_of(v.get("stackTrace")), thread)
        if e["type"] == "jdk.ExecutionSample":
            samples[category] += 1
        else:
            allocated[category] += v.get("weight", 0)
    total = sum(samples.values())
    total_alloc = sum(allocated.values())
    print(f"{total} CPU samples, {total_alloc / 1e9:.2f} GB sampled allocation")
    print()
    print("| where | CPU samples | share | allocation (MB) |")
    print("|---|---|---|---|")
    for group in ("HTTP", "bulk", "update", "ingest", "processor", "mapping", "lucene", "translog", "engine", "other"):
        rows = sorted((c for c in set(samples) | set(allocated) if c.startswith(group)),
                      key=lambda c: -samples[c])
        for c in rows:
            print(f"| {c} | {samples[c]} | {100 * samples[c] / max(total, 1):.1f}% | {allocated[c] / 1e6:,.0f} |")
    print()
    for group in ("update", "ingest", "processor", "mapping", "lucene"):
        n = sum(samples[c] for c in samples if c.startswith(group))
        print(f"{group}: {100 * n / max(total, 1):.1f}% of samples")


if __name__ == "__main__":
    main()
