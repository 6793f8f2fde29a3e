#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (ctest prints the counts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
