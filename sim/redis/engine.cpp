// Engine skeleton: every command answers with an error until the command
// table lands. Exists so the shared build links while the engine is written.
#include "sim/redis/engine.hpp"

namespace locksim::sim::redis {

struct Engine::Impl {
  EngineOptions options;
  Role role = Role::Master;
  std::vector<KeyEvent> events;
};

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
}
Engine::~Engine() = default;

Reply Engine::execute(const Argv&, std::int64_t) { return Reply::error("ERR not implemented"); }
void Engine::apply(const Argv&, std::int64_t) {}
std::vector<Argv> Engine::take_effects() { return {}; }
const std::vector<KeyEvent>& Engine::last_key_events() const { return impl_->events; }
void Engine::active_expire(std::int64_t) {}
Role Engine::role() const { return impl_->role; }
void Engine::set_role(Role role) { impl_->role = role; }
void Engine::flush_all() {}
bool Engine::is_write_command(const Argv&) { return false; }
std::size_t Engine::key_count() const { return 0; }
std::optional<KeyView> Engine::inspect(const std::string&) const { return std::nullopt; }

}  // namespace locksim::sim::redis
