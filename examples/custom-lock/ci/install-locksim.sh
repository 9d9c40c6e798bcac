#!/usr/bin/env bash
# Builds locksim's Debian package from a locksim checkout and installs it
# with its dependencies (locksim's docs/install.md, "The Debian package"):
# only what installs (-DLOCKSIM_BUILD_TESTS=OFF), `cpack -G DEB`, `apt-get
# install ./locksim_*.deb`; then the packages this project's test needs
# (Catch2 v2, rapidcheck) and find_package(locksim)'s suggested ones.
# As root or with sudo. LOCKSIM_DEB=FILE installs that package instead of
# building one (a package your CI keeps between runs); APT_SIMULATE=1 only
# resolves what apt would install (`apt-get install --simulate`: no root,
# nothing changed; locksim's own test of this script uses it).
#   ci/install-locksim.sh LOCKSIM_SRC [BUILD_DIR]
set -euo pipefail
src=$1 build=${2:-$1/build-pkg}
sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
simulate=()
if [[ ${APT_SIMULATE:-0} == 1 ]]; then simulate=(--simulate) sudo_cmd=(); fi
apt_install() {
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install "${simulate[@]}" -y -qq --no-install-recommends "$@"
}
((${#simulate[@]})) || "${sudo_cmd[@]}" apt-get update -qq
apt_install g++ cmake ninja-build pkg-config libcli11-dev libhiredis-dev liblua5.1-0-dev libtomlplusplus-dev \
  nlohmann-json3-dev libzookeeper-mt-dev libcurl4-openssl-dev libssl-dev dpkg-dev file catch2 librapidcheck-dev
deb=${LOCKSIM_DEB:-}
if [[ -z $deb ]]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOCKSIM_BUILD_TESTS=OFF
  cmake --build "$build" --parallel "$(nproc)"
  (cd "$build" && cpack -G DEB)
  deb=$(ls "$build"/locksim_*.deb)
fi
apt_install "$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")" redis-server
((${#simulate[@]})) || locksim --version
