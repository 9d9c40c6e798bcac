// Shard parsing and worker threads for sweep and check (parallel.hpp).
#include "cli/parallel.hpp"

#include <limits>
#include <new>
#include <system_error>

#include "cli/commands.hpp"

namespace locksim::cli {

std::pair<unsigned, unsigned> parse_shard(const std::string& command, const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos || text.find('/', slash + 1) != std::string::npos)
    throw InputError(command + ": --shard \"" + text + "\": expected K/N, e.g. 2/8");
  const reports::Bounds shard_bounds{1, std::numeric_limits<unsigned>::max()};
  const auto index = static_cast<unsigned>(option_number(command, "--shard K", text.substr(0, slash), shard_bounds));
  const auto count = static_cast<unsigned>(option_number(command, "--shard N", text.substr(slash + 1), shard_bounds));
  if (index > count)
    throw InputError(command + ": --shard \"" + text + "\": K must be at most N (shards are 1/N to N/N)");
  return {index, count};
}

// Starts up to `extra` more workers; a thread that cannot start (out of
// memory or threads: --jobs 2000 in a container) ends the spawning, and the
// command goes on with the workers it has (the caller's thread is one).
std::vector<std::thread> start_workers(const std::string& command, unsigned extra, const std::function<void()>& worker,
                                       std::ostream& log) {
  std::vector<std::thread> threads;
  threads.reserve(extra);
  auto could_not_start = [&](const char* why) {
    log << command << ": could start only " << threads.size() + 1 << " of " << extra + 1 << " jobs (" << why
        << "); continuing with " << threads.size() + 1 << "\n";
  };
  for (unsigned j = 0; j < extra; ++j) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error& e) {  // no stack could be mapped for it
      could_not_start(e.what());
      break;
    } catch (const std::bad_alloc&) {  // nor its start-up state allocated (the threads already running ate the heap)
      could_not_start("out of memory");
      break;
    }
  }
  return threads;
}

}  // namespace locksim::cli
