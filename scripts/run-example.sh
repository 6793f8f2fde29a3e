#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main example on the best available device.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
./build/examples/tensor_basics
