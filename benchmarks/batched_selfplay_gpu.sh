#!/usr/bin/env bash
# Batched self-play on one GPU, in one run (docs/pretrained.md, "Training on a GPU"):
#  1. speed: Connect Four with the shipped 5x64 network, PUCT at 200 simulations and Gumbel's
#     root at 32, 8,192 games in flight and 16,384 a round (the games in flight kept from
#     round to round, as the trainer keeps them: the batch stays full), beside nothing else
#     (the per-process rows are the CPU's: add --sources local to compare on the same machine);
#  2. strength: MINUTES (default 12) of batched self-play and training from the shipped network,
#     then the grade at 200 simulations and a 200-game match against the shipped network.
# Usage: bash benchmarks/batched_selfplay_gpu.sh [speed|train|all] [OUT]   (OUT: the logs; runs/gpu)
# Where one command may run at most 10 minutes, run "speed" and then "train" with MINUTES=6.
set -euo pipefail
STAGE=${1:-all}
OUT=${2:-runs/gpu}
MINUTES=${MINUTES:-12}
mkdir -p "$OUT"
BG="python -m boardgym.cli"
nvidia-smi --query-gpu=name,memory.total --format=csv | tee "$OUT/gpu.txt"
uptime | tee -a "$OUT/gpu.txt"

if [[ $STAGE == speed || $STAGE == all ]]; then
$BG bench selfplay --games connect_four --pretrained --sources batched gumbel --device cuda \
  --simulations 200 --gumbel-simulations 32 --games-per-round 16384 --batch-games 8192 --rounds 1 \
  --train-steps 5 --threads 4 2>&1 | tee "$OUT/bench.txt"
fi
[[ $STAGE == train || $STAGE == all ]] || exit 0

$BG train alphazero --game connect_four --run-name batched-gpu --search batched --device cuda \
  --init pretrained --blocks 5 --channels 64 --simulations 200 --games-per-iteration 8192 \
  --parallel-games 8192 --random-start-moves 16 --temperature-moves 8 --train-steps 400 \
  --batch-size 1024 --buffer-size 400000 --lr 0.0002 --lr-schedule cosine --iterations 1000 \
  --max-minutes "$MINUTES" --eval-every 0 --threads 4 2>&1 | tail -5 | tee "$OUT/train.txt"

NET=runs/connect_four/alphazero/batched-gpu/final.pt
$BG grade connect_four --agent "alphazero:checkpoint=$NET,simulations=200,batch=8,symmetries=true,device=cuda" \
  2>&1 | tail -15 | tee "$OUT/grade.txt"
$BG evaluate connect_four --agents "alphazero:checkpoint=$NET,simulations=200,batch=8,symmetries=true" \
  "alphazero:pretrained=true,simulations=200,batch=8,symmetries=true" --games 200 --workers 8 \
  2>&1 | tail -15 | tee "$OUT/match.txt"
