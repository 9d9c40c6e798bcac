// The storage's fencing rule and its wire format (storage.hpp).
#include "scenarios/storage.hpp"

#include <charconv>
#include <string>

namespace locksim::scenarios {

namespace {
std::optional<std::int64_t> to_int(const std::string& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}
}  // namespace

sim::redis::Argv write_argv(const WriteRequest& w) {
  return {"WRITE", std::to_string(w.client), std::to_string(w.grant),
          w.fencing_token ? std::to_string(*w.fencing_token) : "-", std::to_string(w.index)};
}

std::optional<WriteRequest> parse_write(const sim::redis::Argv& argv) {
  if (argv.size() != 5 || argv[0] != "WRITE") return std::nullopt;
  const auto client = to_int(argv[1]);
  const auto grant = to_int(argv[2]);
  const auto token = to_int(argv[3]);  // "-" = no token
  const auto index = to_int(argv[4]);
  if (!client || !grant || !index) return std::nullopt;
  return WriteRequest{static_cast<std::size_t>(*client), static_cast<std::uint64_t>(*grant), token,
                      static_cast<int>(*index)};
}

bool Storage::apply(History& history, TrueInstant now, const WriteRequest& w) {
  bool accepted = true;
  if (fencing_ && w.fencing_token) {
    accepted = !max_seen_ || *w.fencing_token >= *max_seen_;
    if (accepted) max_seen_ = w.fencing_token;
  }
  history.writes.push_back({now, w.client, w.grant, w.fencing_token, accepted, w.index});
  return accepted;
}

}  // namespace locksim::scenarios
