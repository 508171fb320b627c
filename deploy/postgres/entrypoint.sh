#!/bin/sh
# A new data folder is made on first start, with POSTGRES_USER (default postgres) holding
# POSTGRES_PASSWORD and owning POSTGRES_DB (default: the user's name), as postgres:15 does.
set -eu
user="${POSTGRES_USER:-postgres}"
database="${POSTGRES_DB:-$user}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password_file="$(mktemp)"
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}" > "$password_file"
  initdb -D "$PGDATA" -U "$user" --pwfile="$password_file" \
    --auth-host=scram-sha-256 --auth-local=trust >/dev/null
  rm -f "$password_file"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$database" != postgres ]; then
    echo "CREATE DATABASE \"$database\" OWNER \"$user\";" \
      | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
fi
exec "$@"
