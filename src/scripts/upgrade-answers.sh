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
#   upgrade-answers.sh <url> <corpus.jsonl> stream-load    (on the previous build) an index template with a data stream
#                                                          and the same mapping and pipeline; upgrade-stream gets the
#                                                          corpus's first 170 documents, its first generation: no
#                                                          index.neardup.fingerprint_format, format 1 documents
#   upgrade-answers.sh <url> <corpus.jsonl> stream-rollover
#                                                          (on today's build) upgrade-stream rolled over (_rollover):
#                                                          its second generation is format 2 and gets the rest of the
#                                                          corpus and 30 copies (a line added; field copy_of): of 20
#                                                          texts of the first generation, then of 10 of the second,
#                                                          through a pipeline whose near_dup_lookup (minhash 0.8) looks
#                                                          into the stream; each copy must be flagged. Then
#                                                          upgrade-stream-f2, the same documents in the same
#                                                          generations, all format 2
#   upgrade-answers.sh <url> <corpus.jsonl> stream-record <stream> <dir>
#                                                          the answers about a stream (below), its backing indices
#                                                          named by generation ("generation 2"), so that the two
#                                                          streams' answers can be compared
#   upgrade-answers.sh compare <expected-dir> <actual-dir> [<expected's name> <actual's name>]
#                                                          every file of the one must equal the other's
#
# The answers recorded for each index (JSON, one line an item, keys sorted): every document's text_fp from
# _source and its docvalue_fields; near_duplicate with like._id for every document (minhash at min_similarity 0.5
# and 0.8, at 0.5 by the signatures' estimate, simhash within 6 bits: hits and scores, ties by _id); like.text
# of six corpus texts without their first line (minhash and simhash); _near_dup_clusters dry runs (minhash 0.8,
# simhash; without `took`, `matches` and the bytes held, see clusters()); _settings and _mapping. About a data stream: what the
# lookup wrote (text_dup from _source: duplicate_of and its index, cluster and its index, similarity);
# near_duplicate with like._id (and _index) of every document of both generations over the stream (minhash at 0.5
# and 0.8, exact verification: hits with their generation, and scores); like.text of the six texts;
# _near_dup_clusters dry runs over the stream (minhash 0.5, 0.8); near_dup_collapse (minhash 0.8, by the shingle
# sets in _source) over a search of every document, sorted by id: the kept hits with the ids and generations folded
# into each. Needs curl and jq (1.6 or newer).
set -euo pipefail

label=upgrade-answers
# shellcheck source=http-checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/http-checks.sh" # fail, request, check

if [ "${1:-}" = compare ]; then
    [ $# -eq 3 ] || [ $# -eq 5 ] || fail "usage: upgrade-answers.sh compare <expected-dir> <actual-dir> [<expected's name> <actual's name>]"
    expected=$2 actual=$3 before=${4:-before} after=${5:-after} differing=0
    [ -n "$(ls -A "$expected")" ] || fail "nothing recorded in $expected"
    for file in "$expected"/*; do
        name=$(basename "$file")
        if [ ! -f "$actual/$name" ]; then
            echo "upgrade-answers: $name: recorded in $expected, missing in $actual" >&2
            differing=$((differing + 1))
        elif ! cmp -s "$file" "$actual/$name"; then
            changes=$( (diff "$file" "$actual/$name" || true) | grep '^[<>]' | cut -c 1-400)
            echo "upgrade-answers: $name differs ($(grep -c '^<' <<< "$changes") of $(wc -l < "$file") lines;" \
                "< $before, > $after, the first 8, cut at 400 characters):" >&2
            head -n 8 <<< "$changes" >&2
            differing=$((differing + 1))
        fi
    done
    [ "$differing" = 0 ] || fail "$differing of $(ls "$expected" | wc -l) answers differ from those in $expected"
    echo "upgrade-answers: all $(ls "$expected" | wc -l) answers identical to those in $expected"
    exit 0
fi

[ $# -ge 3 ] || fail "usage: upgrade-answers.sh <url> <corpus.jsonl> load|record <dir>|add|record-added <dir>|merge|remove-added|new-index|stream-load|stream-rollover|stream-record <stream> <dir>, or compare <expected-dir> <actual-dir> [<names>]"
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

# bulk <index> <jsonl> [<op> [<parameters>]]: indexes each document (its "id" as _id) through the index's default
# pipeline (or the one named in <parameters>, e.g. &pipeline=p); <op> is index (default) or create (a data stream)
bulk() {
    local index=$1 docs=$2 op=${3:-index} parameters=${4:-} body answer
    body=$(mktemp)
    jq -c --arg op "$op" '{($op): {_id: .id}}, .' "$docs" > "$body"
    answer=$(request POST "/$index/_bulk?refresh=true$parameters" "@$body" application/x-ndjson) || { rm -f "$body"; exit 1; }
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

# A jq function for the answers about a data stream ($stream): each name of one of its backing indices
# (.ds-<stream>-000002) becomes its generation ("generation 2"), so that two streams holding the same documents in
# the same generations give the same answers; a backing index of another stream is an error.
generations='def generations: walk(if type == "string" and startswith(".ds-") then
    (ltrimstr(".ds-" + $stream + "-")) as $number
    | if startswith(".ds-" + $stream + "-") and ($number | test("^[0-9]+$")) then "generation \($number | tonumber)"
      else error("\(.) is not a backing index of [\($stream)]") end
  else . end);'

# msearch <file> <index> <jq filter of a JSONL line giving near_duplicate's parameters> <lines> [<stream>]: for every
# line (its "id" as like), the near_duplicate query built from it and its hits: total, [_id, _score] by score, ties by
# _id; searching a data stream (<stream>), [generation, _id, _score]
msearch() {
    local out=$1 index=$2 params=$3 lines=$4 stream=${5:-} hit='[._id, ._score]' body answer
    [ -z "$stream" ] || hit='[._index, ._id, ._score]'
    body=$(mktemp)
    jq -c --arg index "$index" "{index: \$index}, {size: 400, _source: false, query: {near_duplicate: ($params)}}" \
        "$lines" > "$body"
    answer=$(request POST /_msearch "@$body" application/x-ndjson) || { rm -f "$body"; exit 1; }
    rm -f "$body"
    jq -e '[.responses[] | select(.error)] | length == 0' <<< "$answer" > /dev/null \
        || fail "_msearch on $index with $params: $(jq -c '[.responses[] | select(.error) | .error.root_cause[0].reason // .error.reason] | unique' <<< "$answer" | head -c 2000)"
    # a shard that fails leaves the others' hits: a 200 that would read as "no duplicate there"
    jq -e '[.responses[] | select(._shards.failed > 0)] | length == 0' <<< "$answer" > /dev/null \
        || fail "_msearch on $index with $params: failed shards: $(jq -c '[.responses[] | ._shards.failures[]?.reason.reason] | unique' <<< "$answer" | head -c 2000)"
    jq -c -S --slurpfile lines "$lines" --arg stream "$stream" "$generations"'[$lines, .responses] | transpose[]
        | {like: .[0].id, total: .[1].hits.total.value, hits: (.[1].hits.hits | map('"$hit"') | sort_by(-last, .))}
        | if $stream == "" then . else generations end' \
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

# clusters <file> <index> <body> [<stream>]: a _near_dup_clusters dry run's report, without its time, its memory and
# without `matches`, which is printed; on a data stream (<stream>), its backing indices by generation. `matches` counts the
# pairs the joins reported, which depends on how the shards were joined, not only on the documents: shards of one node
# and one format are joined as one reader, where single linkage skips a pair already connected, and between such
# groups every verified pair is reported (docs/clusters.md). So a build from before the shards of a node were joined
# together (9efb91c) reports more pairs for the same clusters (116 against 104, minhash 0.8), and so does a stream of
# two formats (two groups) against one of format 2 alone. `coordinator_bytes` and `data_node_bytes` (what the run held,
# issue 44) are left out too: a cost, not an answer, and absent from the reports of builds before them.
clusters() {
    local report
    report=$(request POST "/$2/_near_dup_clusters?dry_run=true" "$3")
    jq -e '.failures == []' <<< "$report" > /dev/null || fail "_near_dup_clusters on $2 with $3 reported failures: ${report:0:2000}"
    jq -c -S --arg stream "${4:-}" "$generations"'del(.took, .matches, .coordinator_bytes, .data_node_bytes) | if $stream == "" then . else generations end' \
        <<< "$report" > "$1"
    echo "$label: $2: _near_dup_clusters $3: $(jq '.matches' <<< "$report") pairs reported (matches, not compared)"
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

# The data streams: $stream is made by the previous build (its first generation format 1), rolled over after the
# upgrade (its second format 2); $stream_f2 holds the same documents in the same generations, made after the upgrade
# (both format 2). Both take the indices' mapping and default pipeline, with @timestamp and the lookup's target.
stream=upgrade-stream
stream_f2=upgrade-stream-f2
lookup_pipeline=upgrade-lookup
# the first generation is the corpus's first this many documents; the second the rest, and copies
stream_split=170

stream_template() {
    index_body false | jq -c --arg a "$stream" --arg b "$stream_f2" '{index_patterns: [$a, $b], data_stream: {}, priority: 100,
        template: (.mappings.properties += {"@timestamp": {type: "date"}, copy_of: {type: "keyword"},
            text_dup: {properties: {cluster: {type: "keyword"}, cluster_index: {type: "keyword"},
                duplicate_of: {type: "keyword"}, duplicate_of_index: {type: "keyword"},
                similarity: {type: "float"}, representative: {type: "boolean"}}}})}'
}

# stream_documents <generation>: the first, or the second: the rest of the corpus, then copies (a line added; copy_of
# names the original) of the first 20 texts of over 3,000 characters of the first generation and the first 10 of
# the second, after their originals
stream_documents() {
    jq -c -s --argjson split "$stream_split" --argjson generation "$1" '
        def copies($n): map(select(.text | length > 3000)) | .[:$n]
            | map({id: ("copy/" + .id), copy_of: .id, group, package, version: "copied",
                   text: (.text + "\nNOTES\n       Indexed again after the plugin upgrade.\n")});
        (if $generation == 1 then .[:$split] else .[$split:] + (.[:$split] | copies(20)) + (.[$split:] | copies(10)) end)[]
        | . + {"@timestamp": "2026-11-2\(5 + $generation)T00:00:00Z"}' "$corpus"
}

# backing_index <stream> <generation>: its name, checked against the stream's list
backing_index() {
    local name
    name=$(printf '.ds-%s-%06d' "$1" "$2")
    request GET "/_data_stream/$1" | jq -e --arg name "$name" 'any(.data_streams[0].indices[]; .index_name == $name)' > /dev/null \
        || fail "data stream $1 has no backing index $name"
    echo "$name"
}

# stream_format_is <stream> <generation> <1|2>: the backing index's setting (none for 1, from before formats were
# recorded) and its documents' fingerprints (format 1: a MinHash signature in _source beside the shingles)
stream_format_is() {
    local index setting value hits
    index=$(backing_index "$1" "$2")
    setting=null value=true
    [ "$3" = 1 ] || { setting='"2"'; value=false; }
    check "$1 generation $2 ($index) has index.neardup.fingerprint_format $setting" \
        ".[\"$index\"].settings.index.neardup.fingerprint_format == $setting" "$(request GET "/$index/_settings")"
    hits=$(request POST "/$index/_search" '{"size": 1000, "_source": ["text_fp"]}')
    check "its documents are format $3" \
        ".hits.total.value > 0 and all(.hits.hits[]; ._source.text_fp.minhash | has(\"shingles\") and has(\"value\") == $value)" "$hits"
}

# stream_generation_1 <stream>: the stream made (by its first document) with its first generation
stream_generation_1() {
    local docs count
    docs=$(mktemp)
    stream_documents 1 > "$docs"
    bulk "$1" "$docs" create
    count=$(request GET "/$1/_count")
    check "$1 holds the $(wc -l < "$docs") documents of its first generation" ".count == $(wc -l < "$docs")" "$count"
    rm -f "$docs"
}

# stream_generation_2 <stream>: rolled over (the core _rollover API), the second generation indexed through the
# lookup pipeline, which looks up into the stream (the document's own _index)
stream_generation_2() {
    local docs rolled answer
    docs=$(mktemp)
    stream_documents 2 > "$docs"
    rolled=$(request POST "/$1/_rollover")
    check "$1 rolled over to its second generation" ".rolled_over == true and .new_index == \"$(printf '.ds-%s-%06d' "$1" 2)\"" "$rolled"
    bulk "$1" "$docs" create "&pipeline=$lookup_pipeline"
    answer=$(request POST "/$1/_search" '{"size": 1000, "query": {"exists": {"field": "copy_of"}}, "_source": ["copy_of", "text_dup"]}')
    check "$1: the lookup flags each of the 30 copies (a duplicate_of in another generation or its own)" \
        '.hits.total.value == 30 and all(.hits.hits[]; ._source.text_dup.duplicate_of != null and ._source.text_dup.duplicate_of_index != null)' "$answer"
    echo "$label: $1: $(jq '[.hits.hits[] | select(._source.text_dup.duplicate_of == ._source.copy_of)] | length' <<< "$answer") of the 30 copies name their original (the others a document of the same text)"
    rm -f "$docs"
}

case "$mode" in
    stream-load)
        request PUT "/_ingest/pipeline/$pipeline" '{"processors": [{"near_dup_fingerprint": {"field": "text"}}]}' > /dev/null
        request DELETE "/_data_stream/$stream*" > /dev/null # both; a pattern that matches nothing is no error
        request PUT "/_index_template/upgrade-streams" "$(stream_template)" > /dev/null
        stream_generation_1 "$stream"
        stream_format_is "$stream" 1 1
        ;;
    stream-rollover)
        request PUT "/_ingest/pipeline/$lookup_pipeline" '{"processors": [{"near_dup_fingerprint": {"field": "text"}},
            {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.8, "target_field": "text_dup"}}]}' > /dev/null
        stream_format_is "$stream" 1 1
        stream_generation_2 "$stream"
        stream_format_is "$stream" 2 2
        stream_generation_1 "$stream_f2"
        stream_generation_2 "$stream_f2"
        stream_format_is "$stream_f2" 1 2
        stream_format_is "$stream_f2" 2 2
        ;;
    stream-record)
        [ $# -eq 5 ] || fail "usage: upgrade-answers.sh <url> <corpus.jsonl> stream-record <stream> <dir>"
        name=$4 dir=$5
        mkdir -p "$dir"
        documents=$(mktemp) texts=$(mktemp) folded=$(mktemp)
        # what the lookup wrote, and each document's backing index for like._id
        answer=$(request POST "/$name/_search" '{"size": 1000, "query": {"match_all": {}}, "sort": [{"id": "asc"}], "_source": ["text_dup"]}')
        jq -e '._shards.failed == 0' <<< "$answer" > /dev/null || fail "a search of $name: failed shards: ${answer:0:2000}"
        jq -c '.hits.hits[] | {id: ._id, index: ._index, text_dup: ._source.text_dup}' <<< "$answer" > "$documents"
        [ "$(wc -l < "$documents")" = $(($(wc -l < "$corpus") + 30)) ] || fail "$name returned $(wc -l < "$documents") documents"
        jq -c -S --arg stream "$name" "$generations"'generations' "$documents" > "$dir/stream.lookup"
        for similarity in 0.5 0.8; do
            msearch "$dir/stream.like-id.minhash-$similarity" "$name" \
                "{field: \"text_fp.minhash\", min_similarity: $similarity, like: {_id: .id, _index: .index}}" "$documents" "$name"
        done
        awk 'NR % 67 == 1' "$corpus" | jq -c '{id, text: (.text | split("\n") | .[1:] | join("\n"))}' > "$texts"
        msearch "$dir/stream.like-text.minhash-0.5" "$name" '{field: "text_fp.minhash", min_similarity: 0.5, like: {text: .text}}' "$texts" "$name"
        for similarity in 0.5 0.8; do
            clusters "$dir/stream.clusters.minhash-$similarity" "$name" \
                "{\"field\": \"text_fp.minhash\", \"min_similarity\": $similarity, \"target_field\": \"text_group\"}" "$name"
        done
        request PUT /_search/pipeline/upgrade-fold \
            '{"response_processors": [{"near_dup_collapse": {"field": "text_fp.minhash", "min_similarity": 0.8, "max_folded_ids": 1000}}]}' > /dev/null
        # the hits bring their shingle sets in _source (large: a file, not a variable)
        request POST "/$name/_search?search_pipeline=upgrade-fold" \
            '{"size": 1000, "query": {"match_all": {}}, "sort": [{"id": "asc"}], "_source": ["text_fp"]}' > "$folded"
        jq -e '._shards.failed == 0' "$folded" > /dev/null \
            || fail "a search of $name through near_dup_collapse: failed shards: $(jq -c ._shards "$folded" | head -c 2000)"
        jq -c -S --arg stream "$name" "$generations"'(.hits.hits[] | {_index, _id, fields}), .ext | generations' "$folded" \
            > "$dir/stream.collapse.minhash-0.8"
        jq -e -s 'last.near_dup_collapse.folded >= 30' "$dir/stream.collapse.minhash-0.8" > /dev/null \
            || fail "$name: near_dup_collapse folded fewer than the 30 copies: $(tail -n 1 "$dir/stream.collapse.minhash-0.8")"
        rm -f "$documents" "$texts" "$folded"
        echo "upgrade-answers: recorded $(ls "$dir" | wc -l) answers about $name in $dir"
        ;;
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
