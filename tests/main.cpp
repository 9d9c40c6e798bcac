// The single Catch2 main of the test binary (Catch2 v2's header is slow to
// compile: every other test file includes catch.hpp without CATCH_CONFIG_MAIN).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
