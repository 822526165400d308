#!/usr/bin/env bash
# The sources as OpenSearch 2.x names its classes, for the 2.x build (pom.xml, execution opensearch-2-sources):
#
#   opensearch2-sources.sh <from-dir> <to-dir> [<file-name pattern to leave out>...]
#
# copies every .java file under <from-dir> to the same path under <to-dir> (emptied first), with the renames of
# OpenSearch 3.0 that the sources meet rewritten back, since Java has no import alias:
#   - the client interfaces moved from org.opensearch.client to org.opensearch.transport.client (Client,
#     node.NodeClient, ParentTaskAssigningClient ...);
#   - analysis-common's plugin class, CommonAnalysisPlugin in 2.x, became CommonAnalysisModulePlugin (tests).
# Nothing else is changed, so the compiler's line numbers are those of <from-dir>; each copy keeps its original's
# modification time, so that the compiler's incremental check recompiles only what changed. Files whose name
# matches a pattern (a shell glob such as '*IT.java') are left out.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: opensearch2-sources.sh <from-dir> <to-dir> [<file-name pattern to leave out>...]" >&2; exit 2; }
from=$(cd "$1" && pwd)
to=$2
shift 2
left_out=("$@")
rm -rf "$to" && mkdir -p "$to"
to=$(cd "$to" && pwd)
count=0 skipped=0
while IFS= read -r -d '' file; do
    relative=${file#"$from"/}
    for pattern in "${left_out[@]}"; do
        # shellcheck disable=SC2053 # a glob on purpose
        if [[ $(basename "$file") == $pattern ]]; then
            skipped=$((skipped + 1))
            continue 2
        fi
    done
    mkdir -p "$to/$(dirname "$relative")"
    sed -e 's/\borg\.opensearch\.transport\.client\b/org.opensearch.client/g' \
        -e 's/\bCommonAnalysisModulePlugin\b/CommonAnalysisPlugin/g' "$file" > "$to/$relative"
    touch -r "$file" "$to/$relative"
    count=$((count + 1))
done < <(find "$from" -name '*.java' -type f -print0)
echo "opensearch2-sources.sh: $count files from $from, with OpenSearch 2.x's names, in $to ($skipped left out)"
