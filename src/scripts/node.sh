#!/usr/bin/env bash
# Starts and stops a real single-node OpenSearch cluster with the plugin installed.
# Used by the integration tests (pom.xml, pre/post-integration-test) and by the run command.
#
#   node.sh start <state-dir> <http-port> <transport-port> <distribution-dir> <plugin-zip>
#   node.sh stop  <state-dir>
#   node.sh java-home                 prints a JDK >= 21 to run OpenSearch 3.x with
#
# <state-dir> holds the pid file, the node's output and a link to its home. OpenSearch refuses to
# run as root, so when invoked as root the node runs as `nobody` from a home under /tmp (the
# checkout may sit below a directory that `nobody` cannot enter).
set -euo pipefail

die() { echo "node.sh: $*" >&2; exit 1; }

java_home() {
    local candidate
    for candidate in "${OPENSEARCH_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-21-jdk-amd64; do
        [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] || continue
        local major
        major=$("$candidate/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
        if [ -n "$major" ] && [ "$major" -ge 21 ]; then
            echo "$candidate"
            return 0
        fi
    done
    die "no JDK 21 or newer found: set JAVA_HOME to one (OpenSearch 3.x needs Java 21+)"
}

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

stop_node() {
    local state=$1 pid
    [ -f "$state/pid" ] || return 0
    pid=$(cat "$state/pid" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 60); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        if kill -0 "$pid" 2>/dev/null; then
            echo "node.sh: node $pid did not stop within 30 s, killing it" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$state/pid"
    # keep the logs beside the state for post-mortems; drop the node's copy of the distribution
    local home
    home=$(readlink -f "$state/opensearch" 2>/dev/null || true)
    if [ -n "$home" ] && [ -d "$home/logs" ]; then
        rm -rf "$state/logs" && cp -r "$home/logs" "$state/logs" 2>/dev/null || true
    fi
    if [ -L "$state/opensearch" ]; then
        rm -rf "$home" "$state/opensearch"
    fi
    echo "node.sh: node stopped"
}

start_node() {
    local state=$1 http_port=$2 transport_port=$3 distribution=$4 plugin_zip=$5
    [ -d "$distribution/bin" ] || die "no OpenSearch distribution at $distribution (run: mvn dependency:unpack@node-distribution)"
    [ -f "$plugin_zip" ] || die "no plugin zip at $plugin_zip (run: mvn package)"

    stop_node "$state"
    port_taken "$http_port" && die "port $http_port on 127.0.0.1 is already taken; stop whatever listens there first"
    port_taken "$transport_port" && die "port $transport_port on 127.0.0.1 is already taken; stop whatever listens there first"

    local jdk home
    jdk=$(java_home)
    rm -rf "$state" && mkdir -p "$state"
    if [ "$(id -u)" = 0 ]; then
        home=$(mktemp -d /tmp/opensearch-neardup-node.XXXXXX)
        ln -s "$home" "$state/opensearch"
    else
        home="$state/opensearch"
        mkdir -p "$home"
    fi
    cp -r "$distribution/." "$home/"

    echo "node.sh: installing $(basename "$plugin_zip")"
    OPENSEARCH_JAVA_HOME="$jdk" JAVA_HOME="$jdk" "$home/bin/opensearch-plugin" install --batch "file://$(readlink -f "$plugin_zip")" \
        > "$state/plugin-install.log" 2>&1 || { cat "$state/plugin-install.log" >&2; die "plugin install failed"; }

    local -a run_as=()
    if [ "$(id -u)" = 0 ]; then
        chown -R nobody:nogroup "$home"
        chmod 755 "$home"
        run_as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    fi

    echo "$http_port" > "$state/http.port"
    echo "node.sh: starting OpenSearch on 127.0.0.1:$http_port (home $home)"
    "${run_as[@]}" env HOME="$home" OPENSEARCH_JAVA_HOME="$jdk" JAVA_HOME="$jdk" \
        OPENSEARCH_JAVA_OPTS="${OPENSEARCH_JAVA_OPTS:--Xms1g -Xmx1g}" \
        "$home/bin/opensearch" -d -p "$home/opensearch.pid" \
        -Ecluster.name=neardup \
        -Enode.name=neardup-node \
        -Enetwork.host=127.0.0.1 \
        -Ehttp.port="$http_port" \
        -Etransport.port="$transport_port" \
        -Ediscovery.type=single-node \
        -Ecluster.routing.allocation.disk.threshold_enabled=false \
        > "$state/stdout.log" 2>&1 || { cat "$state/stdout.log" >&2; die "OpenSearch did not start"; }

    local pid=""
    for _ in $(seq 1 120); do
        pid=$(cat "$home/opensearch.pid" 2>/dev/null || true)
        [ -n "$pid" ] && break
        sleep 0.5
    done
    [ -n "$pid" ] || die "OpenSearch wrote no pid file; see $home/logs"
    echo "$pid" > "$state/pid"

    local url="http://127.0.0.1:$http_port"
    for _ in $(seq 1 180); do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 40 "$home/logs/neardup.log" >&2 2>/dev/null || true
            rm -f "$state/pid"
            die "OpenSearch exited during start-up; the log is above"
        fi
        if curl -fsS "$url/_cluster/health?wait_for_status=green&timeout=1s" > /dev/null 2>&1; then
            curl -fsS "$url/_cat/plugins?h=component" | grep -qx 'opensearch-neardup' \
                || { stop_node "$state"; die "the node is up but _cat/plugins does not list opensearch-neardup"; }
            echo "node.sh: cluster green at $url, pid $pid"
            return 0
        fi
        sleep 1
    done
    tail -n 40 "$home/logs/neardup.log" >&2 2>/dev/null || true
    stop_node "$state"
    die "the cluster did not turn green within 3 minutes"
}

case "${1:-}" in
    start) [ $# -eq 6 ] || die "usage: node.sh start <state-dir> <http-port> <transport-port> <distribution-dir> <plugin-zip>"
           start_node "$2" "$3" "$4" "$5" "$6" ;;
    stop)  [ $# -eq 2 ] || die "usage: node.sh stop <state-dir>"
           stop_node "$2" ;;
    java-home) java_home ;;
    *) die "usage: node.sh start|stop|java-home ..." ;;
esac
