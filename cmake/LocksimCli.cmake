# locksim_add_cli(NAME SOURCES...): a `locksim` command-line tool with your own
# locks registered, so every failure your CI finds reproduces as
# `NAME run SCENARIO --lock your-lock --seed N`.
#
# The sources are compiled into the executable itself, so their static
# registrations (LOCKSIM_REGISTER_LOCK in locks/registry.hpp) always run.
# Works both in locksim's own tree (add_subdirectory) and from an installed
# package (find_package(locksim)); LOCKSIM_CLI_MAIN is the CLI's main.cpp in
# either place.
function(locksim_add_cli name)
  if(NOT ARGN)
    message(FATAL_ERROR "locksim_add_cli(${name} ...): give the source files of your locks")
  endif()
  add_executable(${name} "${LOCKSIM_CLI_MAIN}" ${ARGN})
  target_link_libraries(${name} PRIVATE locksim::cli)
  target_compile_features(${name} PRIVATE cxx_std_20)
  # The repro lines the tool prints name the tool itself.
  target_compile_definitions(${name} PRIVATE LOCKSIM_PROGRAM_NAME="${name}")
endfunction()
