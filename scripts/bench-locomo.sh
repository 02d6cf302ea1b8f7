#!/usr/bin/env bash
# Runs the LoCoMo evaluation for every retrieval configuration in the README
# and prints the results as a markdown table, one row per configuration,
# with the exact command that produced it.
#
#   scripts/bench-locomo.sh [path/to/locomo-dev.json]
#
# The data defaults to ../shared/bench/locomo/locomo-dev.json (CC BY-NC 4.0:
# read it from there, never copy it into the repository). The use-lite rows
# need the model weights: scripts/fetch-models.sh.
set -euo pipefail
# Rows that name no embedder mean the built-in default, hash, whatever
# models this machine has installed (an unnamed embedder would pick
# use-lite when its weights are there); use-lite rows name it.
export HUIMEM_EMBEDDING_NAME=${HUIMEM_EMBEDDING_NAME:-hash}
cd "$(dirname "$0")/.."
data=${1:-../shared/bench/locomo/locomo-dev.json}
[ -f "$data" ] || { echo "bench-locomo: no LoCoMo data at $data" >&2; exit 2; }
go build -o /tmp/huimem-bench ./cmd/huimem-bench

# label | environment
configs=(
  "BM25 only|HUIMEM_RETRIEVER_VECTOR_WEIGHT=0 HUIMEM_RETRIEVER_BM25_WEIGHT=1 HUIMEM_RETRIEVER_CONTEXT_BOOST=0"
  "BM25 + neighbour context 0.3|HUIMEM_RETRIEVER_VECTOR_WEIGHT=0 HUIMEM_RETRIEVER_BM25_WEIGHT=1"
  "BM25 + neighbour context 1.0|HUIMEM_RETRIEVER_VECTOR_WEIGHT=0 HUIMEM_RETRIEVER_BM25_WEIGHT=1 HUIMEM_RETRIEVER_CONTEXT_BOOST=1"
  "hash only|HUIMEM_RETRIEVER_VECTOR_WEIGHT=1 HUIMEM_RETRIEVER_BM25_WEIGHT=0"
  "hash + BM25 0.6/0.4, context 0 (issue 2 defaults)|HUIMEM_RETRIEVER_CONTEXT_BOOST=0"
  "hash + BM25 0.6/0.4, context 0.3 (defaults)|"
  "hash + BM25 0.2/0.8, context 1.0|HUIMEM_RETRIEVER_VECTOR_WEIGHT=0.2 HUIMEM_RETRIEVER_BM25_WEIGHT=0.8 HUIMEM_RETRIEVER_CONTEXT_BOOST=1"
  "hash + BM25, RRF, context 0.3|HUIMEM_RETRIEVER_FUSION=rrf"
  "use-lite only|HUIMEM_EMBEDDING_NAME=use-lite HUIMEM_RETRIEVER_VECTOR_WEIGHT=1 HUIMEM_RETRIEVER_BM25_WEIGHT=0"
  "use-lite + BM25 0.6/0.4, context 0.3|HUIMEM_EMBEDDING_NAME=use-lite"
  "use-lite + BM25 0.5/0.5, context 0.8|HUIMEM_EMBEDDING_NAME=use-lite HUIMEM_RETRIEVER_VECTOR_WEIGHT=0.5 HUIMEM_RETRIEVER_BM25_WEIGHT=0.5 HUIMEM_RETRIEVER_CONTEXT_BOOST=0.8"
  "use-lite + BM25 0.3/0.7, context 0.8|HUIMEM_EMBEDDING_NAME=use-lite HUIMEM_RETRIEVER_VECTOR_WEIGHT=0.3 HUIMEM_RETRIEVER_BM25_WEIGHT=0.7 HUIMEM_RETRIEVER_CONTEXT_BOOST=0.8"
  "use-lite + BM25 0.3/0.7, context 0.8, no time phrases|HUIMEM_EMBEDDING_NAME=use-lite HUIMEM_RETRIEVER_VECTOR_WEIGHT=0.3 HUIMEM_RETRIEVER_BM25_WEIGHT=0.7 HUIMEM_RETRIEVER_CONTEXT_BOOST=0.8 --no-time"
  "use-lite + BM25, RRF, context 0.8|HUIMEM_EMBEDDING_NAME=use-lite HUIMEM_RETRIEVER_FUSION=rrf HUIMEM_RETRIEVER_CONTEXT_BOOST=0.8"
)
echo "| configuration | R@5 | R@10 | cat1 | cat2 | cat3 | cat4 | cat5 | session R@10 | MRR | NDCG@10 | command |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for c in "${configs[@]}"; do
  label=${c%%|*}
  rest=${c#*|}
  env_part=""; flags=""
  for w in $rest; do
    case $w in --*) flags="$flags $w" ;; *) env_part="$env_part $w" ;; esac
  done
  json=$(env $env_part /tmp/huimem-bench locomo --data "$data" --json $flags)
  row=$(python3 -c '
import json,sys
r=json.loads(sys.argv[1]); c=r["by_category"]
f=lambda x: "%.3f"%x
print(" | ".join([f(r["recall"]["5"]), f(r["recall"]["10"])] + [f(c[str(k)]["10"]) for k in range(1,6)] + [f(r["session_recall_at_10"]), f(r["mrr"]), f(r["ndcg_at_10"])]))
' "$json")
  cmd="${env_part# } huimem-bench locomo --data \$DATA$flags"
  echo "| $label | $row | \`${cmd# }\` |"
done
