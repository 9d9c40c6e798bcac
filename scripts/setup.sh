#!/usr/bin/env bash
# Installs the Debian packages locksim needs (only the missing ones) and
# builds it (Release, profile-guided: scripts/pgo-profile.sh) into build/ (all
# targets, or those given as arguments). Idempotent: a second run installs
# nothing and rebuilds incrementally. Used by run-main.sh and run-tests.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake ninja-build pkg-config catch2 librapidcheck-dev libcli11-dev
  libhiredis-dev liblua5.1-0-dev libtomlplusplus-dev nlohmann-json3-dev
  libbenchmark-dev redis-server redis-sentinel libxml2-utils parallel time chromium  # redis-sentinel: live failover
  clang-14 libclang-rt-14-dev  # clang: scripts/hardening.sh (determinism, libFuzzer)
  python3-hypothesis python3-fakeredis python3-lupa python3-redis  # bench/peers/ (ctest peers_smoke); adapters/redis-py (lib:redis-py)
  python3-kazoo python3-etcd3  # adapters/kazoo (lib:kazoo), adapters/python-etcd3 (lib:python-etcd3)
  etcd-server etcd-client zookeeper default-jre-headless libzookeeper-mt-dev libcurl4-openssl-dev libssl-dev  # live CP clusters
  dpkg-dev file  # cpack -G DEB: dpkg-shlibdeps and file find the package's dependencies (ctest package_deb)
  python3-yaml)  # ctest ci_workflows: the workflow files parse as YAML
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# adapters/node-redlock (lib:node-redlock): Node and npm (Debian's unless a
# node is already on PATH), then its committed lockfile's packages.
if ! command -v npm >/dev/null; then
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nodejs npm
fi
# Once per lockfile: npm ci deletes node_modules first, and a second setup
# run installs nothing.
if [[ ! -f adapters/node-redlock/node_modules/.package-lock.json ||
      adapters/node-redlock/package-lock.json -nt adapters/node-redlock/node_modules/.package-lock.json ]]; then
  (cd adapters/node-redlock && npm ci --no-audit --no-fund --silent)
fi

werror=OFF
[[ "${CI:-}" == "true" ]] && werror=ON
# Profile-guided (cmake/Pgo.cmake): build/ is compiled with the profile an
# instrumented build took of the simulation's own work. LOCKSIM_PGO=0 skips it.
pgo=(-DLOCKSIM_PGO= -DLOCKSIM_PGO_PROFILE=)
if [[ ${LOCKSIM_PGO:-1} != 0 ]]; then
  profile=$(scripts/pgo-profile.sh)
  pgo=(-DLOCKSIM_PGO=use -DLOCKSIM_PGO_PROFILE="$profile")
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOCKSIM_WERROR="$werror" "${pgo[@]}" >/dev/null
# Arguments are build targets (run-main.sh builds only `locksim`, so the first
# report does not wait for the test build); none = everything.
targets=()
(($#)) && targets=(--target "$@")
cmake --build build --parallel "$(nproc)" "${targets[@]}"
