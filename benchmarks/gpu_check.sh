#!/usr/bin/env bash
# One command for a GPU machine: the batched rules, the network, one search and self-play,
# each stage ended by its own deadline (9 minutes in all), then one table of what was measured.
#
#   bash benchmarks/gpu_check.sh DIR [--device cuda|cpu] [--tiny] [--stages "env rules network search selfplay"]
#
# DIR receives each stage's log (<stage>.log), its figures (<stage>.json), the self-play bench's
# own output (selfplay_bench.txt), the GPU's load sampled through the run (gpu_load.csv, where
# nvidia-smi is there) and the table (table.md, printed last). Nothing is installed: the script
# runs this checkout (PYTHONPATH) with the Python of PYTHON, else .venv/bin/python beside it,
# else python3; pgx, jax and mctx (the bench extra) give the peer's rows where they are there.
# --tiny: sizes for a CPU, in a minute or two (tests/benchmarks/test_gpu_check.py runs it).
# A stage that fails or runs past its deadline is written down and the next one starts.
set -uo pipefail
if [[ $# -lt 1 || $1 == -* ]]; then
  echo "usage: bash benchmarks/gpu_check.sh DIR [--device cuda|cpu] [--tiny] [--stages 'env rules network search selfplay']" >&2
  exit 2
fi
DIR=$1
shift
DEVICE=cuda
TINY=""
STAGES="env rules network search selfplay"
while [[ $# -gt 0 ]]; do
  case $1 in
    --device) DEVICE=$2; shift 2 ;;
    --tiny) TINY=--tiny; shift ;;
    --stages) STAGES=$2; shift 2 ;;
    *) echo "gpu_check.sh: unknown argument $1 (use --device, --tiny or --stages)" >&2; exit 2 ;;
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

# the deadline of each stage, seconds (9 minutes in all, the start and the table included)
declare -A LIMIT=([env]=30 [rules]=110 [network]=100 [search]=100 [selfplay]=180)
if [[ -n $TINY ]]; then  # a shared CPU starts python, torch and jax slowly: three times the time
  for name in "${!LIMIT[@]}"; do LIMIT[$name]=$((3 * LIMIT[$name])); done
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
    rules|network|search|selfplay) stage "$name" "$PY" benchmarks/gpu_check.py "$name" "$DIR" --device "$DEVICE" $TINY ;;
    *) echo "gpu_check.sh: unknown stage $name (env, rules, network, search, selfplay)" >&2; exit 2 ;;
  esac
done
finish
"$PY" benchmarks/gpu_check.py table "$DIR" >"$DIR/table.md" 2>>"$DIR/stages.txt"
echo
cat "$DIR/table.md"
