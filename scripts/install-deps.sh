#!/usr/bin/env bash
# Installs every Debian package Ember needs, skipping those already present.
# Runs as root (CI) or through sudo when available.
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build ccache pkg-config git clang-format python3
  # Vulkan: loader, headers, Mesa's lavapipe (CPU driver), tools
  libvulkan-dev mesa-vulkan-drivers vulkan-tools spirv-tools
  # GLSL -> SPIR-V
  libshaderc-dev glslang-dev glslang-tools
  # libraries
  libsqlite3-dev libabsl-dev libxxhash-dev libeigen3-dev nlohmann-json3-dev zlib1g-dev
  # the CPU device: a threaded BLAS for its products (OpenBLAS picks kernels for the running CPU)
  libopenblas-dev
  # data layer: image decoding and CSV
  libpng-dev libturbojpeg0-dev libcsv-dev
  # records: PyTorch .pt files are zip archives
  libzip-dev
  # tests and benchmarks
  libgtest-dev libgmock-dev libbenchmark-dev
  # the train layer: terminal dashboard, report plots, the dashboard's test
  libncurses-dev gnuplot-nox tmux
  # training example data
  dataset-fashion-mnist
  # ONNX import: libonnx (parse, check, shape inference, opset conversion) and the backend
  # node cases its tests run
  libonnx-dev libprotobuf-dev libonnx-testdata
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo_cmd=(sudo); else
    echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
