#!/usr/bin/env bash
# Runs the recall-quality evaluation on both benchmarks, LoCoMo (dev split)
# and BEAM (100K, dev half), for every retrieval configuration and ablation
# in docs/recall-quality.md, and prints one markdown table with the command
# behind each row.
#
#   scripts/bench-recall.sh [locomo-dev.json] [beam-dir]
#
# Each row runs each benchmark twice: the real questions together with 200
# generated off-topic questions per conversation (--off-topic 200) and the
# other benchmark's real questions (--foreign; neither changes the real
# questions' results), then the real questions with a 1,600-character
# agent system prompt pasted in front (--polluted).
# Rows marked "nopol" skip the polluted run (set HUIMEM_BENCH_POLLUTED=all
# to run it for them too).
#
# The data defaults to ../shared/bench/locomo/locomo-dev.json (CC BY-NC 4.0)
# and ../shared/bench/beam/100K-dev (CC BY-SA 4.0): read them from there,
# never copy them into the repository. The use-lite rows need the model
# weights (`huimem models pull use-lite` or scripts/fetch-models.sh) and
# are skipped without them; each takes minutes (the embedder runs on the
# CPU). HUIMEM_BENCH_BIN names a prebuilt binary to use;
# HUIMEM_BENCH_ROWS, an extended regular expression, runs only the rows
# whose label matches it; HUIMEM_BENCH_HEADER=noheader leaves out the
# table's header, to append rows to an earlier table.
set -euo pipefail
# Rows that name no embedder mean the built-in default, hash, whatever
# models this machine has installed (an unnamed embedder would pick
# use-lite when its weights are there); use-lite rows name it.
export HUIMEM_EMBEDDING_NAME=${HUIMEM_EMBEDDING_NAME:-hash}
cd "$(dirname "$0")/.."
locomo=${1:-../shared/bench/locomo/locomo-dev.json}
beam=${2:-../shared/bench/beam/100K-dev}
[ -f "$locomo" ] || { echo "bench-recall: no LoCoMo data at $locomo" >&2; exit 2; }
[ -d "$beam" ] || { echo "bench-recall: no BEAM data at $beam" >&2; exit 2; }
bin=${HUIMEM_BENCH_BIN:-/tmp/huimem-bench}
[ -n "${HUIMEM_BENCH_BIN:-}" ] || go build -o "$bin" ./cmd/huimem-bench
uselite=${HUIMEM_USELITE_DIR:-$HOME/.cache/huimem/models/use-lite}
polluted_all=${HUIMEM_BENCH_POLLUTED:-}

R=HUIMEM_RETRIEVER
old="${R}_VECTOR_WEIGHT=0.6 ${R}_BM25_WEIGHT=0.4 ${R}_REPLY_BOOST=1 ${R}_SESSION_BOOST=0 ${R}_MIN_RELEVANCE=0"
UL=HUIMEM_EMBEDDING_NAME=use-lite
# label | environment | nopol (optional)
configs=(
  "round-1 weights (hash 0.6/0.4, reply field at 1.0, no floor)|$old"
  "+ assistant text in its own field (reply 0.3)|${old/REPLY_BOOST=1/REPLY_BOOST=0.3}"
  "+ weights 0.1/0.9|${R}_REPLY_BOOST=0.3 ${R}_SESSION_BOOST=0 ${R}_MIN_RELEVANCE=0"
  "+ session evidence 0.4|${R}_REPLY_BOOST=0.3 ${R}_MIN_RELEVANCE=0"
  "+ reply field 0.01 (defaults without the floor)|${R}_MIN_RELEVANCE=0"
  "**defaults** (+ min_relevance 0.3)|"
  "ablation: floor 0.25|${R}_MIN_RELEVANCE=0.25|nopol"
  "ablation: floor 0.35|${R}_MIN_RELEVANCE=0.35|nopol"
  "ablation: reply field weight 0.3 (round 8's default)|${R}_REPLY_BOOST=0.3"
  "ablation: reply field weight 1.0|${R}_REPLY_BOOST=1|nopol"
  "ablation: reply field weight 0 (assistant words ignored)|${R}_REPLY_BOOST=0|nopol"
  "ablation: no session evidence|${R}_SESSION_BOOST=0|nopol"
  "ablation: session evidence 1.0|${R}_SESSION_BOOST=1|nopol"
  "ablation: context 0 (neighbours ignored)|${R}_CONTEXT_BOOST=0|nopol"
  "ablation: context 0.6|${R}_CONTEXT_BOOST=0.6|nopol"
  "ablation: context 0, no floor|${R}_CONTEXT_BOOST=0 ${R}_MIN_RELEVANCE=0|nopol"
  "ablation: pool factor 10|${R}_POOL_FACTOR=10|nopol"
  "ablation: strict time (an empty window stays empty)|${R}_STRICT_TIME=true"
  "ablation: strict time, no floor|${R}_STRICT_TIME=true ${R}_MIN_RELEVANCE=0|nopol"
  "ablation: hash 0.6/0.4|${R}_VECTOR_WEIGHT=0.6 ${R}_BM25_WEIGHT=0.4|nopol"
  "ablation: BM25 only|${R}_VECTOR_WEIGHT=0 ${R}_BM25_WEIGHT=1|nopol"
  "ablation: RRF|${R}_FUSION=rrf|nopol"
  "ablation: turn chunks kept whole however long (max_chars -1, rounds 1–7)|--config=scripts/bench-configs/turn-whole.yaml"
  "ablation: turn chunks cut above 1,000 characters|--config=scripts/bench-configs/turn-1000.yaml|nopol"
  "ablation: turn chunks cut above 4,000 characters|--config=scripts/bench-configs/turn-4000.yaml|nopol"
  "ablation: message chunker|HUIMEM_CHUNKER_NAME=message|nopol"
  "ablation: message chunker, no floor|HUIMEM_CHUNKER_NAME=message ${R}_MIN_RELEVANCE=0|nopol"
  "use-lite + defaults|$UL"
  "use-lite, turn chunks kept whole (max_chars -1)|$UL --config=scripts/bench-configs/turn-whole.yaml|nopol"
  "use-lite, message chunker|$UL HUIMEM_CHUNKER_NAME=message|nopol"
  "use-lite + defaults, no floor|$UL ${R}_MIN_RELEVANCE=0|nopol"
  "use-lite, reply field weight 0.3 (round 8's default)|$UL ${R}_REPLY_BOOST=0.3|nopol"
  "use-lite, floor on relevance alone (floor_similarity off)|$UL ${R}_FLOOR_SIMILARITY=off|nopol"
  "use-lite, floor_similarity 1.5,0.4|$UL ${R}_FLOOR_SIMILARITY=1.5,0.4|nopol"
  "use-lite, floor_similarity 2.5,0.4|$UL ${R}_FLOOR_SIMILARITY=2.5,0.4|nopol"
  "use-lite 0.3/0.7|$UL ${R}_VECTOR_WEIGHT=0.3 ${R}_BM25_WEIGHT=0.7|nopol"
)
rows=${HUIMEM_BENCH_ROWS:-.}
[ "${HUIMEM_BENCH_HEADER:-}" = noheader ] || echo "| configuration | LoCoMo R@5 | LoCoMo R@10 | BEAM R@5 | BEAM R@10 | off-topic empty (LoCoMo / BEAM) | foreign empty (LoCoMo / BEAM) | polluted R@10 (LoCoMo / BEAM) | command (DATA: LoCoMo file or BEAM folder; off-topic column: add --off-topic 200, foreign: --foreign with the other benchmark's data, polluted: --polluted) |"
[ "${HUIMEM_BENCH_HEADER:-}" = noheader ] || echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for c in "${configs[@]}"; do
  IFS='|' read -r label words mark <<<"$c"
  grep -Eq -- "$rows" <<<"$label" || continue
  # A row's words are NAME=VALUE settings for the environment, and flags
  # (--config=FILE) for huimem.
  env_part='' flags=()
  for w in $words; do
    if [[ $w == --* ]]; then flags+=("$w"); else env_part+="${env_part:+ }$w"; fi
  done
  cmd="${env_part:+$env_part }huimem-bench locomo|beam${flags[*]:+ ${flags[*]}} --data \$DATA"
  if [[ $env_part == *use-lite* && ! -d $uselite ]]; then
    echo "| $label | – | – | – | – | – | – | – | skipped: no use-lite weights at $uselite |"
    continue
  fi
  # shellcheck disable=SC2086 # env_part is a list of NAME=VALUE words
  lj=$(env $env_part "$bin" locomo "${flags[@]}" --data "$locomo" --json --off-topic 200 --foreign "$beam")
  # shellcheck disable=SC2086
  bj=$(env $env_part "$bin" beam "${flags[@]}" --data "$beam" --json --off-topic 200 --foreign "$locomo")
  lp='{}' bp='{}'
  if [[ $mark != nopol || -n $polluted_all ]]; then
    # shellcheck disable=SC2086
    lp=$(env $env_part "$bin" locomo "${flags[@]}" --data "$locomo" --json --polluted)
    # shellcheck disable=SC2086
    bp=$(env $env_part "$bin" beam "${flags[@]}" --data "$beam" --json --polluted)
  fi
  row=$(python3 -c '
import json,sys
l,b,lp,bp=(json.loads(a) for a in sys.argv[1:5])
f=lambda x: "%.3f"%x
off="%.1f%% / %.1f%%"%(100*l.get("off_topic_empty",0),100*b.get("off_topic_empty",0))
fgn="%.1f%% / %.1f%%"%(100*l.get("foreign_empty",0),100*b.get("foreign_empty",0))
pol="–"
if "recall" in lp: pol="%s / %s"%(f(lp["recall"]["10"]),f(bp["recall"]["10"]))
print(" | ".join([f(l["recall"]["5"]), f(l["recall"]["10"]), f(b["recall"]["5"]), f(b["recall"]["10"]), off, fgn, pol]))
' "$lj" "$bj" "$lp" "$bp")
  echo "| $label | $row | \`$cmd\` |"
done
