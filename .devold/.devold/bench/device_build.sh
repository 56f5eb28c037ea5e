# Sourced by the bench/device_*.sh scripts. tg_build LOGDIR [ninja targets...] configures and builds a
# Release tree in $b (/tmp/tg-build, kept while the GPU machine stays warm; extra CMake arguments in
# TG_CMAKE_ARGS), logs to LOGDIR, stops the script with the first errors on failure, and points the
# kernel cache at /tmp/tg-cache.
b=/tmp/tg-build
tg_build() {
  local logs=$1
  shift
  mkdir -p "$logs"
  # shellcheck disable=SC2086
  cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release ${TG_CMAKE_ARGS:-} > "$logs/configure.log" 2>&1 ||
    { tail -20 "$logs/configure.log"; exit 1; }
  ninja -C $b "$@" > "$logs/build.log" 2>&1 || { grep -E "error" "$logs/build.log" | head -20; exit 1; }
  export TILEGRID_CACHE_DIR=/tmp/tg-cache
}
