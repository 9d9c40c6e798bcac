// Property checks and failures inside Catch2 test cases whose output a
// person can act on from a CI log (locksim's property suite and a user's own
// lock test, examples/custom-lock; installed with the headers, header-only).
//
// Why not rc::prop (rapidcheck/catch.h): it checks the property without an
// id, so rapidcheck records no reproduce data and never prints
// `RC_PARAMS="reproduce=..."`; and it hands the failure to Catch's console
// reporter, which wraps every message at 80 columns and so breaks the repro
// command and the reproduce string across lines. `check_property` checks
// under the description as the id (so RC_PARAMS="reproduce=..." replays
// exactly the failing case, and rapidcheck's at-exit note lists it too) and
// prints the failure whole on stdout, each line as it is, ending with the
// reproduce parameter on a line of its own; `fail_printed` does the same for
// a plain Catch2 failure. Catch's JUnit reporter keeps stdout in the test
// case's <system-out>, so the JUnit file carries the same lines.
#pragma once

#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>

namespace rc::detail {
// rapidcheck's serializer of the reproduce map, the value of RC_PARAMS'
// `reproduce` key (librapidcheck; its header, detail/ReproduceListener.h in
// rapidcheck's sources, is not installed).
std::string reproduceMapToString(const std::unordered_map<std::string, Reproduce>& reproduceMap);
}  // namespace rc::detail

namespace locksim::testing {

// `RC_PARAMS="reproduce=..."`: the environment that replays the failing case
// `r` of the property checked under `id`.
inline std::string reproduce_params(const std::string& id, const rc::detail::Reproduce& r) {
  return "RC_PARAMS=\"reproduce=" + rc::detail::reproduceMapToString({{id, r}}) + "\"";
}

// Fails the current test case with `text` printed whole on stdout (no
// wrapping) and a one-line message pointing at it.
inline void fail_printed(const std::string& what, const std::string& text) {
  std::cout << "\n--- " << what << " failed ---\n" << text << (text.empty() || text.back() == '\n' ? "" : "\n")
            << "--- end of " << what << " ---\n"
            << std::flush;
  FAIL(what << " failed: the evidence, the repro command and how to replay it are printed above, one line each");
}

// Checks `testable` under `description` as its id, trying at least
// `min_cases` cases (rapidcheck's max_success, from RC_PARAMS or its
// default 100, when that is more): nullopt when it holds, else rapidcheck's
// message and the reproduce parameter on a line of its own.
template <typename Testable>
std::optional<std::string> property_failure(const std::string& description, int min_cases, Testable&& testable) {
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = description;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  params.maxSuccess = std::max(params.maxSuccess, min_cases);
  const auto result = rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
  if (result.template is<rc::detail::SuccessResult>()) return std::nullopt;
  std::ostringstream text;
  rc::detail::printResultMessage(result, text);
  text << "\n";
  if (result.template is<rc::detail::FailureResult>())
    text << "replay    " << reproduce_params(metadata.id, result.template get<rc::detail::FailureResult>().reproduce)
         << "\n";
  return text.str();
}

// rc::prop with a reproduce string (see the file comment): property_failure,
// printed whole when it fails.
template <typename Testable>
void check_property(const std::string& description, int min_cases, Testable&& testable) {
  if (const auto failure = property_failure(description, min_cases, std::forward<Testable>(testable)))
    fail_printed("property \"" + description + "\"", *failure);
  else
    SUCCEED(description);
}

template <typename Testable>
void check_property(const std::string& description, Testable&& testable) {
  check_property(description, 0, std::forward<Testable>(testable));
}

}  // namespace locksim::testing
