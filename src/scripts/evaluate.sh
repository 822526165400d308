#!/usr/bin/env bash
# The benchmark and evaluation command: builds the plugin, starts a real node with it (or uses --url),
# runs io.neardup.bench.eval.Evaluate on a JSON-lines corpus, plots, stops the node, prints the summary last.
#
#   src/scripts/evaluate.sh <corpus.jsonl[.gz]> <report-dir> [--url URL] [--sample N] [--sizes n1,n2,...] [Evaluate options]
#
# Evaluate options (see the javadoc of src/bench/java/io/neardup/bench/eval/Evaluate.java): --seed 42, --latency-queries 200,
# --warmup 20, --ingest-docs 20000, --ingest-runs 1, --batch 500, --threads 2, --hs 3,6, --ks 1,4,16,64,256,
# --taus 0.5,0.7,0.8,0.9, --max-docs N, --no-minhash-filter.
# Environment: SKIP_BUILD=1 reuses target/ as built; MVN_ARGS (e.g. -o) go to every mvn call; BUILD_DIR (default target;
# another folder builds there with -Dbuild.dir, so two checkouts' builds do not meet); EVAL_CLASS (default
# io.neardup.bench.eval.Evaluate; io.neardup.bench.eval.ClustersEvaluation evaluates _near_dup_clusters, see its javadoc);
# NEARDUP_EVAL_HTTP_PORT / NEARDUP_EVAL_TRANSPORT_PORT (9320 / 9420); NODE_HEAP (node -Xms/-Xmx; default 2g,
# 4g for corpora over 50 MB on disk); EVAL_HEAP (the evaluation JVM; default 3g, 8g over 50 MB).
set -euo pipefail

usage() { echo "usage: $0 <corpus.jsonl[.gz]> <report-dir> [--url URL] [--sample N] [--sizes n1,n2,...] [options]" >&2; exit 2; }
[ $# -ge 2 ] || usage
corpus=$(readlink -f "$1")
report=$2
shift 2
[ -f "$corpus" ] || { echo "evaluate.sh: no corpus at $corpus" >&2; exit 2; }
mkdir -p "$report"
report=$(readlink -f "$report")

url=""
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --url) [ $# -ge 2 ] || usage; url=$2; shift 2 ;;
        --no-minhash-filter) args+=("$1"); shift ;;
        --*) [ $# -ge 2 ] || usage; args+=("$1" "$2"); shift 2 ;;
        *) usage ;;
    esac
done

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
JAVA_HOME=$(bash src/scripts/node.sh java-home)
export JAVA_HOME
build=${BUILD_DIR:-target}
eval_class=${EVAL_CLASS:-io.neardup.bench.eval.Evaluate}
mvn_args=(-B -q ${MVN_ARGS:-})
[ "$build" = target ] || mvn_args+=("-Dbuild.dir=$(readlink -m "$build")")

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    echo "evaluate.sh: building the plugin and the test classes ($build/)"
    mvn "${mvn_args[@]}" package -DskipTests -DskipITs
    mvn "${mvn_args[@]}" dependency:build-classpath -Dmdep.outputFile="$build/bench-cp.txt" -Dmdep.includeScope=test
    [ -n "$url" ] || mvn "${mvn_args[@]}" dependency:unpack@node-distribution   # not with -DskipITs: that skips the unpack
fi
cp="$build/classes:$build/test-classes:$(cat "$build/bench-cp.txt")"

size_mb=$(( $(stat -c %s "$corpus") / 1000000 ))
node_heap=${NODE_HEAP:-$([ "$size_mb" -gt 50 ] && echo 4g || echo 2g)}
eval_heap=${EVAL_HEAP:-$([ "$size_mb" -gt 50 ] && echo 8g || echo 3g)}

state="$(readlink -m "$build")/eval-node"
node_started=0
stop_node() {
    if [ "$node_started" = 1 ]; then
        bash "$root/src/scripts/node.sh" stop "$state" >&2 || true
        node_started=0
    fi
}
trap stop_node EXIT
trap 'exit 130' INT TERM

if [ -z "$url" ]; then
    http_port=${NEARDUP_EVAL_HTTP_PORT:-9320}
    transport_port=${NEARDUP_EVAL_TRANSPORT_PORT:-9420}
    distribution=$(ls -d "$build"/distribution/opensearch-* 2>/dev/null | head -n 1)
    plugin_zip=$(ls "$build"/opensearch-neardup-*.zip 2>/dev/null | head -n 1)
    [ -n "$distribution" ] && [ -n "$plugin_zip" ] || { echo "evaluate.sh: no distribution or plugin zip under $build/ (build first)" >&2; exit 1; }
    node_started=1
    OPENSEARCH_JAVA_OPTS="-Xms$node_heap -Xmx$node_heap" bash src/scripts/node.sh start "$state" "$http_port" "$transport_port" \
        "$distribution" "$plugin_zip" >&2
    url="http://127.0.0.1:$http_port"
fi

command="${EVAL_CLASS:+EVAL_CLASS=$eval_class }${BUILD_DIR:+BUILD_DIR=$build }src/scripts/evaluate.sh $(realpath --relative-to="$root" "$corpus") $(realpath --relative-to="$root" "$report") ${args[*]:-}"
set +e
"$JAVA_HOME/bin/java" "-Xmx$eval_heap" -cp "$cp" "$eval_class" "$corpus" "$report" --url "$url" \
    --command "$command" "${args[@]}" 2>&1 | tee "$report/run.log"
rc=${PIPESTATUS[0]}
set -e
stop_node
trap - EXIT
[ "$rc" = 0 ] || { echo "evaluate.sh: the evaluation failed (exit $rc); log: $report/run.log" >&2; exit "$rc"; }

python=""
for candidate in /usr/bin/python3 python3; do
    if command -v "$candidate" > /dev/null && "$candidate" -c 'import matplotlib' 2> /dev/null; then
        python=$candidate
        break
    fi
done
if [ "$eval_class" != io.neardup.bench.eval.Evaluate ]; then
    :   # the plots are Evaluate's
elif [ -n "$python" ]; then
    "$python" docs/benchmarks/plot.py "$report" "$(basename "$corpus")" >&2 || echo "evaluate.sh: plotting failed" >&2
else
    echo "evaluate.sh: no python3 with matplotlib: no plots (apt-get install python3-matplotlib)" >&2
fi
echo "evaluate.sh: report in $report/report.md" >&2
echo
cat "$report/summary.md"
