#!/usr/bin/env bash
# The release set: one plugin zip per supported OpenSearch release, all from this checkout, and the
# smoke run of each on a real node.
#
#   release.sh build [<version>...]   builds $RELEASE_DIR/opensearch-neardup-<version>.<plugin release>.zip
#                                     and its .sha512 (sha512sum format) for each version, default all of
#                                     SUPPORTED below
#   release.sh smoke [<version>...]   for each version (default: NODE_VERSIONS below), needing the zips built:
#                                     checks that a zip built for another version is refused by the
#                                     plugin installer of this one, then starts a fresh node of this
#                                     version (its integ-test-zip from Maven Central), installs this
#                                     version's zip, runs smoke.sh against it and stops it
#   release.sh upgrade [<from> <to>]  the cluster upgrade a user makes (default 3.0.0 to 3.8.0, the oldest
#                                     and the default release): a node of <from> with its zip loads the smoke
#                                     index (smoke.sh load) and stops; a node of <to> with its zip starts on
#                                     that data and answers the rest of the smoke run on it (smoke.sh check)
#   release.sh plugin-upgrade [<from-commit>]
#                                     the plugin upgraded in place on a node of the default release, its
#                                     data kept (default from 0924104, the last commit before fingerprint
#                                     formats, issue 32): the zip built at <from-commit> (a temporary git
#                                     worktree of it) on a node that loads two indices of the demo corpus and
#                                     the first generation of a data stream, and records the indices' answers
#                                     (upgrade-answers.sh); the node stopped, the plugin replaced by today's zip
#                                     (built if $RELEASE_DIR has none), started: every answer identical; new
#                                     documents (format 1), a force-merge, a restart: every answer identical
#                                     again; then a new index gets format 2; the stream rolled over (its new
#                                     generation format 2) and copies indexed through a lookup into it must
#                                     answer as a stream of the same documents made after the upgrade (all
#                                     format 2): lookup, query, clusters, collapse (issue 41). Needs the
#                                     history back to <from-commit> (not a shallow clone)
#                                     A 2.x node's smoke answers (fingerprints, hits and scores, clusters:
#                                     smoke.sh's SMOKE_ANSWERS) must equal those of the default release's node,
#                                     smoke-tested in the same run or before (its answers kept in its folder)
#   release.sh versions               prints SUPPORTED, one a line, "node" after those CI smoke-tests
#
# Environment: RELEASE_DIR (default target/release), RELEASE_JOBS builds or nodes at a time (default 2),
# SMOKE_HTTP_PORT / SMOKE_TRANSPORT_PORT the first ports of the smoke nodes (default 9290 / 9390; job i
# uses the base + i), JAVA_HOME (else node.sh java-home finds a JDK 21+), MAVEN_ARGS extra mvn arguments.
# Per-version build output and logs are in target/release-build/<version>/.
set -euo pipefail

# Every OpenSearch release these sources build for: 2.19.x, the last 2.x line, and every 3.x; add a new release
# here (and to the README's table).
SUPPORTED=(2.19.4 2.19.6 3.0.0 3.1.0 3.2.0 3.3.0 3.3.1 3.3.2 3.4.0 3.5.0 3.6.0 3.7.0 3.8.0 3.9.0)
# Those whose integ-test-zip (a real node) is on Maven Central: 3.9.0's is not (checked 2026-11-25).
NODE_VERSIONS=(2.19.4 2.19.6 3.0.0 3.1.0 3.2.0 3.3.0 3.3.1 3.3.2 3.4.0 3.5.0 3.6.0 3.7.0 3.8.0)
# The last commit before index.neardup.fingerprint_format (issue 32): its indices have no format and keep format 1.
PLUGIN_UPGRADE_FROM=0924104

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
release_dir=${RELEASE_DIR:-$root/target/release}
work_dir=$root/target/release-build
jobs=${RELEASE_JOBS:-2}
http_base=${SMOKE_HTTP_PORT:-9290}
transport_base=${SMOKE_TRANSPORT_PORT:-9390}
# what node.sh names when a port is taken (the first node's ports: node i uses them + i)
export NODE_SH_HTTP_PORT_SETTING=SMOKE_HTTP_PORT NODE_SH_TRANSPORT_PORT_SETTING=SMOKE_TRANSPORT_PORT
plugin_release=$(sed -n 's:.*<plugin.release>\(.*\)</plugin.release>.*:\1:p' pom.xml)
# the test dependencies of the default version: Central lacks some releases' (tests are not built here)
test_opensearch_version=$(sed -n 's:.*<opensearch.version>\(.*\)</opensearch.version>.*:\1:p' pom.xml)

die() { echo "release.sh: $*" >&2; exit 1; }
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "RELEASE_JOBS must be a positive number, got [$jobs]"
[[ "$plugin_release" =~ ^[0-9]+$ ]] || die "no <plugin.release> number in pom.xml"

JAVA_HOME=$(bash src/scripts/node.sh java-home)
export JAVA_HOME
if [ "$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')" -ge 24 ] \
    && [[ "${MAVEN_OPTS:-}" != *sun-misc-unsafe-memory-access* ]]; then
    export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" # Maven's Guava warns on JDK 24+
fi
read -r -a maven_args <<< "${MAVEN_ARGS:-}"

zip_name() { echo "opensearch-neardup-$1.$plugin_release.zip"; }

has_node() { [[ " ${NODE_VERSIONS[*]} " == *" $1 "* ]]; }

is_supported() {
    local v
    for v in "${SUPPORTED[@]}"; do [ "$v" = "$1" ] && return 0; done
    return 1
}

build_one() {
    local version=$1 dir=$work_dir/$1 zip started=$SECONDS built_for
    zip=$(zip_name "$version")
    rm -rf "$dir/classes" "$dir"/*.zip "$dir"/*.jar && mkdir -p "$dir" "$release_dir"
    # the checks of the sources (format, forbidden APIs) and the tests run in the default build; where
    # there is a real node of this version, the same Maven run unpacks it for the smoke run
    local -a goals=(package)
    has_node "$version" && goals+=(dependency:unpack@node-distribution)
    mvn -B -q "${maven_args[@]}" -Dopensearch.version="$version" -Dbuild.dir="$dir" \
        -Dtest.opensearch.version="$test_opensearch_version" -Dmaven.test.skip=true -DskipSecurityITs \
        -Dspotless.check.skip=true -Dforbiddenapis.skip=true \
        "${goals[@]}" > "$dir/build.log" 2>&1 \
        || { tail -n 40 "$dir/build.log" >&2; die "building for OpenSearch $version failed (log: $dir/build.log)"; }
    [ -f "$dir/$zip" ] || die "the build for OpenSearch $version made no $zip"
    built_for=$(unzip -p "$dir/$zip" plugin-descriptor.properties | sed -n 's/^opensearch.version=//p' | tr -d '\r')
    [ "$built_for" = "$version" ] || die "$zip says opensearch.version=$built_for, expected $version"
    cp "$dir/$zip" "$release_dir/$zip"
    (cd "$release_dir" && sha512sum "$zip" > "$zip.sha512")
    echo "release.sh: $zip in $((SECONDS - started)) s"
}

# The installer of <version>'s distribution must refuse a zip built for <other> with OpenSearch's message.
check_refused() {
    local version=$1 other=$2 distribution=$3 dir=$work_dir/$1 log
    log=$dir/refused-$other.log
    [ -f "$release_dir/$(zip_name "$other")" ] || die "no $(zip_name "$other") in $release_dir (run: release.sh build $other)"
    if OPENSEARCH_JAVA_HOME="$(bash src/scripts/node.sh java-home "$version")" "$distribution/bin/opensearch-plugin" install --batch \
        "file://$release_dir/$(zip_name "$other")" > "$log" 2>&1; then
        die "OpenSearch $version installed $(zip_name "$other"), a zip built for $other"
    fi
    grep -q "Plugin \[opensearch-neardup\] was built for OpenSearch version $other but version $version is running" "$log" \
        || { cat "$log" >&2; die "OpenSearch $version refused $(zip_name "$other") without the expected message"; }
    [ -z "$(ls -A "$distribution/plugins")" ] || die "the refused install left files in $distribution/plugins"
    echo "release.sh: OpenSearch $version refuses $(zip_name "$other"): $(grep -o 'Plugin \[opensearch-neardup\] was built.*running' "$log")"
}

# Unpacks the integ-test-zip of <version> into $work_dir/<version>/distribution unless there already: release.sh
# build unpacks it, not when the zips came from elsewhere.
unpack_distribution() {
    local version=$1 dir=$work_dir/$1
    [ ! -x "$dir/distribution/opensearch-$version/bin/opensearch" ] || return 0
    mkdir -p "$dir"
    mvn -B -q "${maven_args[@]}" -Dopensearch.version="$version" -Dbuild.dir="$dir" \
        dependency:unpack@node-distribution > "$dir/distribution.log" 2>&1 \
        || { tail -n 20 "$dir/distribution.log" >&2; die "fetching the integ-test-zip of OpenSearch $version failed"; }
}

smoke_one() {
    local version=$1 slot=$2 dir=$work_dir/$1 zip distribution state other started=$SECONDS
    local http_port=$((http_base + slot)) transport_port=$((transport_base + slot))
    zip=$release_dir/$(zip_name "$version")
    [ -f "$zip" ] || die "no $zip (run: release.sh build $version)"
    distribution=$dir/distribution/opensearch-$version
    unpack_distribution "$version"

    # a zip of a neighbouring supported release, so that every pair of neighbours is tried
    other=${SUPPORTED[0]}
    local i
    for i in "${!SUPPORTED[@]}"; do
        if [ "${SUPPORTED[$i]}" = "$version" ]; then
            other=${SUPPORTED[$(((i + 1) % ${#SUPPORTED[@]}))]}
        fi
    done
    check_refused "$version" "$other" "$distribution"

    state=$dir/smoke-node
    local status=0
    bash src/scripts/node.sh start "$state" "$http_port" "$transport_port" "$distribution" "$zip" || status=$?
    if [ "$status" = 0 ]; then
        rm -rf "$dir/smoke-answers"
        SMOKE_ANSWERS=$dir/smoke-answers bash src/scripts/smoke.sh "http://127.0.0.1:$http_port" "$version.$plugin_release" \
            || status=$?
    fi
    bash src/scripts/node.sh stop "$state" > /dev/null || true
    [ "$status" = 0 ] || die "the smoke run on OpenSearch $version failed (node logs: $state/logs)"
    echo "release.sh: OpenSearch $version: installed, smoke run passed in $((SECONDS - started)) s"
}

# The smoke answers that <what> gave (in <dir>, default its smoke run's) against those of the default release's
# smoke run: identical, file by file.
compare_smoke_answers() {
    local version=$1 reference=$test_opensearch_version file differ=0
    local mine=${2:-$work_dir/$1/smoke-answers} theirs=$work_dir/$test_opensearch_version/smoke-answers
    [ -d "$theirs" ] || die "no smoke answers of OpenSearch $reference in $theirs to compare $version's with (run: release.sh smoke $reference)"
    [ -d "$mine" ] || die "no smoke answers of OpenSearch $version in $mine"
    for file in "$theirs"/*.json; do
        if ! cmp -s "$file" "$mine/$(basename "$file")"; then
            echo "release.sh: OpenSearch $version answers $(basename "$file" .json) otherwise than $reference:" >&2
            diff "$file" "$mine/$(basename "$file")" | head -n 20 >&2 || true
            differ=1
        fi
    done
    [ "$differ" = 0 ] || die "the smoke answers of OpenSearch $version differ from $reference's"
    echo "release.sh: OpenSearch $version answers the smoke run as $reference does: $(ls "$theirs" | wc -l) answers identical (fingerprints, hits and scores, collapse, clusters)"
}

# A node of <from> loads the smoke index, a node of <to> answers the smoke run on its data. Both zips built.
upgrade() {
    local from=$1 to=$2 dir=$work_dir/upgrade-$1-$2 started=$SECONDS v
    local http_port=$http_base transport_port=$transport_base
    for v in "$from" "$to"; do
        has_node "$v" || die "OpenSearch $v has no integ-test-zip on Maven Central: no node to upgrade from or to"
        [ -f "$release_dir/$(zip_name "$v")" ] || die "no $(zip_name "$v") in $release_dir (run: release.sh build $v)"
        [ -x "$work_dir/$v/distribution/opensearch-$v/bin/opensearch" ] || die "no OpenSearch $v in $work_dir (run: release.sh build $v)"
    done
    rm -rf "$dir" && mkdir -p "$dir"
    local status=0
    bash src/scripts/node.sh start "$dir/from-node" "$http_port" "$transport_port" \
        "$work_dir/$from/distribution/opensearch-$from" "$release_dir/$(zip_name "$from")" || status=$?
    [ "$status" = 0 ] && { bash src/scripts/smoke.sh "http://127.0.0.1:$http_port" "$from.$plugin_release" load || status=$?; }
    # halted, not stopped, so that its data outlives it (node.sh stop removes the node's home)
    local home
    home=$(readlink -f "$dir/from-node/opensearch")
    bash src/scripts/node.sh halt "$dir/from-node" > /dev/null || status=1
    [ "$status" = 0 ] && [ -d "$home/data" ] || status=1
    if [ "$status" = 0 ]; then
        # the next release's distribution with the data, as an upgrade in place leaves it
        cp -r "$work_dir/$to/distribution/opensearch-$to" "$dir/opensearch-$to"
        cp -a "$home/data" "$dir/opensearch-$to/data"
    fi
    bash src/scripts/node.sh stop "$dir/from-node" > /dev/null || true
    [ "$status" = 0 ] || die "loading the smoke index on OpenSearch $from failed (logs: $dir/from-node/logs)"

    bash src/scripts/node.sh start "$dir/to-node" "$http_port" "$transport_port" "$dir/opensearch-$to" \
        "$release_dir/$(zip_name "$to")" || status=$?
    [ "$status" = 0 ] && { SMOKE_ANSWERS=$dir/answers bash src/scripts/smoke.sh "http://127.0.0.1:$http_port" "$to.$plugin_release" check || status=$?; }
    bash src/scripts/node.sh stop "$dir/to-node" > /dev/null || true
    rm -rf "$dir/opensearch-$to"
    [ "$status" = 0 ] || die "OpenSearch $to did not answer the smoke run on the data of $from (logs: $dir/to-node/logs)"
    # the same answers as a node of <to> gives on the data it loaded itself, where its smoke run left them
    if [ -d "$work_dir/$test_opensearch_version/smoke-answers" ] && [ "$to" = "$test_opensearch_version" ]; then
        compare_smoke_answers "$to on the data of $from" "$dir/answers"
    fi
    echo "release.sh: upgrade from OpenSearch $from to $to: the index loaded on $from answers the smoke run on $to ($((SECONDS - started)) s)"
}

# Builds the zip for <version> from <commit> of this repository's history into <dir>, in a temporary git
# worktree of that commit (removed afterwards); prints the zip's path.
build_at_commit() {
    local commit=$1 version=$2 dir=$3 src status=0 zip
    git rev-parse --git-dir > /dev/null 2>&1 || die "$root is not a git checkout: cannot build the plugin at $commit"
    if ! git rev-parse --verify -q "$commit^{commit}" > /dev/null; then
        if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
            die "commit $commit is not in this clone: it is shallow (its history stops at $(git log --format=%h --max-parents=0 HEAD | tr '\n' ' '| sed 's/ $//')); fetch the history (git fetch --unshallow) or clone without --depth"
        fi
        die "no commit $commit in the history of $root"
    fi
    rm -rf "$dir" && mkdir -p "$dir"
    src=$(mktemp -d "${TMPDIR:-/tmp}/neardup-at-$commit.XXXXXX")
    git worktree add -q --detach "$src/src" "$commit" > "$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; rm -rf "$src"; die "git worktree add of $commit failed"; }
    mvn -B -q "${maven_args[@]}" -f "$src/src/pom.xml" -Dopensearch.version="$version" -Dbuild.dir="$dir" \
        -Dmaven.test.skip=true -DskipITs -DskipSecurityITs -Dspotless.check.skip=true -Dforbiddenapis.skip=true \
        package >> "$dir/build.log" 2>&1 || status=$?
    git worktree remove --force "$src/src" && rm -rf "$src"
    [ "$status" = 0 ] || { tail -n 40 "$dir/build.log" >&2; die "building the plugin at $commit for OpenSearch $version failed (log: $dir/build.log)"; }
    zip=$dir/$(zip_name "$version")
    [ -f "$zip" ] || die "the build at $commit made no $(basename "$zip") in $dir"
    echo "$zip"
}

# True when the node of <state> runs the plugin jar of <zip>.
runs_jar_of() {
    local state=$1 zip=$2 jar
    jar=$(unzip -Z1 "$zip" | grep -m 1 '^opensearch-neardup-.*\.jar$') || return 1
    unzip -p "$zip" "$jar" | cmp -s - "$(readlink -f "$state/opensearch")/plugins/opensearch-neardup/$jar"
}

# The plugin built at <from> upgraded in place to today's on a node of the default release, its data kept (usage above).
plugin_upgrade() {
    local from=$1 version=$test_opensearch_version dir=$work_dir/plugin-upgrade started=$SECONDS
    local url="http://127.0.0.1:$http_base" corpus=$root/src/demo/manpages-demo.jsonl
    local previous today=$release_dir/$(zip_name "$test_opensearch_version") state
    state=$dir/node
    previous=$(build_at_commit "$from" "$version" "$dir/at-$from") || exit 1
    echo "release.sh: $(basename "$previous") built at $from in $((SECONDS - started)) s"
    if [ -f "$today" ]; then
        echo "release.sh: today's zip: $today, built $(date -r "$today" '+%F %T')"
    else
        build_one "$version" 0
    fi
    unpack_distribution "$version"

    answers() { bash src/scripts/upgrade-answers.sh "$url" "$corpus" "$@"; }
    compare() { bash src/scripts/upgrade-answers.sh compare "$dir/$1" "$dir/$2" "${@:3}"; }
    local status=0
    rm -rf "$dir/answers" "$state"
    mkdir -p "$dir/answers"
    {
        bash src/scripts/node.sh start "$state" "$http_base" "$transport_base" \
            "$work_dir/$version/distribution/opensearch-$version" "$previous" \
            && answers load && answers stream-load && answers record "$dir/answers/previous" \
            && echo "release.sh: the node stopped, the plugin replaced by today's zip, the node started on the same data" \
            && bash src/scripts/node.sh restart "$state" "$today" \
            && { runs_jar_of "$state" "$today" || { echo "release.sh: the node does not run today's plugin jar" >&2; false; }; } \
            && answers record "$dir/answers/upgraded" && compare answers/previous answers/upgraded \
            && answers add && answers record-added "$dir/answers/added" && answers merge \
            && echo "release.sh: restarting the node on its data" && bash src/scripts/node.sh restart "$state" \
            && answers record-added "$dir/answers/added-restarted" && compare answers/added answers/added-restarted \
            && answers remove-added && answers record "$dir/answers/restarted" && compare answers/previous answers/restarted \
            && answers new-index \
            && answers stream-rollover && answers stream-record upgrade-stream "$dir/answers/stream-mixed" \
            && answers stream-record upgrade-stream-f2 "$dir/answers/stream-f2" \
            && compare answers/stream-f2 answers/stream-mixed "all format 2" "formats 1 and 2"
    } || status=$?
    bash src/scripts/node.sh stop "$state" > /dev/null || true
    [ "$status" = 0 ] || die "the plugin upgrade from $from failed (node log: $state/logs/neardup.log; answers: $dir/answers)"
    echo "release.sh: plugin upgrade in place from $from to today's build on OpenSearch $version:" \
        "$(ls "$dir/answers/previous" | wc -l) answers identical after the upgrade and after new documents (format 1)," \
        "a force-merge and a restart; a new index gets format 2; a data stream of format 1, rolled over to format 2," \
        "answers as one of format 2 alone ($(ls "$dir/answers/stream-f2" | wc -l) answers identical) ($((SECONDS - started)) s)"
}

# Runs <function> for every version, $jobs at a time: job i takes versions i, i + jobs, ... in turn (so
# that it can keep one pair of ports), its output prefixed with the version. Fails if any version failed.
run_jobs() {
    local function=$1
    shift
    local -a versions=("$@") pids=()
    local job
    for ((job = 0; job < jobs && job < ${#versions[@]}; job++)); do
        (
            local k
            for ((k = job; k < ${#versions[@]}; k += jobs)); do
                "$function" "${versions[$k]}" "$job" 2>&1 | sed -u "s/^/[${versions[$k]}] /"
                [ "${PIPESTATUS[0]}" = 0 ] || exit 1
            done
        ) &
        pids+=($!)
    done
    local failed=0 pid
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
    return "$failed"
}

command=${1:-}
shift || true
case "$command" in
    build | smoke)
        versions=("$@")
        if [ ${#versions[@]} -eq 0 ]; then
            if [ "$command" = build ]; then versions=("${SUPPORTED[@]}"); else versions=("${NODE_VERSIONS[@]}"); fi
        fi
        for v in "${versions[@]}"; do is_supported "$v" || die "OpenSearch $v is not among the supported releases: ${SUPPORTED[*]}"; done
        started=$SECONDS
        if [ "$command" = build ]; then
            run_jobs build_one "${versions[@]}" || die "building the release set failed"
            echo "release.sh: built ${#versions[@]} zips into $release_dir in $((SECONDS - started)) s"
            (cd "$release_dir" && sha512sum -c --quiet ./*.sha512) || die "a checksum in $release_dir does not match"
        else
            run_jobs smoke_one "${versions[@]}" || die "the smoke runs failed"
            for v in "${versions[@]}"; do
                [[ "$v" != 2.* ]] || compare_smoke_answers "$v"
            done
            echo "release.sh: smoke runs passed on OpenSearch ${versions[*]} in $((SECONDS - started)) s"
        fi
        ;;
    upgrade)
        [ $# -eq 0 ] || [ $# -eq 2 ] || die "usage: release.sh upgrade [<from> <to>]"
        upgrade "${1:-3.0.0}" "${2:-3.8.0}"
        ;;
    plugin-upgrade)
        [ $# -le 1 ] || die "usage: release.sh plugin-upgrade [<from-commit>]"
        plugin_upgrade "${1:-$PLUGIN_UPGRADE_FROM}"
        ;;
    versions)
        for v in "${SUPPORTED[@]}"; do
            if has_node "$v"; then echo "$v node"; else echo "$v"; fi
        done
        ;;
    *) die "usage: release.sh build|smoke [<version>...] | release.sh upgrade [<from> <to>] | release.sh plugin-upgrade [<from-commit>] | release.sh versions" ;;
esac
