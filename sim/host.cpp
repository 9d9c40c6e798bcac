// Host lifecycle: root tasks, pause, crash, restart.
#include "sim/host.hpp"

#include <cassert>

#include "sim/world.hpp"

namespace locksim::sim {

namespace {
// Wraps a root so that an exception escaping it stops the run (an internal
// error of the simulated code) instead of vanishing with the frame.
Task<void> guard_root(Task<void> inner, Scheduler* sched) {
  try {
    co_await std::move(inner);
  } catch (...) {
    sched->fail(std::current_exception());
  }
}
}  // namespace

Host::Host(World& world, HostId id, std::string name, Rng rng)
    : world_(world), id_(id), name_(std::move(name)), rng_(rng) {}

Host::~Host() {
  // Destroy frames while the scheduler (which their awaiters release slots
  // into) is still alive: the World destroys hosts before the scheduler.
  auto roots = std::move(roots_);
  roots.clear();
}

Scheduler& Host::scheduler() { return world_.scheduler(); }

LocalInstant Host::monotonic_now() const { return clock_.monotonic(world_.scheduler().now()); }
LocalInstant Host::wall_now() const { return clock_.wall(world_.scheduler().now()); }

TrueInstant Host::wake_after(Duration d) const {
  const TrueInstant now = world_.scheduler().now();
  assert(d >= Duration::zero() && "a sleep or timer forward in time");
  const TrueInstant wake = clock_.true_when_monotonic(clock_.monotonic(now) + d);
  return wake < now ? now : wake;
}

SleepAwaiter Host::sleep(Duration d) { return SleepAwaiter(world_.scheduler(), id_, wake_after(d)); }

void Host::every(Duration period, std::function<void()> tick) {
  assert(period > Duration::zero() && "a periodic timer with a period (zero would spin at one instant)");
  periodic_.push_back({period, std::move(tick)});
  world_.scheduler().schedule(wake_after(period), &Host::on_periodic, this, periodic_.size() - 1, id_);
}

void Host::on_periodic(void* ctx, std::uint64_t index) {
  auto& self = *static_cast<Host*>(ctx);
  self.periodic_[index].tick();
  if (!self.up_ || index >= self.periodic_.size()) return;  // the tick crashed its own host
  // The next one is scheduled after the tick's own events, as the loop's
  // next sleep would be.
  self.world_.scheduler().schedule(self.wake_after(self.periodic_[index].period), &Host::on_periodic, &self, index,
                                   self.id_);
}

void Host::start() {
  if (main_) spawn(main_(*this));
}

std::uint64_t Host::spawn(Task<void> task) {
  assert(up_ && "spawn on a crashed host");
  reap_finished();
  const std::uint64_t root_id = next_root_id_++;
  roots_.emplace(root_id, guard_root(std::move(task), &world_.scheduler()));
  world_.scheduler().schedule(world_.scheduler().now(), &Host::on_start_root, this, root_id, id_);
  return root_id;
}

void Host::on_start_root(void* ctx, std::uint64_t root_id) {
  auto& self = *static_cast<Host*>(ctx);
  auto it = self.roots_.find(root_id);
  if (it != self.roots_.end() && !it->second.done()) it->second.start();
}

void Host::cancel(std::uint64_t root_id) {
  auto it = roots_.find(root_id);
  if (it == roots_.end()) return;
  Task<void> doomed = std::move(it->second);  // destroyed after the erase
  roots_.erase(it);
}

void Host::reap_finished() {
  std::erase_if(roots_, [](const auto& entry) { return entry.second.done(); });
}

std::size_t Host::live_roots() const {
  std::size_t n = 0;
  for (const auto& [id, task] : roots_) n += task.done() ? 0 : 1;
  return n;
}

void Host::pause(Duration d) {
  if (up_) world_.scheduler().pause(id_, d);
}

bool Host::paused() const { return world_.scheduler().paused(id_); }

void Host::crash() {
  if (!up_) return;
  up_ = false;
  world_.scheduler().bump_epoch(id_);
  auto doomed = std::move(roots_);
  roots_.clear();
  doomed.clear();  // destroys every frame; awaiters release their wait slots
  assert(roots_.empty() && "a dying frame spawned nothing on its crashed host");
  periodic_.clear();
  for (auto& listener : crash_listeners_) listener();
}

void Host::restart() {
  if (up_) crash();
  assert(roots_.empty() && periodic_.empty() && "a restart begins with no task and no timer");
  up_ = true;
  ++incarnation_;
  start();
}

}  // namespace locksim::sim
