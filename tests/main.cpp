// The single Catch2 main of the test binary (Catch2 v2's header is slow to
// compile: every other test file includes catch.hpp without CATCH_CONFIG_MAIN).
//
// Property tests are reproducible by default: unless the caller sets
// RC_PARAMS (e.g. a nightly job: RC_PARAMS="max_success=10000"), rapidcheck
// runs with a fixed seed. LOCKSIM_PROPERTY_CASES scales the case count.
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
  return Catch::Session().run(argc, argv);
}
