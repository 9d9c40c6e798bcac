#!/usr/bin/env bash
# The Debian package (cmake/package.cmake, docs/install.md) as a user gets it:
# LOCKSIM_BUILD_TESTS=OFF configures only what installs; `cpack -G DEB`
# packages this build tree (its tests install nothing, so the package is
# the one an OFF tree makes, without a second build of everything); the
# package's fields and files; then, unpacked with `dpkg -x` into a scratch
# root outside the build tree and run from another directory with
# LOCKSIM_NO_BUILD_TREE=1 (no build-tree fallback), `locksim live` on a
# real redis-server with the installed preload library, a library lock
# through an installed adapter, and find_package(locksim) on the root; last,
# the user-CI example's install script resolves the package with apt.
#   package_deb.sh BUILD_DIR WORK_DIR GENERATOR
set -euo pipefail
build=$1 work=$2 generator=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "package_deb: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
root=$(mktemp -d "${TMPDIR:-/tmp}/locksim-package.XXXXXX")
trap 'rm -rf "$root"' EXIT

# Only what installs: no test binary, benchmark or fuzz target (LOCKSIM_FUZZ
# asked for, and still none).
cmake -S "$src" -B "$work/no-tests" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DLOCKSIM_BUILD_TESTS=OFF -DLOCKSIM_FUZZ=ON --no-warn-unused-cli >/dev/null
targets() { cmake --build "$1" --target help | sed -n 's/^\([A-Za-z0-9_.-]*\): .*/\1/p'; }
not_installed='^(locksim_tests|locksim_bench|fuzz_.*)$'
grep -qE "$not_installed" <<<"$(targets "$build")" || fail "no test target found in $build either: the check is blind"
targets=$(targets "$work/no-tests")
for t in locksim_cli locksim_preload; do
  grep -qx "$t" <<<"$targets" || fail "LOCKSIM_BUILD_TESTS=OFF has no target $t"
done
extra=$(grep -E "$not_installed" <<<"$targets" || true)
[[ -z "$extra" ]] || fail "LOCKSIM_BUILD_TESTS=OFF still has $(echo $extra)"

(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/pkg/locksim_*.deb)
info=$(dpkg-deb --info "$deb")
grep -Eq '^ Depends: .*libc6' <<<"$info" || fail "no libc6 in Depends: $info"
grep -Eq '^ Recommends: .*redis-server' <<<"$info" || fail "redis-server not recommended: $info"
files=$(dpkg-deb --contents "$deb" | awk '{ print $NF }' | sed 's|^\./||')
preload=$(grep -x 'usr/lib/.*locksim/liblocksim_preload\.so' <<<"$files") || fail "the package has no liblocksim_preload.so"
for f in usr/bin/locksim usr/share/locksim/adapters/redis-py/adapter.py \
  usr/share/locksim/adapters/node-redlock/adapter.js usr/share/man/man1/locksim.1 \
  usr/share/bash-completion/completions/locksim usr/share/zsh/vendor-completions/_locksim \
  usr/share/fish/vendor_completions.d/locksim.fish usr/lib/cmake/locksim/locksim-config.cmake \
  usr/share/doc/locksim/README.md usr/share/doc/locksim/install.md; do
  grep -qx "$f" <<<"$files" || fail "the package has no $f"
done

dpkg -x "$deb" "$root"
bin=$root/usr/bin/locksim
cd "$root"
export LOCKSIM_NO_BUILD_TREE=1
# Without the installed preload library the binary must not find one: the
# paths it tried are the unpacked root's only.
mv "$root/$preload" "$root/$preload.away"
set +e
out=$("$bin" live gc-pause 2>&1); code=$?
set -e
mv "$root/$preload.away" "$root/$preload"
[[ $code -eq 2 ]] || fail "without its preload library: exit $code, expected 2: $out"
grep -qF "not found at $root/$preload" <<<"$out" || fail "not the installed path first: $out"
! grep -qF "$build" <<<"$out" || fail "LOCKSIM_NO_BUILD_TREE=1 still tried the build tree: $out"

run_live() {  # the unpacked locksim live ARGS...: it ran (0 or 1), never an error (2, 3)
  set +e
  out=$("$bin" live "$@" 2>&1); code=$?
  set -e
  [[ $code -le 1 ]] || fail "locksim live $*: exit $code: $out"
  grep -q '^lock ' <<<"$out" || fail "locksim live $*: no result: $out"
}
run_live gc-pause --seed 1
run_live gc-pause --lock lib:redis-py --seed 1
grep -qF "adapter (/usr/bin/python3 $root/usr/share/locksim/adapters/redis-py/adapter.py)" <<<"$out" ||
  fail "lib:redis-py did not run the installed adapter: $out"
# The same library lock in simulated time: the installed liblocksim_simtime.so.
grep -qx 'usr/lib/.*locksim/liblocksim_simtime\.so' <<<"$files" || fail "the package has no liblocksim_simtime.so"
set +e
out=$("$bin" run gc-pause --lock lib:redis-py --seed 1 2>&1); code=$?
set -e
[[ $code -le 1 ]] || fail "locksim run gc-pause --lock lib:redis-py: exit $code: $out"
grep -qF "adapter ran as process" <<<"$out" || fail "locksim run of lib:redis-py did not name its processes: $out"

mkdir "$work/consumer"
printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(consumer CXX)' 'find_package(locksim 0.1 REQUIRED)' \
  'foreach(t core hiredis live cli)' '  if(NOT TARGET locksim::${t})' '    message(FATAL_ERROR "no locksim::${t}")' \
  '  endif()' 'endforeach()' >"$work/consumer/CMakeLists.txt"
cmake -S "$work/consumer" -B "$work/consumer/build" -G "$generator" -DCMAKE_PREFIX_PATH="$root/usr" >/dev/null ||
  fail "find_package(locksim) on the unpacked package failed"
# The user-CI example's install script (examples/custom-lock/ci/) with this
# package: apt resolves the package's declared dependencies and the test's
# packages on this Debian (simulated: nothing is installed).
out=$(LOCKSIM_DEB=$deb APT_SIMULATE=1 "$src/examples/custom-lock/ci/install-locksim.sh" "$src" 2>&1) ||
  fail "examples/custom-lock/ci/install-locksim.sh with this package: $out"
grep -q "^Inst locksim \|^Conf locksim " <<<"$out" || fail "install-locksim.sh did not install locksim (simulated): $out"
echo "package_deb: $(basename "$deb") installs and runs live mode from $root without the build tree"
