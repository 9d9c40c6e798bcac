// The hosted layer's wire (hosted/, issue 39): RESP on real loopback sockets
// answered by simulated Redis nodes. The codec's cases, the socket server's
// ordering and protocol errors, and a differential: redis-py 4.3.4 and
// ioredis (their connect handshake, redis-py's Lock, SET NX PX and the EVAL
// compare-and-delete) print the same outcomes against a simulated node as
// against a real redis-server 7.0.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "hosted/sim_socket_server.hpp"
#include "hosted/wire_bridge.hpp"
#include "locks/hiredis/hiredis_conn.hpp"
#include "locks/hiredis/resp_codec.hpp"
#include "tests/support/redis_server.hpp"

extern char** environ;

namespace {

using locksim::Argv;
using locksim::Reply;
using locksim::hosted::WireBridge;
using locksim::locks::encode_resp2;
using locksim::locks::RespCommandReader;

std::vector<Argv> read_all(RespCommandReader& reader) {
  std::vector<Argv> out;
  while (auto argv = reader.next()) out.push_back(*argv);
  return out;
}

// Runs argv with stdout and stderr into a pipe, calling pump() between
// reads, until it exits (killed after deadline). Returns its output.
std::string run_client(std::vector<std::string> argv, const std::function<void()>& pump,
                       std::chrono::seconds deadline = std::chrono::seconds(20)) {
  int fds[2];
  REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  REQUIRE(spawned == 0);
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  std::string out;
  const auto until = std::chrono::steady_clock::now() + deadline;
  int status = 0;
  for (bool exited = false; !exited;) {
    pump();
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    exited = waitpid(pid, &status, WNOHANG) == pid;
    if (!exited && std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      out += "\n(killed after the deadline)";
      break;
    }
  }
  for (char buf[4096]; read(fds[0], buf, sizeof buf) > 0;) {
  }
  close(fds[0]);
  return out;
}

void pause_briefly() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }

std::vector<std::string> python_client(int port) {
  return {"/usr/bin/python3", std::string(LOCKSIM_SOURCE_DIR) + "/tests/clients/hosted_redis_py.py",
          std::to_string(port)};
}

std::vector<std::string> node_client(int port) {
  return {"node", std::string(LOCKSIM_SOURCE_DIR) + "/tests/clients/hosted_ioredis.js", std::to_string(port),
          std::string(LOCKSIM_SOURCE_DIR) + "/adapters/node-redlock/node_modules/ioredis"};
}

// A raw client socket for the socket server's own cases.
struct RawClient {
  int fd = -1;
  explicit RawClient(int port);
  ~RawClient() { close(fd); }
  void send_bytes(const std::string& bytes) const {
    REQUIRE(write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  // What arrives until the peer closes or `pump` rounds pass without bytes.
  std::string receive(const std::function<void()>& pump, int rounds = 200) const;
};

}  // namespace

RawClient::RawClient(int port) {
  fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  fcntl(fd, F_SETFL, O_NONBLOCK);
}

std::string RawClient::receive(const std::function<void()>& pump, int rounds) const {
  std::string out;
  for (int idle = 0; idle < rounds;) {
    pump();
    char buf[4096];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n == 0) break;  // closed by the server
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      idle = 0;
    } else {
      ++idle;
    }
  }
  return out;
}

// ------------------------------------------------------------------ codec --

TEST_CASE("the RESP reader returns a command split across many packets once it is complete", "[hosted-wire]") {
  RespCommandReader reader;
  const std::string bytes = "*3\r\n$3\r\nSET\r\n$4\r\nlock\r\n$6\r\nto\r\nen\r\n";
  for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
    reader.feed(bytes.substr(i, 1));
    CHECK_FALSE(reader.next());
  }
  reader.feed(bytes.substr(bytes.size() - 1));
  CHECK(read_all(reader) == std::vector<Argv>{{"SET", "lock", "to\r\nen"}});  // binary-safe
  CHECK_FALSE(reader.error());
}

TEST_CASE("the RESP reader returns pipelined and inline commands in byte order", "[hosted-wire]") {
  RespCommandReader reader;
  reader.feed("*1\r\n$4\r\nPING\r\nSET a \"b c\"\r\n\r\n*0\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\nECHO x\n*1\r\n$4\r\nQU");
  CHECK(read_all(reader) == std::vector<Argv>{{"PING"}, {"SET", "a", "b c"}, {"GET", "a"}, {"ECHO", "x"}});
  reader.feed("IT\r\n");
  CHECK(read_all(reader) == std::vector<Argv>{{"QUIT"}});
  CHECK_FALSE(reader.error());
}

TEST_CASE("malformed RESP gets redis-server's protocol error and nothing after it", "[hosted-wire]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"*x\r\n", "ERR Protocol error: invalid multibulk length"},
      {"*1\r\n$x\r\n", "ERR Protocol error: invalid bulk length"},
      {"*1\r\n:1\r\n", "ERR Protocol error: expected '$', got ':'"},
      {"*2\r\n$1\r\na\r\n+b\r\n", "ERR Protocol error: expected '$', got '+'"},
      {"SET a \"b\r\n", "ERR Protocol error: unbalanced quotes in request"},
      {std::string(70 * 1024, 'a'), "ERR Protocol error: too big inline request"},
  };
  for (const auto& [bytes, error] : cases) {
    INFO(bytes.substr(0, 40));
    RespCommandReader reader;
    reader.feed(bytes);
    CHECK(read_all(reader).empty());
    REQUIRE(reader.error());
    CHECK(*reader.error() == error);
    reader.feed("*1\r\n$4\r\nPING\r\n");  // nothing is read after the error
    CHECK(read_all(reader).empty());
  }
}

TEST_CASE("replies are written in RESP2", "[hosted-wire]") {
  CHECK(encode_resp2(Reply::ok()) == "+OK\r\n");
  CHECK(encode_resp2(Reply::error("ERR x")) == "-ERR x\r\n");
  CHECK(encode_resp2(Reply::integer_of(-3)) == ":-3\r\n");
  CHECK(encode_resp2(Reply::nil()) == "$-1\r\n");
  CHECK(encode_resp2(Reply::bulk("a\r\nb")) == "$4\r\na\r\nb\r\n");
  CHECK(encode_resp2(Reply::array({Reply::bulk("x"), Reply::array({})})) == "*2\r\n$1\r\nx\r\n*0\r\n");
}

// ---------------------------------------------------------- socket server --

TEST_CASE("the socket server returns commands by connection, then byte order, and replies in command order",
          "[hosted-wire]") {
  locksim::hosted::SimSocketServer server;
  RawClient a(server.port());
  RawClient b(server.port());
  std::vector<locksim::hosted::WireCommand> got;
  for (int i = 0; i < 200 && server.open_connections() < 2; ++i) server.drain();
  b.send_bytes("*1\r\n$4\r\nPING\r\n");
  a.send_bytes("ECHO 1\r\nECHO 2\r\n");
  for (int i = 0; i < 200 && got.size() < 3; ++i) {
    server.wait(5);
    for (auto& c : server.drain().commands) got.push_back(std::move(c));
  }
  REQUIRE(got.size() == 3);
  CHECK((got[0].connection == 1 && got[0].argv == Argv{"ECHO", "1"} && got[0].seq == 0));
  CHECK((got[1].connection == 1 && got[1].argv == Argv{"ECHO", "2"} && got[1].seq == 1));
  CHECK((got[2].connection == 2 && got[2].argv == Argv{"PING"}));
  server.reply(1, 1, Reply::bulk("2"));  // early: held until seq 0 is answered
  server.reply(1, 0, Reply::bulk("1"));
  server.close_after_replies(1);
  CHECK(a.receive([&] { server.drain(); }) == "$1\r\n1\r\n$1\r\n2\r\n");
  CHECK_FALSE(server.is_open(1));
}

TEST_CASE("a protocol error is answered after the replies owed, then the connection closes", "[hosted-wire]") {
  WireBridge bridge;
  RawClient client(bridge.port(0));
  client.send_bytes("PING\r\n*1\r\n$x\r\nPING\r\n");
  CHECK(client.receive([&] { bridge.step(1); }) == "+PONG\r\n-ERR Protocol error: invalid bulk length\r\n");
}

TEST_CASE("a crashed simulated node resets its sockets and answers again after its restart", "[hosted-wire]") {
  WireBridge bridge;
  {
    RawClient client(bridge.port(0));
    client.send_bytes("SET k v\r\n");
    CHECK(client.receive([&] { bridge.step(1); }, 50) == "+OK\r\n");
    bridge.crash_node(0);
    CHECK(client.receive([&] { bridge.step(1); }, 50).empty());
    char byte;
    CHECK(read(client.fd, &byte, 1) <= 0);  // reset: no more bytes, ever
  }
  RawClient again(bridge.port(0));
  again.send_bytes("GET k\r\nCLIENT ID\r\nQUIT\r\n");
  // The AOF kept the write (a process crash keeps what was written); client ids start again.
  CHECK(again.receive([&] { bridge.step(1); }) == "$1\r\nv\r\n:1\r\n+OK\r\n");
}

TEST_CASE("a partition of the simulated network holds a socket's commands until it heals", "[hosted-wire]") {
  WireBridge bridge;
  RawClient client(bridge.port(0));
  client.send_bytes("SET k v\r\n");
  CHECK(client.receive([&] { bridge.step(1); }, 50) == "+OK\r\n");
  const auto host = bridge.client_of(0, 1);
  REQUIRE(host);
  bridge.world().network().partition({{bridge.node(0).id()}, {*host}}, locksim::PartitionMode::Hold);
  client.send_bytes("GET k\r\n");
  CHECK(client.receive([&] { bridge.step(1); }, 50).empty());  // held, however long the client waits
  bridge.world().network().heal();
  CHECK(client.receive([&] { bridge.step(1); }, 50) == "$1\r\nv\r\n");
}

TEST_CASE("malformed input gets the same bytes from a simulated node as from redis-server 7.0", "[hosted-wire]") {
  locksim::tests::skip_without_redis_server();
  locksim::tests::RedisServerProcess real;
  WireBridge bridge;
  const std::vector<std::string> inputs = {
      "*x\r\n",          "*1\r\n$x\r\n",       "*1\r\n:1\r\n", "*2\r\n$1\r\na\r\n+b\r\n",
      "SET a \"b\r\n", "PING\r\n*1\r\n$-1\r\n", "ECHO x\r\n\r\n*0\r\n*-1\r\nPING\r\nQUIT\r\n",
  };
  for (const std::string& input : inputs) {
    INFO(input);
    RawClient to_real(real.port());
    to_real.send_bytes(input);
    const std::string expected = to_real.receive(pause_briefly, 100);
    RawClient to_sim(bridge.port(0));
    to_sim.send_bytes(input);
    CHECK(to_sim.receive([&] { bridge.step(1); }, 100) == expected);
    CHECK_FALSE(expected.empty());
  }
}

// ------------------------------------------------- real client libraries --

// The client's output against a real redis-server 7.0 and against a
// simulated node: the same lines, or the simulated node is wrong.
void check_same_outcomes(const std::function<std::vector<std::string>(int)>& client, const std::string& last_line) {
  locksim::tests::skip_without_redis_server();
  locksim::tests::RedisServerProcess real;
  const std::string expected = run_client(client(real.port()), pause_briefly);
  WireBridge bridge;
  const std::string got = run_client(client(bridge.port(0)), [&] { bridge.step(1); });
  INFO("real redis-server:\n" << expected << "\nsimulated node:\n" << got);
  CHECK(expected.find("raised ConnectionError") == std::string::npos);
  CHECK(expected.find("killed") == std::string::npos);
  CHECK(expected.find(last_line) != std::string::npos);  // the script ran to its end
  CHECK(got == expected);
  CHECK(bridge.commands_forwarded() > 10);
}

TEST_CASE("redis-py's handshake and Lock give the same outcomes on a simulated node as on redis-server 7.0",
          "[hosted-wire]") {
  check_same_outcomes(python_client, "\nquit True\n");
}

TEST_CASE("ioredis's handshake, SET NX PX and EVAL release give the same outcomes on a simulated node",
          "[hosted-wire]") {
  check_same_outcomes(node_client, "\nquit \"OK\"\n");
}
