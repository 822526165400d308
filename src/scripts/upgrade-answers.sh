#!/usr/bin/env bash
# What `release.sh plugin-upgrade` asks a node, so that the answers of an index made by an earlier build of the
# plugin can be compared before and after the plugin is upgraded in place (issue 32: "No upgrade changes an
# existing index's answers"). Each step is checked; the first that does not answer as expected exits non-zero.
#
#   upgrade-answers.sh <url> <corpus.jsonl> load           the pipeline and two indices of the corpus loaded
#                                                          through it in four bulks (so several segments a shard):
#                                                          upgrade-stored (stored _source) and upgrade-derived
#                                                          (index.derived_source.enabled); each must have no
#                                                          index.neardup.fingerprint_format (format 1)
#   upgrade-answers.sh <url> <corpus.jsonl> record <dir>   the answers about the corpus documents, one file each
#                                                          (below), into <dir>
#   upgrade-answers.sh <url> <corpus.jsonl> add            new documents (copies of 20 corpus texts, a line
#                                                          added; field `added`) into both through the pipeline:
#                                                          each must be format 1 (minhash.value in _source)
#   upgrade-answers.sh <url> <corpus.jsonl> record-added <dir>
#                                                          the answers about them: their fingerprints, their
#                                                          near-duplicates (each must find its original), and a
#                                                          clusters dry run of the index they are in
#   upgrade-answers.sh <url> <corpus.jsonl> merge          force-merges both to one segment a shard
#   upgrade-answers.sh <url> <corpus.jsonl> remove-added   deletes the new documents again, so that `record`
#                                                          answers about the corpus as before
#   upgrade-answers.sh <url> <corpus.jsonl> new-index      a new index through the same pipeline: it must get
#                                                          index.neardup.fingerprint_format 2 and documents without
#                                                          minhash.value, where 20 copies find their originals;
#                                                          then it is deleted
#   upgrade-answers.sh compare <expected-dir> <actual-dir> every file of the one must equal the other's
#
# The answers recorded for each index (JSON, one line an item, keys sorted): every document's text_fp from
# _source and its docvalue_fields; near_duplicate with like._id for every document (minhash at min_similarity 0.5
# and 0.8, at 0.5 by the signatures' estimate, simhash within 6 bits: hits and scores, ties by _id); like.text
# of six corpus texts without their first line (minhash and simhash); _near_dup_clusters dry runs (minhash 0.8,
# simhash; without `took`); _settings and _mapping. Needs curl and jq.
set -euo pipefail

label=upgrade-answers
# shellcheck source=http-checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/http-checks.sh" # fail, request, check

if [ "${1:-}" = compare ]; then
    [ $# -eq 3 ] || fail "usage: upgrade-answers.sh compare <expected-dir> <actual-dir>"
    expected=$2 actual=$3 differing=0
    [ -n "$(ls -A "$expected")" ] || fail "nothing recorded in $expected"
    for file in "$expected"/*; do
        name=$(basename "$file")
        if [ ! -f "$actual/$name" ]; then
            echo "upgrade-answers: $name: recorded in $expected, missing in $actual" >&2
            differing=$((differing + 1))
        elif ! cmp -s "$file" "$actual/$name"; then
            changes=$( (diff "$file" "$actual/$name" || true) | grep '^[<>]' | cut -c 1-400)
            echo "upgrade-answers: $name differs ($(grep -c '^<' <<< "$changes") of $(wc -l < "$file") lines;" \
                "< before, > after, the first 8, cut at 400 characters):" >&2
            head -n 8 <<< "$changes" >&2
            differing=$((differing + 1))
        fi
    done
    [ "$differing" = 0 ] || fail "$differing of $(ls "$expected" | wc -l) answers differ from those in $expected"
    echo "upgrade-answers: all $(ls "$expected" | wc -l) answers identical to those in $expected"
    exit 0
fi

[ $# -ge 3 ] || fail "usage: upgrade-answers.sh <url> <corpus.jsonl> load|record <dir>|add|record-added <dir>|merge|remove-added|new-index, or compare <expected-dir> <actual-dir>"
url=$1 corpus=$2 mode=$3
[ -f "$corpus" ] || fail "no corpus at $corpus"
indices=(upgrade-stored upgrade-derived)
pipeline=upgrade-fingerprints

index_body() {
    local derived=$1
    jq -n --arg pipeline "$pipeline" --argjson derived "$derived" '{
      settings: ({number_of_shards: 2, number_of_replicas: 0, "index.default_pipeline": $pipeline}
                 + (if $derived then {"index.derived_source.enabled": true} else {} end)),
      mappings: {properties: {
        id: {type: "keyword"}, group: {type: "keyword"}, package: {type: "keyword"}, version: {type: "keyword"},
        added: {type: "boolean"}, text: {type: "text"},
        text_fp: {properties: {simhash: {type: "simhash"}, minhash: {type: "minhash"}, content_hash: {type: "keyword"}}}}}}'
}

# bulk <index> <jsonl>: indexes each document (its "id" as _id) through the index's default pipeline
bulk() {
    local index=$1 docs=$2 body answer
    body=$(mktemp)
    jq -c '{index: {_id: .id}}, .' "$docs" > "$body"
    answer=$(request POST "/$index/_bulk?refresh=true" "@$body" application/x-ndjson) || { rm -f "$body"; exit 1; }
    rm -f "$body"
    [ "$(jq -r '.errors' <<< "$answer")" = false ] || fail "bulk into $index reported errors: ${answer:0:2000}"
}

# The documents `add` makes: 20 corpus texts of over 3,000 characters, each with a line added; "original" is
# the corpus document's id (not indexed).
added_docs() {
    jq -c -n 'limit(20; inputs | select(.text | length > 3000))
        | {id: ("added/" + .id), original: .id, group, package, version: "added", added: true,
           text: (.text + "\nNOTES\n       Indexed again after the plugin upgrade.\n")}' "$corpus"
}

# msearch <file> <index> <jq filter of a JSONL line giving near_duplicate's parameters> <lines>: for every line
# (its "id" as like), the near_duplicate query built from it and its hits: total, [_id, _score] by score, ties by _id
msearch() {
    local out=$1 index=$2 params=$3 lines=$4 body answer
    body=$(mktemp)
    jq -c --arg index "$index" "{index: \$index}, {size: 400, _source: false, query: {near_duplicate: ($params)}}" \
        "$lines" > "$body"
    answer=$(request POST /_msearch "@$body" application/x-ndjson) || { rm -f "$body"; exit 1; }
    rm -f "$body"
    jq -e '[.responses[] | select(.error)] | length == 0' <<< "$answer" > /dev/null \
        || fail "_msearch on $index with $params: $(jq -c '[.responses[] | select(.error) | .error.root_cause[0].reason // .error.reason] | unique' <<< "$answer" | head -c 2000)"
    jq -c -S --slurpfile lines "$lines" '[$lines, .responses] | transpose[]
        | {like: .[0].id, total: .[1].hits.total.value, hits: (.[1].hits.hits | map([._id, ._score]) | sort_by(-.[1], .[0]))}' \
        <<< "$answer" > "$out"
    [ "$(wc -l < "$out")" = "$(wc -l < "$lines")" ] || fail "_msearch on $index answered $(wc -l < "$out") of $(wc -l < "$lines") searches"
}

# sources <file> <index> <query>: every matching document's text_fp from _source and its docvalue_fields, by id
sources() {
    local out=$1 index=$2 query=$3
    request POST "/$index/_search" "{\"size\": 1000, \"query\": $query, \"sort\": [{\"id\": \"asc\"}], \"_source\": [\"text_fp\"],
        \"docvalue_fields\": [\"text_fp.simhash\", \"text_fp.minhash\"]}" \
        | jq -c -S '.hits.hits[] | {_id, text_fp: ._source.text_fp, fields}' > "$out"
}

# clusters <file> <index> <body>: a _near_dup_clusters dry run's report, without its time
clusters() {
    request POST "/$2/_near_dup_clusters?dry_run=true" "$3" | jq -c -S 'del(.took)' > "$1"
    jq -e '.failures == []' "$1" > /dev/null || fail "_near_dup_clusters on $2 with $3 reported failures: $(head -c 2000 "$1")"
}

# finds_originals <index> <query kind> <added docs> <msearch answers about them>: each found its original
finds_originals() {
    local found
    found=$(jq -n --slurpfile docs "$3" --slurpfile answers "$4" \
        '[[$docs, $answers] | transpose[] | select(.[0].original as $o | any(.[1].hits[]; .[0] == $o))] | length')
    [ "$found" = 20 ] || fail "$1: near_duplicate ($2) finds the original of $found of the 20 new documents (answers: $4)"
    echo "upgrade-answers: ok: $1: near_duplicate ($2) finds the original of each of the 20 new documents"
}

has_no_format() {
    local index=$1 settings
    settings=$(request GET "/$index/_settings")
    check "$index has no index.neardup.fingerprint_format (format 1, as before formats were recorded)" \
        ".[\"$index\"].settings.index.neardup.fingerprint_format == null" "$settings"
}

case "$mode" in
    load)
        request PUT "/_ingest/pipeline/$pipeline" '{"processors": [{"near_dup_fingerprint": {"field": "text"}}]}' > /dev/null
        parts=$(mktemp -d)
        for part in 0 1 2 3; do awk -v part="$part" 'NR % 4 == part' "$corpus" > "$parts/$part.jsonl"; done
        for index in "${indices[@]}"; do
            request DELETE "/$index?ignore_unavailable=true" > /dev/null
            derived=false
            [ "$index" = upgrade-derived ] && derived=true
            request PUT "/$index" "$(index_body "$derived")" > /dev/null
            for part in 0 1 2 3; do bulk "$index" "$parts/$part.jsonl"; done
            count=$(request GET "/$index/_count")
            check "$index holds the $(wc -l < "$corpus") corpus documents" ".count == $(wc -l < "$corpus")" "$count"
            has_no_format "$index"
        done
        rm -rf "$parts"
        ;;
    record)
        [ $# -eq 4 ] || fail "usage: upgrade-answers.sh <url> <corpus.jsonl> record <dir>"
        dir=$4
        mkdir -p "$dir"
        # six corpus texts, their first line left out, for like.text
        texts=$(mktemp)
        awk 'NR % 67 == 1' "$corpus" | jq -c '{id, text: (.text | split("\n") | .[1:] | join("\n"))}' > "$texts"
        for index in "${indices[@]}"; do
            has_no_format "$index"
            sources "$dir/$index.sources" "$index" '{"match_all": {}}'
            [ "$(wc -l < "$dir/$index.sources")" = "$(wc -l < "$corpus")" ] || fail "$index returned $(wc -l < "$dir/$index.sources") of the corpus documents"
            msearch "$dir/$index.like-id.minhash-0.5" "$index" '{field: "text_fp.minhash", min_similarity: 0.5, like: {_id: .id}}' "$corpus"
            msearch "$dir/$index.like-id.minhash-0.8" "$index" '{field: "text_fp.minhash", min_similarity: 0.8, like: {_id: .id}}' "$corpus"
            msearch "$dir/$index.like-id.minhash-0.5-estimate" "$index" \
                '{field: "text_fp.minhash", min_similarity: 0.5, verification: "estimate", like: {_id: .id}}' "$corpus"
            msearch "$dir/$index.like-id.simhash-6" "$index" '{field: "text_fp.simhash", max_distance: 6, like: {_id: .id}}' "$corpus"
            msearch "$dir/$index.like-text.minhash-0.5" "$index" '{field: "text_fp.minhash", min_similarity: 0.5, like: {text: .text}}' "$texts"
            msearch "$dir/$index.like-text.simhash-6" "$index" '{field: "text_fp.simhash", max_distance: 6, like: {text: .text}}' "$texts"
            clusters "$dir/$index.clusters.minhash-0.8" "$index" '{"field": "text_fp.minhash", "min_similarity": 0.8, "target_field": "text_dup"}'
            clusters "$dir/$index.clusters.simhash" "$index" '{"field": "text_fp.simhash", "target_field": "text_dup"}'
            request GET "/$index/_settings" | jq -c -S '.[].settings' > "$dir/$index.settings"
            request GET "/$index/_mapping" | jq -c -S '.[].mappings' > "$dir/$index.mapping"
        done
        rm -f "$texts"
        echo "upgrade-answers: recorded $(ls "$dir" | wc -l) answers in $dir"
        ;;
    add)
        docs=$(mktemp)
        added_docs | jq -c 'del(.original)' > "$docs"
        for index in "${indices[@]}"; do
            bulk "$index" "$docs"
            hits=$(request POST "/$index/_search" '{"size": 100, "query": {"term": {"added": true}}, "_source": ["text_fp"]}')
            check "$index: the 20 new documents are format 1 (a MinHash signature in _source beside the shingles)" \
                '.hits.total.value == 20 and all(.hits.hits[]; ._source.text_fp.minhash | has("value") and has("shingles"))' "$hits"
        done
        rm -f "$docs"
        ;;
    record-added)
        [ $# -eq 4 ] || fail "usage: upgrade-answers.sh <url> <corpus.jsonl> record-added <dir>"
        dir=$4
        mkdir -p "$dir"
        docs=$(mktemp)
        added_docs > "$docs"
        for index in "${indices[@]}"; do
            sources "$dir/$index.added.sources" "$index" '{"term": {"added": true}}'
            msearch "$dir/$index.added.like-id.minhash-0.8" "$index" '{field: "text_fp.minhash", min_similarity: 0.8, like: {_id: .id}}' "$docs"
            msearch "$dir/$index.added.like-id.minhash-0.5-estimate" "$index" \
                '{field: "text_fp.minhash", min_similarity: 0.5, verification: "estimate", like: {_id: .id}}' "$docs"
            msearch "$dir/$index.added.like-id.simhash-6" "$index" '{field: "text_fp.simhash", max_distance: 6, like: {_id: .id}}' "$docs"
            for kind in minhash-0.8 minhash-0.5-estimate simhash-6; do
                finds_originals "$index" "$kind" "$docs" "$dir/$index.added.like-id.$kind"
            done
            clusters "$dir/$index.added.clusters.minhash-0.8" "$index" '{"field": "text_fp.minhash", "min_similarity": 0.8, "target_field": "text_dup"}'
        done
        rm -f "$docs"
        ;;
    merge)
        for index in "${indices[@]}"; do
            request POST "/$index/_forcemerge?max_num_segments=1" > /dev/null
            request POST "/$index/_refresh" > /dev/null
            segments=$(request GET "/_cat/segments/$index?format=json&h=shard,segment")
            check "$index: one segment a shard after _forcemerge" '(group_by(.shard) | length) == 2 and length == 2' "$segments"
        done
        ;;
    remove-added)
        for index in "${indices[@]}"; do
            deleted=$(request POST "/$index/_delete_by_query?refresh=true" '{"query": {"term": {"added": true}}}')
            check "$index: the 20 new documents deleted" '.deleted == 20 and .failures == []' "$deleted"
        done
        ;;
    new-index)
        index=upgrade-new
        docs=$(mktemp) originals=$(mktemp) copies=$(mktemp) answers=$(mktemp)
        added_docs > "$docs"
        jq -c --slurpfile corpus "$corpus" '.original as $o | $corpus[] | select(.id == $o)' "$docs" > "$originals"
        jq -c 'del(.original)' "$docs" > "$copies"
        request DELETE "/$index?ignore_unavailable=true" > /dev/null
        request PUT "/$index" "$(index_body false)" > /dev/null
        bulk "$index" "$originals"
        bulk "$index" "$copies"
        settings=$(request GET "/$index/_settings")
        check "a new index gets index.neardup.fingerprint_format 2" ".[\"$index\"].settings.index.neardup.fingerprint_format == \"2\"" "$settings"
        hits=$(request POST "/$index/_search" '{"size": 100, "_source": ["text_fp"]}')
        check "its 40 documents are format 2 (shingles, no MinHash signature in _source)" \
            '.hits.total.value == 40 and all(.hits.hits[]; ._source.text_fp.minhash | (has("value") | not) and has("shingles"))' "$hits"
        msearch "$answers" "$index" '{field: "text_fp.minhash", min_similarity: 0.8, like: {_id: .id}}' "$docs"
        finds_originals "$index" minhash-0.8 "$docs" "$answers"
        request DELETE "/$index" > /dev/null
        rm -f "$docs" "$originals" "$copies" "$answers"
        ;;
    *) fail "unknown step [$mode]" ;;
esac
