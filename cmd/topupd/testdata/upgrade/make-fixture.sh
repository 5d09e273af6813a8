#!/usr/bin/env bash
# Makes an upgrade fixture: a database written by topupd as built from an
# older commit, for TestUpgradeFromOldDatabase. It builds that commit in a
# temporary worktree, runs its `serve --demo` on a SQLite file and on a
# fresh PostgreSQL database, places a few orders through the reseller API
# (a top-up completed by sim, one refused by sim and refunded, three keys),
# and writes into testdata/upgrade/<name>/:
#   topupd.db.gz     the SQLite database
#   postgres.sql.gz  pg_dump --inserts of the PostgreSQL database
#   fixture.json     the secret key both were sealed with, and what the
#                    test checks after the upgrade
# Usage (from the repository root, with PostgreSQL at $PG):
#   PG=postgres://postgres@127.0.0.1:5432 cmd/topupd/testdata/upgrade/make-fixture.sh <commit> <name>
set -euo pipefail
commit=$1 name=$2
PG=${PG:-postgres://postgres@127.0.0.1:5432}
out=$(pwd)/cmd/topupd/testdata/upgrade/$name
work=$(mktemp -d)
trap 'git worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add -q --detach "$work/src" "$commit"
(cd "$work/src" && go build -o "$work/topupd" ./cmd/topupd)
mkdir -p "$out"
token=fixture-admin-token
key=$(head -c 32 /dev/urandom | base64)
pgdb=fixture_$(date +%s)

run() { # db: runs the demo, places the orders, stops; prints the demo's API key and account
  local db=$1 log=$work/serve.log
  TOPUPD_ADMIN_TOKEN=$token TOPUPD_SECRET_KEY=$key "$work/topupd" serve --demo --db "$db" \
    --addr 127.0.0.1:18580 --admin-addr 127.0.0.1:18581 >"$log" 2>&1 &
  local pid=$!
  trap "kill $pid 2>/dev/null || true" RETURN
  for _ in $(seq 100); do grep -q "^topupd: admin API on" "$log" && break; sleep 0.1; done
  local apikey acct
  apikey=$(sed -n 's/.*API key \(tpd_[^ ]*\).*/\1/p' "$log")
  acct=$(sed -n 's/.*account \(acc_[^ ]*\) holds.*/\1/p' "$log")
  local api=http://127.0.0.1:18580
  curl -fsS -H "X-API-Key: $apikey" -d '{"pid":"pubg-60","trxid":"fx-topup","userId":"5123456789"}' $api/orders >/dev/null
  curl -fsS -H "X-API-Key: $apikey" -d '{"pid":"ffmena-100","trxid":"fx-refused","userId":"99990001"}' $api/orders >/dev/null
  curl -fsS -H "X-API-Key: $apikey" -d '{"pid":"gamekeypubg-60","trxid":"fx-keys","quantity":3}' $api/orders >/dev/null
  curl -fsS -H "Authorization: Bearer $token" -d '{"amountUsd":25,"reference":"fx-credit"}' http://127.0.0.1:18581/admin/accounts/$acct/credits >/dev/null
  local balance
  balance=$(curl -fsS -H "X-API-Key: $apikey" $api/balance | sed -n 's/.*"balanceUsd":\([0-9.]*\).*/\1/p')
  kill -TERM $pid; wait $pid || true
  printf '%s %s %s\n' "$apikey" "$acct" "$balance"
}

rm -f "$out/topupd.db"* "$out/postgres.sql"* "$work/fx.db"*
read -r sqlkey sqlacct sqlbal < <(run "$work/fx.db")
sqlite3 "$work/fx.db" "VACUUM INTO '$out/topupd.db'" 2>/dev/null || cp "$work/fx.db" "$out/topupd.db"
chmod 600 "$out/topupd.db"

pgkey="" pgacct="" pgbal=""
if [ -n "$(git ls-tree "$commit" postgres)" ]; then # builds before 1fb4955 had no PostgreSQL store
psql -q "$PG/postgres" -c "CREATE DATABASE $pgdb"
read -r pgkey pgacct pgbal < <(run "$PG/$pgdb?sslmode=disable")
# psql's \restrict lines (pg_dump since 15.14) are left out: the test runs the dump as SQL.
pg_dump --no-owner --no-privileges --inserts "$PG/$pgdb" | sed '/^\\\(un\)\{0,1\}restrict /d' >"$out/postgres.sql"
psql -q "$PG/postgres" -c "DROP DATABASE $pgdb"
gzip -9 -f "$out/postgres.sql"
fi

cat >"$out/fixture.json" <<JSON
{
  "commit": "$(git rev-parse "$commit")",
  "secretKey": "$key",
  "adminToken": "$token",
  "sqlite": {"apiKey": "$sqlkey", "accountId": "$sqlacct", "balanceUsd": "$sqlbal"},
  "postgres": {"apiKey": "$pgkey", "accountId": "$pgacct", "balanceUsd": "$pgbal"}
}
JSON
gzip -9 -f "$out/topupd.db"
echo "fixture $name from $commit in $out"
