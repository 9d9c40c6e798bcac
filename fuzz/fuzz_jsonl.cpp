// libFuzzer target: the JSONL run reader behind `locksim report` (sweep
// result lines -> the comparison model). Malformed lines must be reported,
// never crash. Seed corpus: fuzz/corpus/jsonl/ (lines of a catalog sweep).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "reports/comparison.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream warnings;
  locksim::reports::Comparison comparison;
  (void)locksim::reports::read_jsonl(in, "fuzz.jsonl", comparison, warnings);
  return 0;
}
