# Shared by the service tests (tests/cli/service*.sh): start the server, call the API, read JSON.
# The caller sets rockperm, work and name, and runs in $work with service.ini there.
fail() { echo "$name: FAIL: $*" >&2; [ -f "$work/serve.log" ] && tail -20 "$work/serve.log" >&2; exit 1; }
pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null' EXIT  # no server outlives its test
command -v curl >/dev/null || fail "curl is needed (packaging/install-deps.sh installs it)"
start() {
  rm -f state/port
  "$rockperm" serve --config service.ini >>serve.log 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do [ -s state/port ] && break; sleep 0.1; done
  [ -s state/port ] || fail "the server did not start"
  url="http://127.0.0.1:$(cat state/port)"
}
# api TOKEN METHOD PATH [curl args...]: prints the body, then the HTTP status on its own line
api() {
  local token=$1 method=$2 path=$3 auth=()
  shift 3
  [ -n "$token" ] && auth=(-H "Authorization: Bearer $token")
  curl -s -m 20 -X "$method" "${auth[@]}" -w '\n%{http_code}' "$@" "$url$path"
}
status_of() { printf '%s\n' "$1" | tail -1; }
field() { python3 -c "import json,sys; d=json.loads(sys.stdin.read().rstrip('\n').rsplit('\n',1)[0]); print(d$2)" <<<"$1"; }
wait_finished() {  # token id: waits for the job to end, prints its JSON
  local r
  for _ in $(seq 1 600); do
    r=$(api "$1" GET "/api/jobs/$2")
    case $(field "$r" "['state']") in finished | cancelled) echo "$r"; return 0 ;; esac
    sleep 0.2
  done
  fail "job $2 did not finish: $r"
}
