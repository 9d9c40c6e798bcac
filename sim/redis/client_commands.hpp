// The connection commands of a simulated Redis node: what client libraries
// send when they connect (HELLO, CLIENT SETNAME/GETNAME/ID, SELECT, the INFO
// that ioredis's ready check reads) and QUIT, answered as redis-server
// 7.0.15 answers them. They read and change the connection's own state (a
// ClientSession, src/server.h's `client`), not the keyspace; the Engine's
// command table routes them here (docs/redis-model.md, "Connection commands").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "vocab/reply.hpp"

namespace locksim::sim::redis {

// One connection's state on the server (src/server.h, struct client): its
// CLIENT ID, CLIENT SETNAME name, RESP version and selected database, and
// whether QUIT asked the server to close it after the reply.
struct ClientSession {
  std::uint64_t id = 0;
  std::string name;
  int resp = 2;
  int db = 0;
  bool close_after_reply = false;
};

// What INFO and HELLO report about the server.
struct ServerFacts {
  bool replica = false;
  std::size_t keys = 0;
  std::size_t expiring_keys = 0;
};

Reply hello_command(const Argv& argv, ClientSession& session, const ServerFacts& facts);
Reply client_command(const Argv& argv, ClientSession& session);
Reply select_command(const Argv& argv, ClientSession& session);
Reply info_command(const Argv& argv, const ServerFacts& facts);
Reply quit_command(ClientSession& session);

}  // namespace locksim::sim::redis
