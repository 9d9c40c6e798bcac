# The Debian package: `cpack -G DEB` in a build directory makes
# locksim_<version>_<arch>.deb from what cmake/install.cmake installs, under
# /usr (docs/install.md). The binary maps only libc's libraries (the rest is
# linked in: CMakeLists.txt), so its Depends are what dpkg-shlibdeps finds.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME locksim)
set(CPACK_PACKAGE_VENDOR locksim)
set(CPACK_PACKAGE_CONTACT "locksim maintainers <locksim@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "deterministic simulation and fault injection for distributed locks")
set(CPACK_PACKAGE_DESCRIPTION "locksim runs Redis, etcd and ZooKeeper lock algorithms in a deterministic \
simulated world under injected faults (pauses, partitions, clock jumps, crashes) and checks mutual \
exclusion, fencing and liveness; `locksim live` runs the same scenarios against real servers and \
real client libraries. Ships the command-line tool, the preload library live mode loads into \
redis-server, the client adapters, the C++ libraries with their CMake package (find_package(locksim)), \
the man page and bash, zsh and fish completion.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Live mode: redis-server for every Redis scenario, libcurl (loaded at run
# time: live/curl_library.hpp) for etcd's JSON gateway.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "redis-server, libcurl4")
# The rest of live mode (Sentinel failover, the etcd and ZooKeeper clusters,
# the client adapters' interpreters and libraries) and, for find_package(locksim),
# the headers and static archives the exported targets name.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "redis-sentinel, etcd-server, zookeeper, default-jre-headless, \
python3-redis, python3-kazoo, python3-etcd3, nodejs, \
cmake, g++, pkg-config, nlohmann-json3-dev, libcli11-dev, libtomlplusplus-dev, \
libhiredis-dev, liblua5.1-0-dev, libssl-dev, libzookeeper-mt-dev")
include(CPack)
