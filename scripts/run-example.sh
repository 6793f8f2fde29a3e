#!/usr/bin/env bash
# Installs what is missing, builds the guide's programs, and runs the main example on the best
# available device: the Burn guide's CNN trained on Fashion-MNIST with the Learner (dashboard on a
# terminal, logs, TensorBoard event files, a report, checkpoints, the saved model under
# /tmp/guide), then inference with the saved model. Arguments go to guide_train (e.g. --epochs 5).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" --target guide_train guide_infer
./build/examples/guide/guide_train "$@"
./build/examples/guide/guide_infer
