#!/usr/bin/env bash
# Runs the recall-quality evaluation on both benchmarks, LoCoMo (dev split)
# and BEAM (100K, dev half), for every retrieval configuration and ablation
# in docs/recall-quality.md, and prints one markdown table with the command
# behind each row.
#
#   scripts/bench-recall.sh [locomo-dev.json] [beam-dir]
#
# The data defaults to ../shared/bench/locomo/locomo-dev.json (CC BY-NC 4.0)
# and ../shared/bench/beam/100K-dev (CC BY-SA 4.0): read them from there,
# never copy them into the repository. The use-lite rows need the model
# weights (scripts/fetch-models.sh) and are skipped without them.
set -euo pipefail
cd "$(dirname "$0")/.."
locomo=${1:-../shared/bench/locomo/locomo-dev.json}
beam=${2:-../shared/bench/beam/100K-dev}
[ -f "$locomo" ] || { echo "bench-recall: no LoCoMo data at $locomo" >&2; exit 2; }
[ -d "$beam" ] || { echo "bench-recall: no BEAM data at $beam" >&2; exit 2; }
bin=${HUIMEM_BENCH_BIN:-/tmp/huimem-bench}
[ -n "${HUIMEM_BENCH_BIN:-}" ] || go build -o "$bin" ./cmd/huimem
uselite=${HUIMEM_USELITE_DIR:-$HOME/.cache/huimem/models/use-lite}

R=HUIMEM_RETRIEVER
old="${R}_VECTOR_WEIGHT=0.6 ${R}_BM25_WEIGHT=0.4 ${R}_CONTEXT_BOOST=0.3 ${R}_REPLY_BOOST=1 ${R}_SESSION_BOOST=0 ${R}_MIN_RELEVANCE=0"
# label | environment and flags
configs=(
  "round-1 weights (hash 0.6/0.4, context 0.3, reply field at 1.0, no floor)|$old"
  "+ assistant text in its own field (reply 0.3)|${old/REPLY_BOOST=1/REPLY_BOOST=0.3}"
  "+ weights 0.1/0.9, context 1.0|${R}_CONTEXT_BOOST=1 ${R}_SESSION_BOOST=0 ${R}_MIN_RELEVANCE=0"
  "+ session evidence 0.4|${R}_MIN_RELEVANCE=0"
  "+ min_relevance 0.3 (defaults)|"
  "defaults, polluted questions (1.6k-char system prompt in front)|--polluted"
  "defaults, 200 off-topic questions per conversation|--off-topic 200"
  "defaults without min_relevance, off-topic|${R}_MIN_RELEVANCE=0 --off-topic 200"
  "ablation: defaults with reply field weight 1.0|${R}_REPLY_BOOST=1"
  "ablation: defaults without session evidence|${R}_SESSION_BOOST=0"
  "ablation: defaults with context 0.3|${R}_CONTEXT_BOOST=0.3"
  "ablation: defaults with hash 0.6/0.4|${R}_VECTOR_WEIGHT=0.6 ${R}_BM25_WEIGHT=0.4"
  "ablation: defaults, BM25 only|${R}_VECTOR_WEIGHT=0 ${R}_BM25_WEIGHT=1"
  "ablation: defaults, RRF|${R}_FUSION=rrf"
  "ablation: defaults, message chunker|HUIMEM_CHUNKER_NAME=message"
  "use-lite + defaults|HUIMEM_EMBEDDING_NAME=use-lite"
  "use-lite, 0.3/0.7|HUIMEM_EMBEDDING_NAME=use-lite ${R}_VECTOR_WEIGHT=0.3 ${R}_BM25_WEIGHT=0.7"
)
echo "| configuration | LoCoMo R@5 | LoCoMo R@10 | BEAM R@5 | BEAM R@10 | off-topic empty (LoCoMo / BEAM) | command (DATA: LoCoMo file or BEAM folder) |"
echo "|---|---:|---:|---:|---:|---:|---|"
for c in "${configs[@]}"; do
  label=${c%%|*}
  rest=${c#*|}
  env_part=""; flags=""
  for w in $rest; do
    case $w in --*|[0-9]*) flags="$flags $w" ;; *) env_part="$env_part $w" ;; esac
  done
  if [[ $env_part == *use-lite* && ! -d $uselite ]]; then
    echo "| $label | – | – | – | – | – | skipped: no use-lite weights at $uselite |"
    continue
  fi
  lj=$(env $env_part "$bin" bench locomo --data "$locomo" --json $flags)
  bj=$(env $env_part "$bin" bench beam --data "$beam" --json $flags)
  row=$(python3 -c '
import json,sys
l=json.loads(sys.argv[1]); b=json.loads(sys.argv[2])
f=lambda x: "%.3f"%x
off="–"
if l.get("off_topic"): off="%.1f%% / %.1f%%"%(100*l.get("off_topic_empty",0),100*b.get("off_topic_empty",0))
print(" | ".join([f(l["recall"]["5"]), f(l["recall"]["10"]), f(b["recall"]["5"]), f(b["recall"]["10"]), off]))
' "$lj" "$bj")
  cmd="${env_part# } huimem bench locomo|beam --data \$DATA$flags"
  echo "| $label | $row | \`${cmd# }\` |"
done
