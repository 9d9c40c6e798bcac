// Storage writes with optional fencing.
#include "scenarios/storage.hpp"

#include <charconv>

namespace locksim::scenarios {

namespace {
std::optional<std::int64_t> to_int(const std::string& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}
}  // namespace

std::optional<sim::Reply> StorageService::on_request(const sim::Request& request) {
  const auto& argv = request.argv;
  if (argv.size() != 5 || argv[0] != "WRITE") return sim::Reply::error("ERR unknown storage request");
  const auto client = to_int(argv[1]);
  const auto grant = to_int(argv[2]);
  const auto token = to_int(argv[3]);  // "-" = no token
  const auto index = to_int(argv[4]);
  if (!client || !grant || !index) return sim::Reply::error("ERR malformed storage request");
  bool accepted = true;
  if (fencing_ && token) {
    accepted = !max_seen_ || *token >= *max_seen_;
    if (accepted) max_seen_ = token;
  }
  history_.writes.push_back({world_.now(), static_cast<std::size_t>(*client), static_cast<std::uint64_t>(*grant),
                             token, accepted, static_cast<int>(*index)});
  world_.note(request.server, accepted ? "write-accepted" : "write-rejected",
              world_.host_name(request.client) + " grant " + argv[2] + " token " + argv[3]);
  return sim::Reply::integer_of(accepted ? 1 : 0);
}

}  // namespace locksim::scenarios
