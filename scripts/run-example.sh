#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main example on the best available device:
# training an MLP on Fashion-MNIST for one epoch (arguments are passed on, e.g. --epochs 3).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/examples/fashion_mnist "$@"
