#!/usr/bin/env bash
# One command for a GPU machine: 6 minutes of AlphaZero training from Connect Four's shipped
# network with its grade and its match, and the self-play speed it is measured against; or the
# speed stages alone (the batched rules, the network, one search, self-play); each stage ended
# by its own deadline, then one table of what was measured.
#
#   bash benchmarks/gpu_check.sh DIR [--device cuda|cpu] [--tiny] [--stages "env selfplay train"]
#                                    [--minutes 6] [--from shipped|random]
#
# Stages: env rules network search selfplay train. The default, "env selfplay train", fits 9
# minutes (535 s of deadlines at MINUTES=6, then the table): env 10 s; selfplay 65 s, only the bench row
# that plays as the trainer does (gpu_check_train.bench_settings); train MINUTES*60 + 100 s: the
# trainer, MINUTES*60 + 20 s (--max-minutes is MINUTES less one predicted iteration, since the
# trainer runs the iteration that would end past it; 20 s for its start), then the grade (CPU)
# and the 200-game match (device) side by side (70 s), and 10 s for the rest. The speed stages
# alone, --stages "env rules network search selfplay", fit 9 minutes too (env 30, rules 110,
# network 100, search 100, selfplay 180 s: all four self-play rows). Any other list that adds up
# to more than 540 s is run, and says so first.
#
# DIR receives each stage's log (<stage>.log), its figures (<stage>.json), the self-play bench's
# own output (selfplay_bench.txt), the GPU's load sampled through the run (gpu_load.csv, where
# nvidia-smi is there) and the table (table.md, printed last). The train stage adds final.pt
# (the trained network), events/<run>/ (its TensorBoard events), grade.txt and grade.md, match.txt and
# match.md, train_run.log (the trainer's output) and runs/ (the run folders: the trainer's, with
# its replay file, the grade's and the match's). --from random: the same from random weights.
# Nothing is installed: the script runs this checkout (PYTHONPATH) with the Python of PYTHON,
# else .venv/bin/python beside it, else python3; pgx, jax and mctx (the bench extra) give the
# peer's rows where they are there.
# --tiny: sizes for a CPU, in a minute or two (tests/bench/test_gpu_check.py runs it).
# A stage that fails or runs past its deadline is written down and the next one starts.
set -uo pipefail
USAGE="usage: bash benchmarks/gpu_check.sh DIR [--device cuda|cpu] [--tiny] [--stages 'env selfplay train'] [--minutes 6] [--from shipped|random]"
if [[ $# -lt 1 || $1 == -* ]]; then
  echo "$USAGE" >&2
  exit 2
fi
DIR=$1
shift
DEVICE=cuda
TINY=""
STAGES="env selfplay train"
MINUTES=6
FROM=shipped
while [[ $# -gt 0 ]]; do
  case $1 in
    --device|--stages|--minutes|--from)
      if [[ $# -lt 2 || $2 == --* ]]; then echo "gpu_check.sh: $1 needs a value ($USAGE)" >&2; exit 2; fi
      case $1 in
        --device) DEVICE=$2 ;;
        --stages) STAGES=$2 ;;
        --minutes) MINUTES=$2 ;;
        --from) FROM=$2 ;;
      esac
      shift 2 ;;
    --tiny) TINY=--tiny; shift ;;
    *) echo "gpu_check.sh: unknown argument $1 (use --device, --tiny, --stages, --minutes or --from)" >&2; exit 2 ;;
  esac
done
if ! [[ $MINUTES =~ ^[0-9]+([.][0-9]+)?$ ]] || [[ $MINUTES =~ ^0+([.]0+)?$ ]]; then
  echo "gpu_check.sh: --minutes $MINUTES must be a number of minutes above 0, e.g. --minutes 6" >&2
  exit 2
fi
if [[ $FROM != shipped && $FROM != random ]]; then
  echo "gpu_check.sh: --from $FROM must be shipped (the shipped network) or random (random weights)" >&2
  exit 2
fi
for name in $STAGES; do
  case $name in
    env|rules|network|search|selfplay|train) ;;
    *) echo "gpu_check.sh: unknown stage $name in --stages (env, rules, network, search, selfplay, train)" >&2; exit 2 ;;
  esac
done
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n ${PYTHON:-} ]]; then PY=$PYTHON
elif [[ -x $ROOT/.venv/bin/python ]]; then PY=$ROOT/.venv/bin/python
else PY=python3
fi
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
cd "$ROOT" || exit 2

# the deadline of each stage, seconds (the header says how they add up to 9 minutes)
TRAINING=""
[[ " $STAGES " == *" train "* ]] && TRAINING=yes
TRAIN_SECONDS=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 + 100 + 0.999 }')
if [[ -n $TRAINING ]]; then
  declare -A LIMIT=([env]=10 [rules]=110 [network]=100 [search]=100 [selfplay]=65 [train]=$TRAIN_SECONDS)
else
  declare -A LIMIT=([env]=30 [rules]=110 [network]=100 [search]=100 [selfplay]=180)
fi
if [[ -n $TINY ]]; then  # a shared CPU starts python, torch and jax slowly: three times the time
  for name in "${!LIMIT[@]}"; do LIMIT[$name]=$((3 * LIMIT[$name])); done
  [[ -n $TRAINING ]] && LIMIT[train]=300  # 2 small iterations, not MINUTES
fi
BUDGET=0
for name in $STAGES; do BUDGET=$((BUDGET + LIMIT[$name])); done
echo "gpu_check.sh: stages $STAGES, their deadlines $BUDGET s in all"
if [[ -z $TINY && $BUDGET -gt 540 ]]; then
  echo "gpu_check.sh: that is past the 9 minutes (540 s) of the default run"
fi
SAMPLER=""
if [[ $DEVICE == cuda* ]] && command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=timestamp,utilization.gpu,memory.used --format=csv,noheader -lms 500 >"$DIR/gpu_load.csv" 2>/dev/null &
  SAMPLER=$!
fi
finish() { [[ -n $SAMPLER ]] && kill "$SAMPLER" 2>/dev/null; }
trap finish EXIT

stage() {  # stage NAME COMMAND...: run it under its deadline, log it, say how it ended
  local name=$1 started=$SECONDS code
  shift
  timeout --kill-after=10 "${LIMIT[$name]}" "$@" >"$DIR/$name.log" 2>&1
  code=$?
  case $code in
    0) echo "stage $name: done in $((SECONDS - started)) s" ;;
    124|137) echo "stage $name: stopped at its deadline of ${LIMIT[$name]} s (see $name.log)" ;;
    *) echo "stage $name: failed with exit code $code in $((SECONDS - started)) s (see $name.log)" ;;
  esac | tee -a "$DIR/stages.txt"
}

: >"$DIR/stages.txt"
for name in $STAGES; do
  case $name in
    env) stage env bash -c "date -u; uname -a; nvidia-smi 2>&1 | head -20; $PY -c 'import sys, torch; print(sys.version); print(\"torch\", torch.__version__, \"cuda\", torch.version.cuda, \"available\", torch.cuda.is_available())'; $PY -c 'import jax, pgx, mctx; print(\"jax\", jax.__version__, jax.devices(), \"pgx\", pgx.__version__, \"mctx\", mctx.__version__)'; uptime" ;;
    rules|network|search) stage "$name" "$PY" benchmarks/gpu_check.py "$name" "$DIR" --device "$DEVICE" $TINY ;;
    selfplay) stage selfplay "$PY" benchmarks/gpu_check.py selfplay "$DIR" --device "$DEVICE" $TINY ${TRAINING:+--train-from "$FROM"} ;;
    train) stage train "$PY" benchmarks/gpu_check_train.py "$DIR" --device "$DEVICE" --minutes "$MINUTES" --from "$FROM" $TINY ;;
  esac
done
finish
"$PY" benchmarks/gpu_check.py table "$DIR" >"$DIR/table.md" 2>>"$DIR/stages.txt"
echo
cat "$DIR/table.md"
