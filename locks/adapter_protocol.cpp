// The adapter protocol's shared checks (adapter_protocol.hpp).
#include "locks/adapter_protocol.hpp"

#include <string_view>

#include "vocab/printable.hpp"

namespace locksim::locks {

using nlohmann::json;

std::string adapter_answer_problem(const json& a, std::int64_t id, const std::string& op) {
  if (!a.is_object()) return "the answer is not a JSON object";
  if (!a.contains("id") || !a["id"].is_number_integer()) return "the answer has no integer \"id\"";
  if (a["id"].get<std::int64_t>() != id)
    return "the answer's id is " + a["id"].dump() + ", the request's " + std::to_string(id);
  if (a.contains("unsupported")) return "";
  if (!a.contains("result") || !a["result"].is_boolean())
    return "the answer has no boolean \"result\" (or \"unsupported\")";
  if (a.contains("error") && !(a["error"].is_object() && a["error"].value("class", json()).is_string()))
    return "\"error\" must be an object with a string \"class\" (and \"message\")";
  if (op == "acquire" && a["result"].get<bool>() && !(a.contains("token") && a["token"].is_string()))
    return "a granted acquire must carry the library's \"token\" (a string)";
  if (a.contains("fencing") && !a["fencing"].is_null() && !a["fencing"].is_number_integer())
    return "\"fencing\" must be an integer or null";
  return "";
}

json adapter_hello(const std::string& client, std::vector<std::string> servers, const LockConfig& config,
                   Duration command_timeout, double time_scale) {
  const auto micros = [](Duration d) { return std::chrono::duration_cast<std::chrono::microseconds>(d).count(); };
  return {{"op", "hello"},
          {"protocol", kAdapterProtocol},
          {"client", client},
          {"servers", std::move(servers)},
          {"key", config.key},
          {"ttl_us", micros(config.ttl)},
          {"retry_us", micros(config.retry)},
          {"acquire_timeout_us", micros(config.acquire_timeout)},
          {"command_timeout_us", micros(command_timeout)},
          {"options", config.adapter_options},
          {"time_scale", time_scale}};
}

std::string shown_adapter_line(const std::string& text) {
  constexpr std::size_t kShownChars = 200;
  return printable(std::string_view(text).substr(0, kShownChars)) + (text.size() > kShownChars ? "..." : "");
}

}  // namespace locksim::locks
