#!/usr/bin/env bash
# Installs what tilegrid needs to build and test, through apt, and locates the CUDA toolkit.
# Idempotent: prints nothing but one summary line when everything is already there.
set -euo pipefail

# Debian package -> a file whose presence proves it is installed (cheaper and quieter than dpkg -s).
declare -A probes=(
  [g++]=/usr/bin/g++
  [cmake]=/usr/bin/cmake
  [ninja-build]=/usr/bin/ninja
  [libboost-graph-dev]=/usr/include/boost/graph/adjacency_list.hpp
  [libboost-dev]=/usr/include/boost/interprocess/sync/file_lock.hpp
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [libgmock-dev]=/usr/include/gmock/gmock.h
  [libbenchmark-dev]=/usr/include/benchmark/benchmark.h
  [libcli11-dev]=/usr/include/CLI/CLI.hpp
  [nlohmann-json3-dev]=/usr/include/nlohmann/json.hpp
  [libfmt-dev]=/usr/include/fmt/format.h
  # The Python package: headers, pybind11, DLPack's header, and what its tests import.
  [python3-dev]=/usr/bin/python3-config
  [pybind11-dev]=/usr/include/pybind11/pybind11.h
  [libdlpack-dev]=/usr/include/dlpack/dlpack.h
  [python3-numpy]=/usr/lib/python3/dist-packages/numpy/__init__.py
  [python3-pytest]=/usr/lib/python3/dist-packages/pytest/__init__.py
)

missing=()
for pkg in "${!probes[@]}"; do
  [ -e "${probes[$pkg]}" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  log=$(mktemp)
  if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "setup: apt-get failed installing ${missing[*]}" >&2
    exit 1
  fi
  rm -f "$log"
fi

cmake_version=$(cmake --version | head -n1 | awk '{print $3}')
if [ "$(printf '%s\n3.25\n' "$cmake_version" | sort -V | head -n1)" != "3.25" ]; then
  echo "setup: cmake $cmake_version is too old; tilegrid needs cmake >= 3.25" >&2
  exit 1
fi

cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if [ -x "$cuda_home/bin/nvcc" ] && [ -f "$cuda_home/include/nvrtc.h" ] && [ -f "$cuda_home/include/cuda.h" ]; then
  echo "setup: ok (CUDA toolkit at $cuda_home)"
else
  echo "setup: no CUDA toolkit found at $cuda_home (looked for bin/nvcc, include/nvrtc.h, include/cuda.h)." >&2
  echo "       tilegrid needs CUDA Toolkit 12 or newer (13 recommended) for NVRTC and the CUDA headers;" >&2
  echo "       install it and set CUDA_HOME to its folder. A GPU and driver are not needed to build or test." >&2
  exit 1
fi
