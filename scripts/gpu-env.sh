# Sourced by the GPU machine's scripts: unpacks the Vulkan loader packages and the bundle's
# binaries, and sets the library path, NVIDIA's Vulkan ICD and NVRTC's directory.
for f in .gl/*.deb; do dpkg -x "$f" /; done
[ -f gpu-bundle/bin.tar.xz ] && tar -C gpu-bundle -xJf gpu-bundle/bin.tar.xz
ldconfig
# Keep the machine's own library path: the NVIDIA driver's libraries live there.
export LD_LIBRARY_PATH=$PWD/gpu-bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -d /usr/local/nvidia/lib64 ] && LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/nvidia/lib64
for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
           /etc/vulkan/icd.d/nvidia_icd.json; do
  [ -f "$icd" ] && export VK_DRIVER_FILES=$icd && break
done
# NVRTC (for the CUDA backend) comes from the machine: the CUDA toolkit or PyTorch's wheels.
nvrtc=$(find / -name 'libnvrtc.so.1[0-9]*' -not -path '/proc/*' 2>/dev/null | head -1)
[ -n "$nvrtc" ] && LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$nvrtc") && echo "nvrtc: $nvrtc"
# Benchmarks and test suites here tune every kernel at its first flush, as before tuning had a
# budget (steady-state figures from tuned kernels; tests that count replays see no tuning later
# in the run). A cold-start measurement sets its own, e.g. EMBER_TUNE_BUDGET=0.5+10%, the default.
export EMBER_TUNE_BUDGET=${EMBER_TUNE_BUDGET:-unlimited}
