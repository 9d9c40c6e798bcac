# Profile-guided optimisation (GCC). LOCKSIM_PGO=generate builds an
# instrumented locksim that adds what it ran to the profile in
# LOCKSIM_PGO_PROFILE when it exits; LOCKSIM_PGO=use compiles every target
# with that profile (branch layout, inlining and hot/cold splitting chosen
# from what the simulation really runs). scripts/pgo-profile.sh makes the
# profile and scripts/setup.sh builds build/ with it; the figures are in
# docs/benchmarks.md, "Sixth pass". Off (empty) by default in CMake itself.
set(LOCKSIM_PGO "" CACHE STRING "Profile-guided optimisation: generate, use, or empty (off)")
set(LOCKSIM_PGO_PROFILE "" CACHE PATH "LOCKSIM_PGO: the directory of the profile (.gcda files)")
if(LOCKSIM_PGO)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "LOCKSIM_PGO needs GCC (the profile is GCC's .gcda format)")
  endif()
  if(NOT LOCKSIM_PGO_PROFILE)
    message(FATAL_ERROR "LOCKSIM_PGO=${LOCKSIM_PGO} needs LOCKSIM_PGO_PROFILE (the profile's directory)")
  endif()
  # The profile names each object by its path; relative to the build
  # directory, the instrumented build's names are the optimised build's.
  set(pgo_prefix -fprofile-prefix-path=${CMAKE_BINARY_DIR})
  if(LOCKSIM_PGO STREQUAL "generate")
    # Atomic counters: `--jobs` runs worlds on several threads.
    add_compile_options(-fprofile-generate=${LOCKSIM_PGO_PROFILE} ${pgo_prefix} -fprofile-update=prefer-atomic)
    add_link_options(-fprofile-generate=${LOCKSIM_PGO_PROFILE})
  elseif(LOCKSIM_PGO STREQUAL "use")
    # Code the training never ran is optimised as without a profile
    # (partial training), not as cold. A file without a profile (tests,
    # benchmarks) is compiled as without one, silently; a function changed
    # since the training loses its profile (speed, never correctness), and
    # GCC may still say "Missing counts for called function", which no flag
    # silences: an error under LOCKSIM_WERROR. setup.sh retrains first.
    add_compile_options(-fprofile-use=${LOCKSIM_PGO_PROFILE} ${pgo_prefix} -fprofile-partial-training
                        -Wno-missing-profile -Wno-coverage-mismatch)
  else()
    message(FATAL_ERROR "LOCKSIM_PGO is '${LOCKSIM_PGO}': expected generate, use or empty")
  endif()
endif()
