// install_process_locks (cli/process_locks.hpp): library locks' processes.
#include "cli/process_locks.hpp"

#include <algorithm>
#include <cstdlib>
#include <ostream>

#include "hosted/process_lock_host.hpp"
#include "live/external_lock.hpp"
#include "live/server_preload.hpp"
#include "locks/registry.hpp"
#include "scenarios/process_locks.hpp"
#include "scenarios/scenario.hpp"

namespace locksim::cli {

namespace {

// The adapter's command and the shim, or ProcessFailure (the run's error:
// exit 2, the adapter and its library being the user's input).
hosted::ProcessLockOptions process_options(const scenarios::Scenario& s, const locks::LockInfo& lock) {
  const auto library = live::locate_simtime_library();
  if (!library)
    throw scenarios::ProcessFailure("lock " + lock.name + " runs its adapter in simulated time: liblocksim_simtime.so "
                                    "not found (build the locksim_simtime target)");
  hosted::ProcessLockOptions options;
  try {
    options.command = live::adapter_command(lock.name, s.lock);
  } catch (const live::AdapterFailure& e) {
    throw scenarios::ProcessFailure(e.what());
  }
  options.preload = library->string();
  // LOCKSIM_ZYGOTE=0: each process starts afresh (docs/external-clients.md).
  if (const char* zygote = std::getenv("LOCKSIM_ZYGOTE")) {
    if (std::string(zygote) != "0" && std::string(zygote) != "1")
      throw scenarios::ProcessFailure("environment variable LOCKSIM_ZYGOTE: '" + std::string(zygote) +
                                      "' is neither 0 nor 1");
    options.zygote = std::string(zygote) == "1";
  }
  return options;
}

}  // namespace

void install_process_locks() {
  scenarios::set_process_locks_factory([](const scenarios::Scenario& s, const locks::LockInfo& lock) {
    return std::make_unique<hosted::ProcessLockHost>(process_options(s, lock));
  });
}

std::string process_locks_line(const std::string& lock) {
  const auto info = locks::find_lock(lock);
  if (!info || info->library.empty()) return "";
  return "simulated time: every run of " + info->name + " (" + info->library +
         ") runs its adapter as one process per client incarnation under liblocksim_simtime.so, none shared "
         "between runs (forked from a zygote per thread unless LOCKSIM_ZYGOTE=0 or the runtime has threads)";
}

std::vector<std::string> process_locks_lines(const std::vector<std::string>& locks) {
  std::vector<std::string> lines;
  for (const std::string& lock : locks)
    if (std::string line = process_locks_line(lock);
        !line.empty() && std::find(lines.begin(), lines.end(), line) == lines.end())
      lines.push_back(std::move(line));
  return lines;
}

void print_mechanism(const std::vector<std::string>& lines, std::ostream& out) {
  for (const std::string& line : lines) out << line << "\n";
}

}  // namespace locksim::cli
