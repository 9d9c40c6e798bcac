// The simulator's WorkloadWorld and storage service (sim_workload_world.hpp).
#include "scenarios/sim_workload_world.hpp"

namespace locksim::scenarios {

Task<void> SimWorkloadWorld::sleep_until(std::size_t c, LocalInstant target) {
  const auto now = host(c).monotonic_now();
  co_await host(c).sleep(target > now ? target - now : Duration{0});
}

// A client's first process starts with the run (true time 0).
Task<void> SimWorkloadWorld::await_start(std::size_t c, Duration start) { co_await host(c).sleep(start); }

Task<Reply> SimWorkloadWorld::send_write(std::size_t c, WriteRequest w) {
  auto& conn = ctx_.world.network().connect(host(c).id(), ctx_.storage->id());
  co_return co_await conn.call(write_argv(w), ctx_.scenario.network.timeout);
}

// A fault armed by this point gets the floor: the client yields for an
// instant so it acts first.
Task<void> SimWorkloadWorld::reach(std::size_t c, TriggerEvent event, int write_index) {
  if (!ctx_.timeline->reach(host(c).name(), event, write_index).empty()) co_await host(c).sleep(Duration{0});
}

// How a request shows in the trace: a write or an order accepted or
// rejected (the lock workload's notes, unchanged), a read as the stock it
// returned.
std::optional<Reply> StorageService::on_request(const sim::Request& request) {
  const auto write = parse_write(request.argv);
  if (!write) {
    const bool known = !request.argv.empty() && request.argv[0] == "WRITE";
    return Reply::error(known ? "ERR malformed storage request" : "ERR unknown storage request");
  }
  const std::int64_t answer = storage_.serve(history_, world_.now(), *write);
  const std::string who = world_.host_name(request.client);
  if (write->op == StorageOp::ReadStock) {
    world_.note(request.server, "stock-read", who + " segment " + std::to_string(write->segment) + " stock " +
                                                  std::to_string(answer));
  } else if (write->op == StorageOp::Order) {
    world_.note(request.server, answer ? "order-stored" : "order-refused",
                who + " segment " + std::to_string(write->segment) + " grant " + request.argv[2] + " token " +
                    request.argv[3]);
  } else {
    world_.note(request.server, answer ? "write-accepted" : "write-rejected",
                who + " grant " + request.argv[2] + " token " + request.argv[3]);
  }
  return Reply::integer_of(answer);
}

}  // namespace locksim::scenarios
