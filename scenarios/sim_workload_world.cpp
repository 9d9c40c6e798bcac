// The simulator's WorkloadWorld and storage service (sim_workload_world.hpp).
#include "scenarios/sim_workload_world.hpp"

namespace locksim::scenarios {

sim::Task<void> SimWorkloadWorld::sleep_until(std::size_t c, sim::LocalInstant target) {
  const auto now = host(c).monotonic_now();
  co_await host(c).sleep(target > now ? target - now : sim::Duration{0});
}

// A client's first process starts with the run (true time 0).
sim::Task<void> SimWorkloadWorld::await_start(std::size_t c, sim::Duration start) { co_await host(c).sleep(start); }

sim::Task<sim::redis::Reply> SimWorkloadWorld::send_write(std::size_t c, WriteRequest w) {
  auto& conn = ctx_.world.network().connect(host(c).id(), ctx_.storage->id());
  co_return co_await conn.call(write_argv(w), ctx_.scenario.network.timeout);
}

// A fault armed by this point gets the floor: the client yields for an
// instant so it acts first.
sim::Task<void> SimWorkloadWorld::reach(std::size_t c, std::string_view event, int write_index) {
  if (fire_trigger(ctx_, host(c).name(), event, write_index)) co_await host(c).sleep(sim::Duration{0});
}

std::optional<sim::Reply> StorageService::on_request(const sim::Request& request) {
  const auto& argv = request.argv;
  if (argv.size() != 5 || argv[0] != "WRITE") return sim::Reply::error("ERR unknown storage request");
  const auto write = parse_write(argv);
  if (!write) return sim::Reply::error("ERR malformed storage request");
  const bool accepted = storage_.apply(history_, world_.now(), *write);
  world_.note(request.server, accepted ? "write-accepted" : "write-rejected",
              world_.host_name(request.client) + " grant " + argv[2] + " token " + argv[3]);
  return sim::Reply::integer_of(accepted ? 1 : 0);
}

}  // namespace locksim::scenarios
