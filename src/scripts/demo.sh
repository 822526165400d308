#!/usr/bin/env bash
# Sets up the demo on a running node: a fingerprinting pipeline, an index sorted by simhash, the
# man-page corpus loaded through the pipeline, its clusters and a collapsing search pipeline; then
# prints requests to try.   demo.sh <url> <corpus.jsonl> <work-dir>
# The request bodies are the JSON files beside the corpus, which ReadmeIT loads the same way, so the
# README's requests against the demo are tested on the state this script makes. Files it writes
# (the bulk body, a request to try) go to <work-dir>, not /tmp.
set -euo pipefail
url=$1
corpus=$2
work=$3
demo=$(dirname "$corpus")
index=manpages
mkdir -p "$work"

put_json() { curl -fsS -X "$1" "$url/$2" -H 'Content-Type: application/json' --data-binary "@$3"; }

put_json PUT _ingest/pipeline/fingerprints "$demo/fingerprints-pipeline.json" > /dev/null
curl -fsS -X DELETE "$url/$index?ignore_unavailable=true" > /dev/null
put_json PUT "$index" "$demo/manpages-index.json" > /dev/null

# Each JSONL line starts with its "id", which becomes the document's _id.
sed -E 's/^\{"id": "([^"]*)"/{"index":{"_id":"\1"}}\n&/' "$corpus" > "$work/demo.bulk"
response=$(curl -fsS -X POST "$url/$index/_bulk?refresh=true" -H 'Content-Type: application/x-ndjson' \
    --data-binary "@$work/demo.bulk")
rm -f "$work/demo.bulk"
case "$response" in
    *'"errors":false'*) ;;
    *) echo "demo: bulk load reported errors: ${response:0:2000}" >&2; exit 1 ;;
esac
count=$(curl -fsS "$url/$index/_count" | sed -E 's/.*"count":([0-9]+).*/\1/')
echo "demo: loaded $count man pages through the [fingerprints] pipeline into [$index], sorted by simhash"
echo "      (several Debian releases of one page are near-duplicates: same \"group\", close simhashes)"

# which pages are copies of each other: clusters written into the documents as text_dup.{cluster,size,representative},
# the newest release of each page its representative
clusters=$(put_json POST "$index/_near_dup_clusters?refresh=true" "$demo/manpages-clusters.json")
echo "demo: _near_dup_clusters: $(echo "$clusters" | sed -E 's/.*"clusters":([0-9]+).*"updated":([0-9]+).*/\1 clusters, \2 documents assigned/')"

# a search pipeline that folds near-duplicate hits into the best-ranked copy (see the README)
put_json PUT _search/pipeline/dedup "$demo/dedup-pipeline.json" > /dev/null

# a page that has several releases in the corpus, for the examples
example_id=$(grep -m 1 '"id": "coreutils_9.1-1_amd64/man1/' "$corpus" | sed -E 's/^\{"id": "([^"]*)".*/\1/')
example_id_in_url=${example_id//\//%2F}
# ...and a text: that page as it might be re-posted, with its release line edited (the JSONL holds
# it JSON-escaped already, so it goes into the request as it is)
like_text_request="$work/like-text.json"
page_text=$(grep -m 1 '"id": "coreutils_9.1-1_amd64/man1/chgrp.1"' "$corpus" | sed -E 's/.*"text": ("([^"\\]|\\.)*").*/\1/' \
    | sed -E 's/GNU coreutils [0-9.]+/GNU coreutils 9.99/g')
printf '{"query": {"near_duplicate": {"field": "text_fp.simhash", "like": {"text": %s}, "max_distance": 8}}}' "$page_text" \
    > "$like_text_request"

cat <<EXAMPLES

Try (the README's recipes run against this demo as written; the demo's _ids contain '/': in a URL
path write it as %2F, e.g. GET $index/_doc/$example_id_in_url):
  curl -s '$url/_cat/plugins?v'
  curl -s '$url/$index/_search?pretty' -H 'Content-Type: application/json' -d '{"query": {"match": {"text": "copy files"}}, "_source": ["id", "group"]}'
  curl -s '$url/$index/_search?pretty' -H 'Content-Type: application/json' -d '{"size": 0, "aggs": {"copies": {"terms": {"field": "group", "min_doc_count": 2, "size": 5}}}}'
  # other releases of one man page, found by its fingerprint (the page itself is excluded):
  curl -s '$url/$index/_search?pretty&filter_path=hits.hits._id,hits.hits._score' -H 'Content-Type: application/json' -d '{"query": {"near_duplicate": {"field": "text_fp.simhash", "like": {"_id": "$example_id"}, "max_distance": 6}}}'
  # every page whose 3-word shingles overlap this one's by Jaccard >= 0.5, scored by that exact Jaccard:
  curl -s '$url/$index/_search?pretty&filter_path=hits.hits._id,hits.hits._score' -H 'Content-Type: application/json' -d '{"query": {"near_duplicate": {"field": "text_fp.minhash", "like": {"_id": "$example_id", "_index": "$index"}, "min_similarity": 0.5}}}'
  # near-duplicates of a text (chgrp(1) with its release line edited), fingerprinted by the index's own pipeline:
  curl -s '$url/$index/_search?pretty&filter_path=hits.hits._id,hits.hits._score' -H 'Content-Type: application/json' -d @$like_text_request
  # one search without, then with the [dedup] pipeline: releases of one page fold into the best-ranked one (fields._near_dup.*)
  curl -s '$url/$index/_search?pretty&filter_path=hits.hits._id,hits.hits._source,hits.hits.fields' -H 'Content-Type: application/json' -d '{"query": {"match": {"text": "copy files"}}, "_source": ["group"], "docvalue_fields": ["text_fp.simhash"]}'
  curl -s '$url/$index/_search?pretty&search_pipeline=dedup&filter_path=hits.hits._id,hits.hits._source,hits.hits.fields,ext' -H 'Content-Type: application/json' -d '{"query": {"match": {"text": "copy files"}}, "_source": ["group"], "docvalue_fields": ["text_fp.simhash"]}'
  # the clusters _near_dup_clusters wrote: one hit per cluster with stock collapse (its copies as inner hits) ...
  curl -s '$url/$index/_search?pretty&filter_path=hits.hits._id,hits.hits._source,hits.hits.inner_hits.copies.hits.hits._id' -H 'Content-Type: application/json' -d '{"query": {"bool": {"must": {"match": {"text": "copy files"}}, "filter": {"exists": {"field": "text_dup.cluster"}}}}, "_source": ["text_dup"], "collapse": {"field": "text_dup.cluster", "inner_hits": {"name": "copies", "size": 5, "_source": false}}}'
  # ... or any search without the copies:
  curl -s '$url/$index/_search?pretty&filter_path=hits.hits._id' -H 'Content-Type: application/json' -d '{"query": {"bool": {"must": {"match": {"text": "copy files"}}, "must_not": {"term": {"text_dup.representative": false}}}}}'
  # run it again (nothing changes), as a task you can watch in GET _tasks:
  curl -s -X POST '$url/$index/_near_dup_clusters?wait_for_completion=false' -H 'Content-Type: application/json' -d '{"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "text_dup", "representative": {"sort": [{"version": "desc"}, "_id"]}}'
  # what the plugin keeps in memory, and the work it did:
  curl -s '$url/_plugins/neardup/stats?pretty'
  # fingerprint order puts near-duplicates next to each other:
  curl -s '$url/$index/_search?pretty&filter_path=hits.hits._id,hits.hits.fields' -H 'Content-Type: application/json' -d '{"size": 12, "_source": false, "docvalue_fields": ["text_fp.simhash"], "sort": [{"text_fp.simhash": "asc"}]}'
  # exact duplicates share a content hash:
  curl -s '$url/$index/_search?pretty&filter_path=aggregations' -H 'Content-Type: application/json' -d '{"size": 0, "aggs": {"exact_copies": {"terms": {"field": "text_fp.content_hash", "min_doc_count": 2, "size": 5}}}}'
  # what the processor writes:
  curl -s '$url/_ingest/pipeline/fingerprints/_simulate?pretty' -H 'Content-Type: application/json' -d '{"docs": [{"_source": {"text": "cp - copy files and directories"}}]}'
EXAMPLES
