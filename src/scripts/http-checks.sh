# Sourced by smoke.sh and upgrade-answers.sh: requests to a node and checks of its answers. The script sets
# $url (the node) and $label (what its messages start with) first. Needs curl and jq.

# fail <message>: ends the script
fail() {
    echo "$label: FAILED: $*" >&2
    exit 1
}

# request <method> <path> [body] [content-type]: the response body; fails on an HTTP error, printing the answer.
# The body is JSON, or @<file> to send a file as it is; the content type defaults to application/json.
request() {
    local method=$1 path=$2 body=${3:-} type=${4:-application/json} out status
    local -a data=()
    [ -z "$body" ] || data=(-H "Content-Type: $type" --data-binary "$body")
    out=$(mktemp)
    status=$(curl -sS -o "$out" -w '%{http_code}' -X "$method" "$url$path" "${data[@]}") \
        || { rm -f "$out"; fail "$method $path: no answer from $url"; }
    if [ "${status:0:1}" != 2 ]; then
        echo "$label: $method $path answered $status: $(head -c 2000 "$out")" >&2
        rm -f "$out"
        exit 1
    fi
    cat "$out"
    rm -f "$out"
}

# check <description> <jq-expression> <json>: the expression must yield true
check() {
    local what=$1 expression=$2 json=$3
    [ "$(jq -r "$expression" <<< "$json")" = true ] || fail "$what; the answer: ${json:0:2000}"
    echo "$label: ok: $what"
}
