#!/usr/bin/env bash
# Starts and stops a real single-node OpenSearch cluster with the plugin installed.
# Used by the integration tests (pom.xml, pre/post-integration-test) and by the run command.
#
#   node.sh start <state-dir> <http-port> <transport-port> <distribution-dir> <plugin-zip>
#   node.sh start-secure <state-dir> <http-port> <transport-port> <distribution-dir> <plugin-zip>
#                        <security-zip> <commons-collections4-jar>
#           the same beside the Security plugin with its demo configuration (TLS on HTTP, admin by
#           basic auth with the password in $OPENSEARCH_INITIAL_ADMIN_PASSWORD); the distribution,
#           the plugin zip and the security zip must all be for the same OpenSearch version.
#           If it fails, it also stops the nodes whose state dirs $NODE_SH_STOP_ON_FAILURE lists (the
#           build then ends before its post-integration-test would stop them)
#   node.sh stop  <state-dir>         stops either kind
#   node.sh halt  <state-dir>         stops the node's process but keeps its home (data, plugins, logs), for
#                                     a restart or a copy of its data
#   node.sh restart <state-dir> [<plugin-zip>]
#           starts a node made by `start` again on its home (halting it first if it runs), on the same
#           ports; with <plugin-zip>, first replaces the plugin as a user upgrades it in place
#           (opensearch-plugin remove, then install)
#   node.sh build-plugin <opensearch-version> <build-dir> <maven-home> offline=<true|false>
#                        settings=<user-settings> global-settings=<file> repository=<local-repository>
#           packages this checkout's plugin for another OpenSearch version into <build-dir> with
#           the given Maven and the calling build's settings (used by pom.xml, see security-its)
#   node.sh check-ports <state-dir> <http-port> <transport-port> [goals=<maven goals>]
#           fails, as `start` would, when a port is taken, but before the work that comes first (the build
#           runs it at validate, not at pre-integration-test after the unit tests; run.sh before building);
#           does nothing while the node of <state-dir> still runs (`start` stops it first), nor, with
#           goals, unless they reach integration-test
#   node.sh java-home [<opensearch-version>]
#                                     prints a JDK to run OpenSearch with: >= 21 for 3.x (the default), 11 to 23
#                                     for 2.x, which runs under the Java security manager that JDK 24 removed
#
# A taken port fails with the setting that moves the node there, when the caller names it in
# NODE_SH_HTTP_PORT_SETTING / NODE_SH_TRANSPORT_PORT_SETTING (e.g. -Dit.http.port, NEARDUP_TRANSPORT_PORT).
#
# <state-dir> holds the pid file, the node's output and a link to its home. OpenSearch refuses to
# run as root, so when invoked as root the node runs as `nobody` from a home under /tmp (the
# checkout may sit below a directory that `nobody` cannot enter). `path.repo` is the home's `snapshots`
# folder, so that an `fs` repository with a relative location can be registered.
set -euo pipefail

die() { echo "node.sh: $*" >&2; exit 1; }

java_home() {
    # JAVA_HOME first, as the README says; then OPENSEARCH_JAVA_HOME, the JDKs under /usr/lib/jvm, and the `java` on PATH.
    # OpenSearch 2.x (<opensearch-version> 2.*) installs the Java security manager at start-up, which JDK 24 and newer
    # refuse ("Enabling a Security Manager is not supported"): a JDK 11 to 23 for it, the newest such.
    local version=${1:-3} candidate on_path="" low=21 high=999 found="" found_major=0 major
    [[ "$version" != 2.* ]] || { low=11; high=23; }
    if command -v java > /dev/null 2>&1; then
        on_path=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    fi
    if [ "$low" = 21 ] && [ -n "${JAVA_HOME:-}" ] && ! java_major_at_least "$JAVA_HOME" 21; then
        echo "node.sh: JAVA_HOME=$JAVA_HOME is not a JDK 21 or newer; looking for one elsewhere" >&2
    fi
    for candidate in "${JAVA_HOME:-}" "${OPENSEARCH_JAVA_HOME:-}" /usr/lib/jvm/* "$on_path"; do
        [ -n "$candidate" ] || continue
        major=$(java_major "$candidate") || continue
        [ "$major" -ge "$low" ] && [ "$major" -le "$high" ] || continue
        if [ "$low" = 21 ]; then
            echo "$candidate"
            return 0
        fi
        if [ "$major" -gt "$found_major" ]; then found=$candidate found_major=$major; fi
    done
    [ -z "$found" ] || { echo "$found"; return 0; }
    [ "$low" = 21 ] && die "no JDK 21 or newer found: set JAVA_HOME to one (OpenSearch 3.x needs Java 21+)"
    die "no JDK 11 to 23 found for OpenSearch $version (2.x runs under the Java security manager, which JDK 24 removed): install one, e.g. Debian's openjdk-17-jdk-headless"
}

# The major version of <dir>/bin/java, e.g. 17; fails when there is none.
java_major() {
    local dir=$1 major
    [ -x "$dir/bin/java" ] || return 1
    major=$("$dir/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    major=${major%%.*}
    [[ "$major" =~ ^[0-9]+$ ]] || return 1
    echo "$major"
}

# The OpenSearch version of a distribution (or a node's home), read off its lib/opensearch-<version>.jar.
distribution_version() {
    local jar
    jar=$(basename "$(ls "$1"/lib/opensearch-[0-9]*.jar 2>/dev/null | head -n 1)" .jar)
    [ -n "$jar" ] || die "no lib/opensearch-<version>.jar in $1: not an OpenSearch distribution"
    echo "${jar#opensearch-}"
}

# True when <dir>/bin/java is a Java of at least <major>.
java_major_at_least() {
    local dir=$1 wanted=$2 major
    [ -x "$dir/bin/java" ] || return 1
    major=$("$dir/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    [ -n "$major" ] && [ "${major%%.*}" -ge "$wanted" ] 2>/dev/null
}

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Dies when either port is taken, naming the caller's setting that moves it (see the header).
require_free_ports() {
    local http_port=$1 transport_port=$2
    port_taken "$http_port" && die "$(taken "$http_port" HTTP "${NODE_SH_HTTP_PORT_SETTING:-}")"
    port_taken "$transport_port" && die "$(taken "$transport_port" transport "${NODE_SH_TRANSPORT_PORT_SETTING:-}")"
    return 0
}

taken() {
    local port=$1 kind=$2 setting=$3
    printf '%s port %s on 127.0.0.1 is already taken; stop whatever listens there first' "$kind" "$port"
    [ -z "$setting" ] || printf ', or move the node with %s=<a free port>' "$setting"
}

check_ports() {
    local state=$1 http_port=$2 transport_port=$3 goals=${4-} pid
    # `mvn test` or `package` starts no node: the ports may be someone else's then
    if [ -n "$goals" ]; then
        [[ "${goals#goals=}" =~ (^|[^a-z-])(pre-integration-test|integration-test|verify|install|deploy)($|[^a-z-]) ]] || return 0
    fi
    pid=$(cat "$state/pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && return 0
    require_free_ports "$http_port" "$transport_port"
}

# The value of <key> in the plugin-descriptor.properties at the root of a plugin zip.
descriptor_value() {
    local zip=$1 key=$2 jdk=$3 dir
    dir=$(mktemp -d)
    (cd "$dir" && "$jdk/bin/jar" xf "$zip" plugin-descriptor.properties) \
        || { rm -rf "$dir"; die "cannot read plugin-descriptor.properties from $zip"; }
    sed -n "s/^$key=//p" "$dir/plugin-descriptor.properties" | tr -d '\r'
    rm -rf "$dir"
}

# Stops the node's process (TERM, then KILL after 30 s) and forgets its pid; keeps its home.
halt_node() {
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
}

stop_node() {
    local state=$1
    [ -f "$state/pid" ] || [ -e "$state/opensearch" ] || return 0 # neither running nor halted
    halt_node "$state"
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

# Copies <distribution> to a fresh home for the node (under /tmp when root) linked from <state>; sets $home.
prepare_home() {
    local state=$1 http_port=$2 transport_port=$3 distribution=$4
    stop_node "$state"
    require_free_ports "$http_port" "$transport_port"

    rm -rf "$state" && mkdir -p "$state"
    if [ "$(id -u)" = 0 ]; then
        home=$(mktemp -d /tmp/opensearch-neardup-node.XXXXXX)
        ln -s "$home" "$state/opensearch"
    else
        home="$state/opensearch"
        mkdir -p "$home"
    fi
    cp -r "$distribution/." "$home/"
}

install_plugin() {
    local state=$1 jdk=$2 zip=$3
    echo "node.sh: installing $(basename "$zip")"
    OPENSEARCH_JAVA_HOME="$jdk" JAVA_HOME="$jdk" "$home/bin/opensearch-plugin" install --batch "file://$(readlink -f "$zip")" \
        >> "$state/plugin-install.log" 2>&1 || { cat "$state/plugin-install.log" >&2; die "installing $(basename "$zip") failed"; }
}

# Starts the node in $home as `nobody` when root and waits until it is green and _cat/plugins lists
# every one of <components>. Extra curl options (TLS, credentials) come in the array $curl_opts.
launch() {
    local state=$1 jdk=$2 cluster=$3 scheme=$4 http_port=$5 transport_port=$6
    shift 6
    local -a components=("$@")
    local -a run_as=()
    # the launcher's temporary folder inside the home, removed with it (by default a new /tmp/opensearch-<n> each start, never removed)
    mkdir -p "$home/snapshots" "$home/tmp"
    if [ "$(id -u)" = 0 ]; then
        chown -R nobody:nogroup "$home"
        chmod 755 "$home"
        run_as=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    fi

    echo "$http_port" > "$state/http.port"
    echo "$transport_port" > "$state/transport.port"
    echo "node.sh: starting OpenSearch on 127.0.0.1:$http_port (home $home)"
    "${run_as[@]}" env HOME="$home" OPENSEARCH_JAVA_HOME="$jdk" JAVA_HOME="$jdk" OPENSEARCH_TMPDIR="$home/tmp" \
        OPENSEARCH_JAVA_OPTS="${OPENSEARCH_JAVA_OPTS:--Xms1g -Xmx1g}" \
        "$home/bin/opensearch" -d -p "$home/opensearch.pid" \
        -Ecluster.name="$cluster" \
        -Enode.name="$cluster-node" \
        -Enetwork.host=127.0.0.1 \
        -Ehttp.port="$http_port" \
        -Etransport.port="$transport_port" \
        -Ediscovery.type=single-node \
        -Ecluster.routing.allocation.disk.threshold_enabled=false \
        -Epath.repo="$home/snapshots" \
        > "$state/stdout.log" 2>&1 || { cat "$state/stdout.log" >&2; die "OpenSearch did not start"; }

    local pid=""
    for _ in $(seq 1 120); do
        pid=$(cat "$home/opensearch.pid" 2>/dev/null || true)
        [ -n "$pid" ] && break
        sleep 0.5
    done
    [ -n "$pid" ] || die "OpenSearch wrote no pid file; see $home/logs"
    echo "$pid" > "$state/pid"

    local url="$scheme://127.0.0.1:$http_port" log="$home/logs/$cluster.log"
    for _ in $(seq 1 180); do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 40 "$log" >&2 2>/dev/null || true
            rm -f "$state/pid"
            die "OpenSearch exited during start-up; the log is above"
        fi
        if curl -fsS "${curl_opts[@]}" "$url/_cluster/health?wait_for_status=green&timeout=1s" > /dev/null 2>&1; then
            local listed component
            listed=$(curl -fsS "${curl_opts[@]}" "$url/_cat/plugins?h=component" 2>&1 || true)
            for component in "${components[@]}"; do
                if ! grep -qx "$component" <<< "$listed"; then
                    tail -n 40 "$log" >&2 2>/dev/null || true
                    stop_node "$state"
                    die "the node is up but _cat/plugins does not list $component (it lists: $(echo $listed))"
                fi
            done
            echo "node.sh: cluster green at $url, pid $pid"
            return 0
        fi
        sleep 1
    done
    tail -n 40 "$log" >&2 2>/dev/null || true
    stop_node "$state"
    die "the cluster did not turn green within 3 minutes"
}

start_node() {
    local state=$1 http_port=$2 transport_port=$3 distribution=$4 plugin_zip=$5
    [ -d "$distribution/bin" ] || die "no OpenSearch distribution at $distribution (run: mvn dependency:unpack@node-distribution)"
    [ -f "$plugin_zip" ] || die "no plugin zip at $plugin_zip (run: mvn package)"

    local jdk
    jdk=$(java_home "$(distribution_version "$distribution")")
    prepare_home "$state" "$http_port" "$transport_port" "$distribution"
    install_plugin "$state" "$jdk" "$plugin_zip"
    local -a curl_opts=()
    launch "$state" "$jdk" neardup http "$http_port" "$transport_port" opensearch-neardup
}

restart_node() {
    local state=$1 plugin_zip=${2:-} http_port transport_port
    home=$(readlink -f "$state/opensearch" 2>/dev/null || true)
    [ -n "$home" ] && [ -x "$home/bin/opensearch" ] || die "no node home in $state (start one with: node.sh start)"
    [ -d "$home/plugins/opensearch-security" ] && die "node.sh restart starts nodes made by node.sh start, not start-secure"
    http_port=$(cat "$state/http.port") && transport_port=$(cat "$state/transport.port") \
        || die "$state does not say which ports its node used"
    [ -z "$plugin_zip" ] || [ -f "$plugin_zip" ] || die "no plugin zip at $plugin_zip"
    halt_node "$state"
    require_free_ports "$http_port" "$transport_port"

    local jdk
    jdk=$(java_home "$(distribution_version "$home")")
    if [ -n "$plugin_zip" ]; then
        echo "node.sh: removing opensearch-neardup"
        OPENSEARCH_JAVA_HOME="$jdk" JAVA_HOME="$jdk" "$home/bin/opensearch-plugin" remove opensearch-neardup \
            >> "$state/plugin-install.log" 2>&1 || { cat "$state/plugin-install.log" >&2; die "removing opensearch-neardup failed"; }
        install_plugin "$state" "$jdk" "$plugin_zip"
    fi
    local -a curl_opts=()
    launch "$state" "$jdk" neardup http "$http_port" "$transport_port" opensearch-neardup
}

# The Security plugin (3.4) extends `rule-framework`, which the integ-test-zip lacks, and loads
# commons-collections4 from that module: an empty extensible plugin of that name stands in for it.
rule_framework_stand_in() {
    local jdk=$1 commons_collections4=$2 version=$3
    local module="$home/modules/rule-framework" src
    [ -e "$module" ] && { echo "node.sh: the distribution has its own rule-framework module"; return 0; }
    [ -x "$jdk/bin/javac" ] && [ -x "$jdk/bin/jar" ] || die "$jdk is not a JDK (no javac/jar), cannot build the rule-framework stand-in"
    src=$(mktemp -d)
    mkdir -p "$src/io/neardup/harness" "$src/classes" "$module"
    cat > "$src/io/neardup/harness/RuleFrameworkStandIn.java" <<'EOF'
package io.neardup.harness;

import org.opensearch.plugins.ExtensiblePlugin;
import org.opensearch.plugins.Plugin;

/** Stands in for the rule-framework module, which the integ-test-zip lacks, so that Security can extend it. */
public class RuleFrameworkStandIn extends Plugin implements ExtensiblePlugin {}
EOF
    "$jdk/bin/javac" --release 21 -nowarn -cp "$home/lib/*" -d "$src/classes" "$src/io/neardup/harness/RuleFrameworkStandIn.java" \
        || { rm -rf "$src"; die "compiling the rule-framework stand-in failed"; }
    "$jdk/bin/jar" cf "$module/rule-framework-stand-in.jar" -C "$src/classes" . \
        || { rm -rf "$src"; die "packaging the rule-framework stand-in failed"; }
    rm -rf "$src"
    cp "$commons_collections4" "$module/"
    cat > "$module/plugin-descriptor.properties" <<EOF
description=Stand-in for rule-framework (absent from the integ-test-zip), so that opensearch-security can extend it
version=$version
name=rule-framework
classname=io.neardup.harness.RuleFrameworkStandIn
java.version=21
opensearch.version=$version
EOF
}

start_secure_node() {
    local state=$1 http_port=$2 transport_port=$3 distribution=$4 plugin_zip=$5 security_zip=$6 commons_collections4=$7
    local password=${OPENSEARCH_INITIAL_ADMIN_PASSWORD:-}
    [ -n "$password" ] || die "set OPENSEARCH_INITIAL_ADMIN_PASSWORD to the admin password for the Security demo configuration"
    [ -d "$distribution/bin" ] || die "no OpenSearch distribution at $distribution (run: mvn pre-integration-test)"
    [ -f "$plugin_zip" ] || die "no plugin zip at $plugin_zip"
    [ -f "$security_zip" ] || die "no Security plugin zip at $security_zip"
    [ -f "$commons_collections4" ] || die "no commons-collections4 jar at $commons_collections4"

    local jdk version built_for
    version=$(distribution_version "$distribution")
    jdk=$(java_home "$version")
    built_for=$(descriptor_value "$(readlink -f "$plugin_zip")" opensearch.version "$jdk")
    [ "$built_for" = "$version" ] || die "$(basename "$plugin_zip") is built for OpenSearch $built_for, the distribution is $version"

    prepare_home "$state" "$http_port" "$transport_port" "$distribution"
    # Security 3.4 extends rule-framework; 2.19's does not
    if descriptor_value "$(readlink -f "$security_zip")" extended.plugins "$jdk" | grep -q rule-framework; then
        rule_framework_stand_in "$jdk" "$commons_collections4" "$version"
    fi
    install_plugin "$state" "$jdk" "$security_zip"
    install_plugin "$state" "$jdk" "$plugin_zip"

    echo "node.sh: applying the Security demo configuration"
    OPENSEARCH_INITIAL_ADMIN_PASSWORD="$password" OPENSEARCH_JAVA_HOME="$jdk" JAVA_HOME="$jdk" \
        bash "$home/plugins/opensearch-security/tools/install_demo_configuration.sh" -y -i -s -t \
        > "$state/demo-configuration.log" 2>&1 \
        || { cat "$state/demo-configuration.log" >&2; die "the Security demo configuration failed"; }

    local -a curl_opts=(-k -u "admin:$password")
    launch "$state" "$jdk" neardup-secure https "$http_port" "$transport_port" opensearch-neardup opensearch-security
}

build_plugin() {
    local opensearch_version=$1 build_dir=$2 maven_home=$3 offline=${4#offline=} user_settings=${5#settings=}
    local global_settings=${6#global-settings=} local_repo=${7#repository=}
    local root
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    local -a args=(-B -q -f "$root/pom.xml" -Dmaven.repo.local="$local_repo")
    [ "$offline" = true ] && args+=(-o)
    [ -f "$user_settings" ] && args+=(-s "$user_settings")
    [ -f "$global_settings" ] && args+=(-gs "$global_settings")
    args+=(
        -Dopensearch.version="$opensearch_version"
        -Dbuild.dir="$build_dir"
        -Dmaven.test.skip=true -DskipITs -Dspotless.check.skip=true -Dforbiddenapis.skip=true -Dmdep.skip=true
        package
    )
    echo "node.sh: packaging the plugin for OpenSearch $opensearch_version into $build_dir"
    local started=$SECONDS major maven_opts=${MAVEN_OPTS:-}
    major=$("$(java_home)/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    if [ -n "$major" ] && [ "$major" -ge 24 ] && [[ "$maven_opts" != *sun-misc-unsafe-memory-access* ]]; then
        maven_opts="$maven_opts --sun-misc-unsafe-memory-access=allow" # as run.sh: Maven's Guava warns on JDK 24+
    fi
    MAVEN_OPTS="$maven_opts" "$maven_home/bin/mvn" "${args[@]}" || die "packaging the plugin for OpenSearch $opensearch_version failed"

    local zip built_for
    zip=$(ls "$build_dir"/*.zip 2>/dev/null | head -n 1)
    [ -n "$zip" ] || die "the build for OpenSearch $opensearch_version made no zip in $build_dir"
    built_for=$(descriptor_value "$zip" opensearch.version "$(java_home)")
    [ "$built_for" = "$opensearch_version" ] \
        || die "$zip says opensearch.version=$built_for in its plugin-descriptor.properties, expected $opensearch_version"
    echo "node.sh: $(basename "$zip") for OpenSearch $built_for in $((SECONDS - started)) s"
}

stop_others_on_failure() {
    local status=$? dir
    [ "$status" -ne 0 ] || return 0
    for dir in ${NODE_SH_STOP_ON_FAILURE:-}; do
        echo "node.sh: stopping the node in $dir too" >&2
        stop_node "$dir" >&2 || true
    done
    exit "$status"
}

case "${1:-}" in
    start) [ $# -eq 6 ] || die "usage: node.sh start <state-dir> <http-port> <transport-port> <distribution-dir> <plugin-zip>"
           start_node "$2" "$3" "$4" "$5" "$6" ;;
    start-secure)
           trap stop_others_on_failure EXIT
           [ $# -eq 8 ] || die "usage: node.sh start-secure <state-dir> <http-port> <transport-port> <distribution-dir> <plugin-zip> <security-zip> <commons-collections4-jar>"
           start_secure_node "$2" "$3" "$4" "$5" "$6" "$7" "$8" ;;
    stop)  [ $# -eq 2 ] || die "usage: node.sh stop <state-dir>"
           stop_node "$2" ;;
    halt)  [ $# -eq 2 ] || die "usage: node.sh halt <state-dir>"
           halt_node "$2" && echo "node.sh: node halted, its home kept in $(readlink -f "$2/opensearch")" ;;
    restart)
           [ $# -eq 2 ] || [ $# -eq 3 ] || die "usage: node.sh restart <state-dir> [<plugin-zip>]"
           restart_node "$2" "${3:-}" ;;
    build-plugin)
           [ $# -eq 8 ] || die "usage: node.sh build-plugin <opensearch-version> <build-dir> <maven-home> offline=<true|false> settings=<file> global-settings=<file> repository=<dir>"
           build_plugin "$2" "$3" "$4" "$5" "$6" "$7" "$8" ;;
    check-ports)
           [ $# -eq 4 ] || [ $# -eq 5 ] || die "usage: node.sh check-ports <state-dir> <http-port> <transport-port> [goals=<maven goals>]"
           check_ports "$2" "$3" "$4" "${5-}" ;;
    java-home)
           [ $# -le 2 ] || die "usage: node.sh java-home [<opensearch-version>]"
           java_home "${2:-}" ;;
    *) die "usage: node.sh start|start-secure|stop|halt|restart|build-plugin|check-ports|java-home ..." ;;
esac
