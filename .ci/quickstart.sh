#!/usr/bin/env bash
# The README's quickstart, command for command, on a fresh clone right after `npm ci` (and before any
# build): the server (`npm start`) in the background on a free port with a data dir of its own, the admin
# and the invited colleague each with a CLI profile of their own, and at the end the colleague must find
# the handbook. Placeholders are filled in: the port, the data dir, the invitation code. Where the script
# needs a value from a command's output (the invitation code) it adds --json to that command.
# Usage: npm ci && bash .ci/quickstart.sh
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/lore-quickstart-XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Nothing from the caller's shell or machine: an embedded database in our data dir, profiles in our own
# config home, no token or server from the environment.
unset DATABASE_URL LORE_DATABASE_URL LORE_SERVER LORE_TOKEN LORE_PROFILE LORE_HOST
export XDG_CONFIG_HOME="$work/config"
export LORE_DATA_DIR="$work/data"
export LORE_PORT
LORE_PORT=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
server="http://127.0.0.1:$LORE_PORT"
started=$SECONDS

fail() {
  echo "quickstart: $*" >&2
  echo "--- server output" >&2
  tail -n 40 "$work/server.log" >&2 || true
  exit 1
}
# Prints a command as typed (arguments with spaces quoted), then runs it.
run() {
  local shown="" arg
  for arg in "$@"; do [[ "$arg" == *" "* ]] && shown+=" \"$arg\"" || shown+=" $arg"; done
  printf '\n$%s\n' "$shown"
  "$@"
}

# Issue 10.1: right after `npm ci`, with nothing built, `npx lore` works (it builds itself on first use).
version=$(npx lore --version) || fail "npx lore --version failed on a fresh install"
[ "$version" = "$(node -p 'require("./packages/cli/package.json").version')" ] || fail "npx lore --version printed '$version'"
echo "npx lore --version: $version"

# Step 1 (first shell): npm start. setsid gives it a process group of its own, so cleanup stops the
# server npm runs as well as npm.
echo "\$ npm start   # in the background, on $server, data in $LORE_DATA_DIR"
setsid npm start >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 180); do
  if node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$server/api/health"; then break; fi
  kill -0 "$server_pid" 2>/dev/null || fail "npm start exited"
  sleep 1
done
[ -s "$LORE_DATA_DIR/bootstrap-token" ] || fail "the server did not become ready in 180 s"
grep -q "Lore is ready at $server" "$work/server.log" || fail "npm start did not print 'Lore is ready at $server'"

# Step 2 (second shell): sign in as the first admin.
echo
echo "\$ npx lore login --server $server --token \"\$(cat $LORE_DATA_DIR/bootstrap-token)\""
npx lore login --server "$server" --token "$(cat "$LORE_DATA_DIR/bootstrap-token")"
run npx lore whoami

# Step 3: add the handbook for everyone, search it.
run npx lore sources add examples/handbook.md --space general --classification INTERNAL
run npx lore search "how many vacation days do we get?"

# Step 4: invite a colleague; they accept with a profile of their own and search.
echo
echo "\$ npx lore admin invitations create --email ann@example.com --department General"
code=$(npx lore --json admin invitations create --email ann@example.com --department General |
  node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).invitationCode))')
[[ "$code" == lore_inv_* ]] || fail "no invitation code: '$code'"
run npx lore --profile ann invitations accept "$code" --server "$server"
found=$(run npx lore --profile ann search "how many vacation days do we get?") || fail "ann's search failed"
echo "$found"

# The invited colleague finds the handbook's passage.
grep -q "handbook" <<<"$found" || fail "the invited colleague did not find the handbook"
grep -q "28 vacation days" <<<"$found" || fail "the invited colleague's result does not quote the vacation passage"
echo
echo "quickstart: OK in $((SECONDS - started)) s (the invited colleague found the handbook)"
