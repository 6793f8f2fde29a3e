#!/usr/bin/env bash
# Builds a portable bundle for the GPU machine (Ubuntu 24.04, NVIDIA driver, no Debian packages)
# into gpu-bundle/: binaries with libstdc++/libgcc linked statically and shaderc statically,
# the Debian-only shared libraries (Abseil, Google Benchmark) beside them, and the Vulkan loader
# packages in .gl/. Then run on the device machine, carrying gpu-bundle and .gl:
#     bash scripts/gpu-run.sh            (results land in $OUT)
set -euo pipefail
cd "$(dirname "$0")/.."
# Without OpenBLAS (its libraries would take half the 64 MiB the bundle may carry).
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_OPENBLAS=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" > /dev/null
# EMBER_BUNDLE_TARGETS narrows the bundle (e.g. "dist_tests ember_ddp_bench" for a run on
# several GPUs that needs nothing else).
read -r -a targets <<< "${EMBER_BUNDLE_TARGETS:-jit_tests runtime_tests dist_tests ember_bench ember_ddp_bench tensor_basics fashion_mnist ember-autotune}"
cmake --build build-gpu -j "$(nproc)" --target "${targets[@]}"
rm -rf gpu-bundle && mkdir -p gpu-bundle/bin gpu-bundle/lib gpu-bundle/data
for t in "${targets[@]}"; do
  find build-gpu/tests build-gpu/bench build-gpu/examples build-gpu/examples/guide build-gpu/tools \
    -maxdepth 1 -type f \
    -name "$t" -exec cp {} gpu-bundle/bin/ \;
done
# The Vulkan cooperative-matrix probe (issue 27): what the device's driver offers.
g++ -O2 -std=c++20 scripts/vk_coopmat_probe.cc -o gpu-bundle/bin/vk_coopmat_probe -ldl \
  -static-libstdc++ -static-libgcc
strip gpu-bundle/bin/*
# The training example's data (Debian's dataset-fashion-mnist), already gzip'd.
cp /usr/share/datasets/fashion-mnist/*.gz gpu-bundle/data/
# Shared libraries the device machine lacks: everything outside glibc and the loader.
for bin in gpu-bundle/bin/*; do
  ldd "$bin" | awk '/=>/ {print $3}' | grep -vE 'libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|ld-linux' || true
done | sort -u | while read -r lib; do cp -L "$lib" gpu-bundle/lib/; done
# The Vulkan loader and the GL dispatch libraries NVIDIA's Vulkan driver loads through
# (the device README's recipe), fetched once.
if ! ls .gl/libglvnd0_*.deb > /dev/null 2>&1; then
  exclude=$(git rev-parse --git-dir)/info/exclude
  mkdir -p "$(dirname "$exclude")"
  grep -qx '/.gl/' "$exclude" 2>/dev/null || echo /.gl/ >> "$exclude"
  mkdir -p .gl /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update > /dev/null
  (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 \
    libgles2 > /dev/null)
fi
# What travels is limited (64 MiB): the binaries (shaderc is linked into each) go compressed.
tar -C gpu-bundle -cJf gpu-bundle/bin.tar.xz bin && rm -rf gpu-bundle/bin
du -sh gpu-bundle .gl
