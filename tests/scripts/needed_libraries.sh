#!/usr/bin/env bash
# The shared libraries a cold `locksim` maps: libc's own only (libc, libm,
# the loader). Lua, hiredis, libcrypto, ZooKeeper's client, toml++ and the
# C++ runtime are linked in: each shared library costs every process start
# page faults and relocations (CMakeLists.txt, docs/benchmarks.md).
#   needed_libraries.sh LOCKSIM_BINARY
set -euo pipefail
needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort)
[[ -n "$needed" ]] || { echo "needed_libraries: readelf found no NEEDED entry in $1"; exit 1; }
extra=$(grep -vxE 'libc\.so\.6|libm\.so\.6|ld-linux-x86-64\.so\.2' <<<"$needed" || true)
[[ -z "$extra" ]] || { echo "needed_libraries: $1 needs $(echo $extra) besides libc's"; exit 1; }
echo "needed_libraries: $(echo $needed)"
