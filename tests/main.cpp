// The single Catch2 main of the test binary (Catch2 v2's header is slow to
// compile: every other test file includes catch.hpp without CATCH_CONFIG_MAIN).
//
// Property tests are reproducible by default: unless the caller sets
// RC_PARAMS (e.g. a nightly job: RC_PARAMS="max_success=10000"), rapidcheck
// runs with a fixed seed. LOCKSIM_PROPERTY_CASES scales the case count.
//
// No failing examples are kept or replayed (testing/example_db.hpp) unless
// the caller sets LOCKSIM_EXAMPLES_DIR: the hunts and checks the tests run,
// and the processes they start, would otherwise replay each other's finds
// from the working directory. The tests of the database name their own
// folder.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

int main(int argc, char* argv[]) {
  if (std::getenv("RC_PARAMS") == nullptr) {
    std::string params = "seed=20261130";
    if (const char* cases = std::getenv("LOCKSIM_PROPERTY_CASES")) params += std::string(" max_success=") + cases;
    setenv("RC_PARAMS", params.c_str(), 1);
  }
  if (std::getenv("LOCKSIM_EXAMPLES_DIR") == nullptr && std::getenv("LOCKSIM_NO_EXAMPLES") == nullptr)
    setenv("LOCKSIM_NO_EXAMPLES", "1", 1);
  return Catch::Session().run(argc, argv);
}
