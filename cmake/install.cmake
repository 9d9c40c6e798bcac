# install(): the libraries, their headers, the `locksim` executable, the CLI's
# main.cpp (for locksim_add_cli) and a CMake package, so a project can
# `find_package(locksim)` from an installed prefix. Headers keep their
# repository paths under include/locksim/ ("scenarios/runner.hpp").
include(CMakePackageConfigHelpers)

set_target_properties(locksim_core PROPERTIES EXPORT_NAME core)
set_target_properties(locksim_hiredis PROPERTIES EXPORT_NAME hiredis)
set_target_properties(locksim_live PROPERTIES EXPORT_NAME live)
set_target_properties(locksim_cli PROPERTIES EXPORT_NAME cli)

install(TARGETS locksim locksim_core ${LOCKSIM_LAYERS} locksim_hiredis locksim_hosted locksim_live locksim_cli
  EXPORT locksim-targets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(dir IN ITEMS vocab sim locks scenarios reports hosted live cli testing)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/locksim
    FILES_MATCHING PATTERN "*.hpp")
endforeach()
set(LOCKSIM_INSTALL_CLI_MAIN ${CMAKE_INSTALL_DATADIR}/locksim/main.cpp)
install(FILES ${PROJECT_SOURCE_DIR}/cli/main.cpp DESTINATION ${CMAKE_INSTALL_DATADIR}/locksim)

set(LOCKSIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/locksim)
install(EXPORT locksim-targets NAMESPACE locksim:: DESTINATION ${LOCKSIM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/locksim-config.cmake.in
  ${PROJECT_BINARY_DIR}/locksim-config.cmake
  INSTALL_DESTINATION ${LOCKSIM_CMAKE_DIR}
  PATH_VARS LOCKSIM_INSTALL_CLI_MAIN)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/locksim-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/locksim-config.cmake ${PROJECT_BINARY_DIR}/locksim-config-version.cmake
  ${PROJECT_SOURCE_DIR}/cmake/LocksimCli.cmake
  DESTINATION ${LOCKSIM_CMAKE_DIR})

# The man page and bash, zsh and fish completions (docs/man, scripts/completion).
install(FILES ${PROJECT_SOURCE_DIR}/docs/man/locksim.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/completion/locksim.bash
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME locksim)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/completion/_locksim
  DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/completion/locksim.fish
  DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)

# What live mode loads at run time, where the binary looks for it relative
# to its own directory (live/installed_files.hpp): every shared library
# live/preload builds, and the client adapters (with node-redlock's
# node_modules when `npm ci` has filled them: scripts/setup.sh).
get_property(preload_targets DIRECTORY ${PROJECT_SOURCE_DIR}/live/preload PROPERTY BUILDSYSTEM_TARGETS)
foreach(target IN LISTS preload_targets)
  get_target_property(type ${target} TYPE)
  if(type MATCHES "^(SHARED|MODULE)_LIBRARY$")
    install(TARGETS ${target} LIBRARY DESTINATION ${LOCKSIM_INSTALL_PRELOAD_DIR})
  endif()
endforeach()
# liblocksim_simtime.so: `locksim run` of a library lock loads it into the
# adapter processes (hosted/process_lock_host.hpp), found the same way.
install(TARGETS locksim_simtime LIBRARY DESTINATION ${LOCKSIM_INSTALL_PRELOAD_DIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/adapters/ DESTINATION ${LOCKSIM_INSTALL_ADAPTERS_DIR}
  PATTERN .gitignore EXCLUDE PATTERN __pycache__ EXCLUDE)

# The user documentation.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
  FILES_MATCHING PATTERN "*.md" PATTERN man EXCLUDE)  # the man page goes to man1
