#!/usr/bin/env bash
# The run command: builds the plugin, starts a real OpenSearch node with it on 127.0.0.1:9200,
# loads the demo, and stays up until Ctrl-C, which stops the node cleanly.
#   bash src/scripts/run.sh            (NEARDUP_HTTP_PORT / NEARDUP_TRANSPORT_PORT to move it)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
http_port=${NEARDUP_HTTP_PORT:-9200}
transport_port=${NEARDUP_TRANSPORT_PORT:-9300}
url="http://127.0.0.1:$http_port"
state="$root/target/run-node"

# Both ports before the build and the download, each failure naming the variable that moves it (node.sh
# checks them again when it starts the node, with the same names).
export NODE_SH_HTTP_PORT_SETTING=NEARDUP_HTTP_PORT NODE_SH_TRANSPORT_PORT_SETTING=NEARDUP_TRANSPORT_PORT
bash src/scripts/node.sh check-ports "$state" "$http_port" "$transport_port" \
    || { echo "run: nothing started; the node's ports are NEARDUP_HTTP_PORT (default 9200) and NEARDUP_TRANSPORT_PORT (9300)" >&2; exit 1; }

JAVA_HOME=$(bash src/scripts/node.sh java-home)
export JAVA_HOME
if [ "$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')" -ge 24 ]; then
    export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
fi
plugin_release=$(sed -n 's:.*<plugin.release>\(.*\)</plugin.release>.*:\1:p' pom.xml)
opensearch_version=$(sed -n 's:.*<opensearch.version>\(.*\)</opensearch.version>.*:\1:p' pom.xml)

echo "run: building the plugin (JAVA_HOME=$JAVA_HOME)"
# Maven's console writes colour resets (ESC[0m) even in batch mode with -q and -Dstyle.color=never
# (Maven 3.8's Jansi): strip them, so that the terminal shows only what Maven had to say.
quiet_mvn() { mvn -B -q "$@" 2>&1 | sed -u 's/\x1b\[[0-9;]*m//g'; }
quiet_mvn -DskipTests -DskipITs package
echo "run: fetching OpenSearch $opensearch_version (integ-test-zip, cached in ~/.m2 after the first time)"
quiet_mvn dependency:unpack@node-distribution

# Stopping the node on any exit also covers a failed start-up; Ctrl-C only ends the wait below.
trap 'bash src/scripts/node.sh stop "$state"' EXIT
interrupted=0
trap 'interrupted=1' INT TERM

bash src/scripts/node.sh start "$state" "$http_port" "$transport_port" \
    "target/distribution/opensearch-$opensearch_version" "target/opensearch-neardup-$opensearch_version.$plugin_release.zip"
bash src/scripts/demo.sh "$url" src/demo/manpages-demo.jsonl "$state/demo"

echo
echo "run: OpenSearch with opensearch-neardup is up at $url. Ctrl-C stops it."
pid=$(cat "$state/pid")
while [ "$interrupted" = 0 ] && kill -0 "$pid" 2>/dev/null; do
    sleep 1 &
    wait $! || true
done
echo
if [ "$interrupted" = 0 ]; then
    echo "run: the node exited on its own; its logs are in $state/logs" >&2
    exit 1
fi
