// Repro commands (scenarios/repro.hpp).
#include "scenarios/repro.hpp"

namespace locksim::scenarios {

namespace {

bool plain(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

}  // namespace

std::string shell_quote(std::string_view word) {
  bool needs_quotes = word.empty();
  for (char c : word) needs_quotes = needs_quotes || !plain(c);
  if (!needs_quotes) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string run_repro(const std::string& scenario_ref, const std::string& lock, std::uint64_t seed,
                      const std::string& program) {
  return shell_quote(program) + " run " + shell_quote(scenario_ref) + " --lock " + shell_quote(lock) + " --seed " +
         std::to_string(seed);
}

std::string live_repro(const std::string& scenario_ref, const std::string& lock, const std::string& time_scale,
                       const std::vector<std::string>& redis_endpoints, std::optional<std::uint64_t> seed) {
  std::string out = "locksim live " + shell_quote(scenario_ref) + " --lock " + shell_quote(lock) + " --time-scale " +
                    shell_quote(time_scale);
  std::string redis;
  for (const auto& e : redis_endpoints) redis += (redis.empty() ? "" : ",") + e;
  if (!redis.empty()) out += " --redis " + shell_quote(redis);
  if (seed) out += " --seed " + std::to_string(*seed);
  return out;
}

}  // namespace locksim::scenarios
