// Connection commands of the simulated node, after redis-server 7.0.15:
// src/server.c helloCommand and genRedisInfoString, src/networking.c
// clientCommand and validateClientName, src/db.c selectCommand, and
// processCommand's QUIT. Checked against a real server by
// tests/test_redis_differential.cpp. Differences, on purpose:
// - HELLO 3 answers -NOPROTO: the simulated node speaks RESP2 only (7.0
//   switches to RESP3). A client that asks for RESP3 fails at once and
//   clearly; redis-py 4.3.4 and ioredis 5.4.1 never send HELLO.
// - One database (`databases 1`): SELECT 0 is OK, any other index answers
//   "ERR DB index is out of range", as 7.0 does past its `databases`.
// - CLIENT answers ID, SETNAME and GETNAME; its other 7.0 subcommands (LIST,
//   KILL, PAUSE, TRACKING, ...) answer an error saying the simulated node
//   does not support them; unknown ones (SETINFO is 7.2's) as 7.0 does.
// - INFO has the Server, Persistence, Replication and Keyspace sections with
//   the fields clients read (redis_version, loading — ioredis's ready check —,
//   role); the other sections are empty.
#include "sim/redis/client_commands.hpp"

#include <array>
#include <climits>
#include <string_view>
#include <vector>

#include "sim/redis/command_args.hpp"

namespace locksim::sim::redis {
namespace {

constexpr const char* kVersion = "7.0.15";

// validateClientName: printable ASCII without spaces ('!'..'~').
bool valid_client_name(const std::string& name) {
  for (char c : name) {
    if (c < '!' || c > '~') return false;
  }
  return true;
}
Reply bad_client_name() {
  return Reply::error("ERR Client names cannot contain spaces, newlines or special characters.");
}

// The reply of HELLO in RESP2: the map as a flat array.
Reply hello_reply(const ClientSession& session, const ServerFacts& facts) {
  std::vector<Reply> items;
  for (const char* s : {"server", "redis", "version", kVersion, "proto"}) items.push_back(Reply::bulk(s));
  items.push_back(Reply::integer_of(session.resp));
  items.push_back(Reply::bulk("id"));
  items.push_back(Reply::integer_of(static_cast<std::int64_t>(session.id)));
  for (const char* s : {"mode", "standalone", "role", facts.replica ? "replica" : "master", "modules"})
    items.push_back(Reply::bulk(s));
  items.push_back(Reply::array({}));
  return Reply::array(std::move(items));
}

// The 7.0 CLIENT subcommands the simulated node does not implement.
constexpr std::array<std::string_view, 13> kUnsupportedClientSubcommands{
    "caching", "getredir", "help",   "info",         "kill",    "list",    "no-evict",
    "pause",   "reply",    "tracking", "trackinginfo", "unblock", "unpause"};

std::string lowered(const std::string& s) {
  std::string out(c_string(s));
  for (char& c : out) c = lower(c);
  return out;
}

}  // namespace

Reply hello_command(const Argv& a, ClientSession& session, const ServerFacts& facts) {
  std::int64_t version = 0;
  if (a.size() >= 2) {
    auto parsed = parse_ll(a[1]);
    if (!parsed) return Reply::error("ERR Protocol version is not an integer or out of range");
    if (*parsed < 2 || *parsed > 3) return Reply::error("NOPROTO unsupported protocol version");
    version = *parsed;
  }
  const std::string* name = nullptr;
  bool wrong_user = false;
  for (std::size_t j = 2; j < a.size(); ++j) {
    const std::size_t more = a.size() - 1 - j;
    if (option_is(a[j], "auth") && more >= 2) {
      wrong_user = !option_is(a[j + 1], "default") || a[j + 1].size() != 7;  // the only user: default, nopass
      j += 2;
    } else if (option_is(a[j], "setname") && more >= 1) {
      if (!valid_client_name(a[j + 1])) return bad_client_name();
      name = &a[++j];
    } else {
      return format_error("ERR Syntax error in HELLO option '" + std::string(c_string(a[j])) + "'");
    }
  }
  if (wrong_user) return Reply::error("WRONGPASS invalid username-password pair or user is disabled.");
  if (version == 3) return Reply::error("NOPROTO unsupported protocol version");  // RESP2 only (see above)
  if (name) session.name = *name;
  if (version) session.resp = static_cast<int>(version);
  return hello_reply(session, facts);
}

Reply client_command(const Argv& a, ClientSession& session) {
  const std::string sub = lowered(a[1]);
  if (sub == "id" || sub == "getname" || sub == "setname") {
    if (a.size() != (sub == "setname" ? 3u : 2u)) return wrong_args("client|" + sub);
    if (sub == "id") return Reply::integer_of(static_cast<std::int64_t>(session.id));
    if (sub == "getname") return session.name.empty() ? Reply::nil() : Reply::bulk(session.name);
    if (!valid_client_name(a[2])) return bad_client_name();
    session.name = a[2];
    return Reply::ok();
  }
  for (std::string_view unsupported : kUnsupportedClientSubcommands) {
    if (sub == unsupported) return format_error("ERR CLIENT " + sub + " is not supported by the simulated node");
  }
  return unknown_subcommand(a);
}

// selectCommand: getIntFromObjectOrReply, then selectDb against `databases`.
Reply select_command(const Argv& a, ClientSession& session) {
  auto index = parse_ll(a[1]);
  if (!index) return not_integer();
  if (*index < INT_MIN || *index > INT_MAX)
    return Reply::error("ERR value is out of range, value must between -2147483648 and 2147483647");
  if (*index != 0) return Reply::error("ERR DB index is out of range");
  session.db = 0;
  return Reply::ok();
}

// genRedisInfoString: the requested sections ("default" when none), each
// "# Name\r\n" and its "field:value\r\n" lines, separated by "\r\n".
Reply info_command(const Argv& a, const ServerFacts& facts) {
  const std::string keyspace =
      facts.keys == 0 ? std::string()
                      : "db0:keys=" + std::to_string(facts.keys) + ",expires=" + std::to_string(facts.expiring_keys) +
                            ",avg_ttl=0\r\n";
  const std::array<std::pair<std::string_view, std::string>, 4> sections{{
      {"server", std::string("redis_version:") + kVersion + "\r\nredis_mode:standalone\r\narch_bits:64\r\n"},
      {"persistence", "loading:0\r\nasync_loading:0\r\n"},
      {"replication", std::string("role:") + (facts.replica ? "slave" : "master") + "\r\n"},
      {"keyspace", keyspace},
  }};
  static constexpr std::array<std::string_view, 4> kTitles{"Server", "Persistence", "Replication", "Keyspace"};
  bool all = a.size() == 1;
  for (std::size_t j = 1; j < a.size(); ++j) {
    const std::string name = lowered(a[j]);
    all = all || name == "default" || name == "all" || name == "everything";
  }
  std::string out;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    bool wanted = all;
    for (std::size_t j = 1; j < a.size() && !wanted; ++j) wanted = lowered(a[j]) == sections[i].first;
    if (!wanted) continue;
    if (!out.empty()) out += "\r\n";
    out += "# " + std::string(kTitles[i]) + "\r\n" + sections[i].second;
  }
  return Reply::bulk(std::move(out));
}

// processCommand: QUIT answers +OK and closes the connection after the reply
// (CLIENT_CLOSE_AFTER_REPLY), whatever its arguments.
Reply quit_command(ClientSession& session) {
  session.close_after_reply = true;
  return Reply::ok();
}

}  // namespace locksim::sim::redis
