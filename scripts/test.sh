#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (ctest prints the counts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
# The Vulkan suites must run (on lavapipe here), and from a cold kernel cache so the compile path
# is exercised, not only the cached one.
export EMBER_REQUIRE_VULKAN=1
# The training data is installed above: its tests must run, not skip.
export EMBER_REQUIRE_DATA=1
EMBER_CACHE_DIR=$(mktemp -d)
export EMBER_CACHE_DIR
trap 'rm -rf "$EMBER_CACHE_DIR"' EXIT
ctest --test-dir build --output-on-failure -j "$(nproc)"
# The CPU-side suites again under AddressSanitizer and UndefinedBehaviorSanitizer.
bash scripts/sanitize.sh
