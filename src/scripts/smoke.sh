#!/usr/bin/env bash
# The smoke run: what a user does first, against a running node with the plugin installed, each step
# checked. Used by release.sh on every OpenSearch version it can start a real node of.
#   smoke.sh <url> <expected-plugin-version> [all|load|check]     e.g. smoke.sh http://127.0.0.1:9282 3.8.0.0
#   load: the pipelines, the index and its documents; check: the rest, on what load left (release.sh
#   upgrade runs load on a node of one release and check on a node of a later one with its data); all: both
# Steps: _cat/plugins shows <expected-plugin-version>; the near_dup_fingerprint processor fingerprints
# four documents (two near-duplicates, two others); the near_duplicate query finds the copy by simhash and
# by MinHash and not the others; the near_dup_collapse response processor folds the copy; a
# _near_dup_clusters run writes one cluster of two; GET _plugins/neardup/stats counts the queries.
# With SMOKE_ANSWERS=<dir> (check and all), also writes the answers that must not depend on the OpenSearch release
# into <dir> as sorted JSON, one file a request: each document's fingerprints as the processor wrote them, both
# queries' hits with their scores, the collapsed hits, the clusters written (release.sh compares 2.19's with 3.8's).
# Needs curl and jq. Exits non-zero at the first step that does not answer as expected.
set -euo pipefail
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: smoke.sh <url> <expected-plugin-version> [all|load|check]" >&2; exit 2; }
url=$1
expected_version=$2
mode=${3:-all}
case "$mode" in all | load | check) ;; *) echo "smoke.sh: mode must be all, load or check, got [$mode]" >&2; exit 2 ;; esac
index=neardup-smoke
label="smoke[$url]"

# shellcheck source=http-checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/http-checks.sh" # fail, request, check

plugins=$(request GET '/_cat/plugins?format=json&h=component,version')
check "_cat/plugins lists opensearch-neardup $expected_version" \
    "any(.[]; .component == \"opensearch-neardup\" and .version == \"$expected_version\")" "$plugins"

if [ "$mode" != check ]; then
    # 60 pseudo-random words a text (a linear congruential sequence from <seed>); the copy changes its tenth
    # word, the other two are unrelated texts
    words=(alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec
        romeo sierra tango uniform victor whiskey xray yankee zulu)
    text() {
        local state=$1 i out=()
        for i in $(seq 0 59); do
            state=$(((state * 1103515245 + 12345) % 2147483648))
            out+=("${words[$((state / 65536 % 26))]}")
        done
        echo "${out[*]}"
    }
    original=$(text 7)
    read -r -a copy_words <<< "$original"
    copy_words[9]=changed
    copy="${copy_words[*]}"
    other=$(text 11)
    another=$(text 5)

    request PUT /_ingest/pipeline/neardup-smoke '{
      "processors": [{"near_dup_fingerprint": {"field": "text", "target_field": "text_fp"}}]}' > /dev/null
    request DELETE "/$index?ignore_unavailable=true" > /dev/null
    request PUT /_search/pipeline/neardup-smoke '{
      "request_processors": [{"near_dup_window": {"window": 50}}],
      "response_processors": [{"near_dup_collapse": {"field": "text_fp.simhash", "max_distance": 8}}]}' > /dev/null
    request PUT "/$index" '{
      "settings": {"number_of_shards": 1, "number_of_replicas": 0, "index.default_pipeline": "neardup-smoke"},
      "mappings": {"properties": {"text": {"type": "text"},
        "text_fp": {"properties": {"simhash": {"type": "simhash"}, "minhash": {"type": "minhash"},
                                   "content_hash": {"type": "keyword"}}}}}}' > /dev/null
    bulk=$(mktemp)
    for id in original copy other another; do
        printf '{"index":{"_id":"%s"}}\n{"text":"%s"}\n' "$id" "${!id}"
    done > "$bulk"
    answer=$(request POST "/$index/_bulk?refresh=true" "@$bulk" application/x-ndjson)
    rm -f "$bulk"
    check "bulk indexed 4 documents through the pipeline" '.errors == false and (.items | length) == 4' "$answer"

    doc=$(request GET "/$index/_doc/original")
    # a new index has fingerprint format 2: the shingle set and no signature
    check "the processor wrote a simhash, a MinHash shingle set (format 2: no signature) and a content hash" \
        '._source.text_fp | (.simhash.value | test("^[0-9a-f]{16}$")) and (.minhash | has("value") | not) and (.minhash.shingles | length > 0) and (.content_hash | length == 32)' "$doc"

fi
[ "$mode" != load ] || { echo "$label: loaded [$index]"; exit 0; }

answers=${SMOKE_ANSWERS:-}
# record <name> <jq filter> <json>: the part of an answer compared across releases, when SMOKE_ANSWERS is set
record() {
    [ -n "$answers" ] || return 0
    mkdir -p "$answers"
    jq -S "$2" <<< "$3" > "$answers/$1.json"
}
for id in original copy other another; do
    record "fingerprint-$id" '._source.text_fp' "$(request GET "/$index/_doc/$id")"
done

hits=$(request POST "/$index/_search" '{"query": {"near_duplicate": {"field": "text_fp.simhash", "like": {"_id": "original"}, "max_distance": 8}}}')
check "near_duplicate on the simhash finds the copy and not the others" '[.hits.hits[]._id] == ["copy"]' "$hits"
record simhash-hits '[.hits.hits[] | {_id, _score}]' "$hits"
hits=$(request POST "/$index/_search" '{"query": {"near_duplicate": {"field": "text_fp.minhash", "like": {"_id": "original"}, "min_similarity": 0.5}}}')
check "near_duplicate on the MinHash finds the copy and not the others" '[.hits.hits[]._id] == ["copy"]' "$hits"
record minhash-hits '[.hits.hits[] | {_id, _score}]' "$hits"

hits=$(request POST "/$index/_search?search_pipeline=neardup-smoke" '{"query": {"match_all": {}}, "docvalue_fields": ["text_fp.simhash"]}')
check "near_dup_collapse folds the copy: 3 hits of 4, one folded" \
    '(.hits.hits | length) == 3 and .ext.near_dup_collapse.folded == 1' "$hits"
record collapse '{hits: [.hits.hits[] | {_id, _score, fields}], collapse: .ext.near_dup_collapse}' "$hits"

clusters=$(request POST "/$index/_near_dup_clusters?refresh=true" '{"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "text_dup"}')
check "_near_dup_clusters finds one cluster of two" '.clusters == 1 and .clustered_documents == 2 and .failures == []' "$clusters"
hits=$(request POST "/$index/_search" '{"query": {"exists": {"field": "text_dup.cluster"}}, "_source": ["text_dup"]}')
check "the cluster is written into the original and the copy" \
    '([.hits.hits[]._id] | sort) == ["copy", "original"] and ([.hits.hits[]._source.text_dup.size] == [2, 2])' "$hits"
record clusters '[.hits.hits[] | {_id, text_dup: ._source.text_dup}] | sort_by(._id)' "$hits"

stats=$(request GET /_plugins/neardup/stats)
check "_plugins/neardup/stats counts the queries" \
    '[.. | objects | select(has("simhash_queries")) | .simhash_queries] | add >= 1' "$stats"

request DELETE "/$index" > /dev/null
echo "$label: the smoke run passed (opensearch-neardup $expected_version)"
