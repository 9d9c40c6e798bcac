// `locksim live`: one scenario, one lock, against real redis-server
// processes — or, for an [etcd] / [zookeeper] scenario, a real etcd cluster
// or ZooKeeper ensemble — on loopback with real faults (live/live_runner.hpp). It prints
// the same text and JSON as `run` — plus lines (text) or a "live" object
// (JSON) saying what was emulated and that the run is not deterministic.
// Exit codes as `run`: 0 matched, 1 not, 2 bad input or a fault live mode
// cannot do, 3 a server failed or the run was interrupted. Without
// --time-scale the scenario's [live] time_scale applies, else 0.01 (0.1 on
// an etcd / ZooKeeper topology: etcd leases take whole seconds).
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/live_result.hpp"
#include "cli/terminal.hpp"
#include "live/live_runner.hpp"
#include "reports/run_output.hpp"
#include "scenarios/catalog.hpp"
#include "vocab/printable.hpp"

namespace locksim::cli {

namespace {

struct LiveArgs {
  std::string scenario;
  std::string lock;
  std::string client;  // --client "CMD ARGS": the adapter of lock "external"
  std::optional<double> time_scale;  // nullopt: the scenario's [live] time_scale, else 0.01
  std::string redis_server;
  std::string format = "text";
  std::string seed = "1";  // read by option_number
  std::vector<std::string> redis;
  std::string prefix;
  bool allow_remote = false;
};

int show(const LiveArgs& args, const live::LiveRun& live, std::int64_t time_scale_ppm,
         const std::string& description) {
  if (args.format == "json") {
    std::cout << live_run_json(live, time_scale_ppm).dump() << "\n";
  } else {
    for (const auto& n : live.notes) std::cout << "live      " << printable(n) << "\n";
    std::cout << reports::run_to_text(live.run, description, stdout_style());
  }
  return live.run.matched ? kMatched : kUnmatched;
}

// --prefix and --allow-remote only mean something with --redis, and an empty
// prefix would put the run's keys at the top of a shared server.
void check_redis_options(const LiveArgs& args, bool prefix_given) {
  if (args.redis.empty() && (prefix_given || args.allow_remote))
    throw InputError(std::string("live: ") + (prefix_given ? "--prefix" : "--allow-remote") +
                     " is for existing servers: it needs --redis HOST:PORT");
  if (prefix_given && args.prefix.empty())
    throw InputError("live: --prefix must not be empty (leave it out for a fresh locksim:<random>: prefix)");
}

}  // namespace

Handler add_live_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("live", "Run one scenario against real redis-server, etcd or ZooKeeper processes with real faults");
  auto args = std::make_shared<LiveArgs>();
  cmd->add_option("scenario", args->scenario, "A catalog scenario name or a scenario .toml file")->required();
  cmd->add_option("--lock", args->lock, "Lock kind (default: the scenario's [lock] kind)");
  cmd->add_option("--client", args->client,
                  "The client adapter's command line for --lock external (docs/external-clients.md); implies it");
  cmd->add_option("--time-scale", args->time_scale,
                  "Real seconds per scenario second (0.001..10; default: the scenario's [live] time_scale, else 0.01, "
                  "or 0.1 for etcd / ZooKeeper)");
  cmd->add_option("--redis-server", args->redis_server, "The redis-server binary (default: found on PATH)");
  cmd->add_option("--format", args->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--seed", args->seed, "Recorded in the output (live runs are not replayable)");
  cmd->add_option("--redis", args->redis, "Existing servers HOST:PORT[,...] (one per master) instead of started ones");
  auto* prefix = cmd->add_option("--prefix", args->prefix, "With --redis: the prefix of every key the run touches "
                                            "(default locksim:<random>:)");
  cmd->add_flag("--allow-remote", args->allow_remote, "With --redis: allow non-loopback addresses");
  add_color_option(*cmd);
  return [args, prefix] {
    check_redis_options(*args, prefix->count() > 0);
    auto scenario = scenarios::resolve_scenario(args->scenario);
    if (!scenario) throw InputError(scenario.error().to_string());
    live::LiveOptions options;
    options.lock_kind = args->lock;
    if (!args->client.empty()) {
      if (!args->lock.empty() && args->lock != "external")
        throw InputError("live: --client runs your own adapter: it goes with --lock external, not --lock " + args->lock);
      options.lock_kind = "external";
      scenario->lock.command = shell_words(args->client, "live: --client: cannot split the command line");
      if (scenario->lock.command.empty()) throw InputError("live: --client names no program");
    }
    options.seed = option_number("live", "--seed", args->seed);
    options.time_scale_ppm = live_time_scale_ppm(*scenario, args->time_scale);
    options.redis_server = args->redis_server;
    options.scenario_ref = args->scenario;
    options.redis_endpoints = comma_list("live", "--redis", args->redis);
    options.key_prefix = args->prefix;
    options.allow_remote = args->allow_remote;
    auto live = live::run_live(*scenario, options);
    if (!live) {
      if (live.error().exit_code == kBadInput) throw InputError("live: " + live.error().message);
      std::cerr << "locksim: live: " << printable(live.error().message) << "\n";
      return static_cast<int>(kInternal);
    }
    return show(*args, *live, options.time_scale_ppm, scenario->description);
  };
}

}  // namespace locksim::cli
