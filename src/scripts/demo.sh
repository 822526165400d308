#!/usr/bin/env bash
# Sets up the demo on a running node: the demo index loaded with the man-page corpus, then prints
# requests to try.   demo.sh <url> <corpus.jsonl>
set -euo pipefail
url=$1
corpus=$2
index=manpages

curl -fsS -X DELETE "$url/$index?ignore_unavailable=true" > /dev/null
curl -fsS -X PUT "$url/$index" -H 'Content-Type: application/json' -d '{
  "settings": {"number_of_shards": 1, "number_of_replicas": 0},
  "mappings": {"properties": {
    "id": {"type": "keyword"}, "group": {"type": "keyword"}, "package": {"type": "keyword"},
    "version": {"type": "keyword"}, "text": {"type": "text"}
  }}
}' > /dev/null

# Each JSONL line starts with its "id", which becomes the document's _id.
sed -E 's/^\{"id": "([^"]*)"/{"index":{"_id":"\1"}}\n&/' "$corpus" > "${TMPDIR:-/tmp}/neardup-demo.bulk"
response=$(curl -fsS -X POST "$url/$index/_bulk?refresh=true" -H 'Content-Type: application/x-ndjson' \
    --data-binary "@${TMPDIR:-/tmp}/neardup-demo.bulk")
rm -f "${TMPDIR:-/tmp}/neardup-demo.bulk"
case "$response" in
    *'"errors":false'*) ;;
    *) echo "demo: bulk load reported errors: ${response:0:2000}" >&2; exit 1 ;;
esac
count=$(curl -fsS "$url/$index/_count" | sed -E 's/.*"count":([0-9]+).*/\1/')
echo "demo: loaded $count man pages (several Debian releases of the same page are near-duplicates) into [$index]"

cat <<EXAMPLES

Try:
  curl -s '$url/_cat/plugins?v'
  curl -s '$url/$index/_search?pretty' -H 'Content-Type: application/json' -d '{"query": {"match": {"text": "copy files"}}, "_source": ["id", "group"]}'
  curl -s '$url/$index/_search?pretty' -H 'Content-Type: application/json' -d '{"size": 0, "aggs": {"copies": {"terms": {"field": "group", "min_doc_count": 2, "size": 5}}}}'
EXAMPLES
