// The live session's storage link (live_storage_link.hpp).
#include "live/live_storage_link.hpp"

namespace locksim::live {

LiveStorageLink::Answer LiveStorageLink::send(std::size_t c, const scenarios::WriteRequest& request) {
  PendingWrite w;
  w.request = request;
  Answer answered = w.answer;
  const auto now = LiveCore::Clock::now();
  const auto due = links_.due(c, true, now);
  if (due <= now) {
    deliver(std::move(w));
  } else {
    events_.schedule(due, [this, w] {
      std::lock_guard inner(core_.mutex);
      deliver(w);
    });
    core_.cv.notify_all();  // the main thread's next wake-up may be this
  }
  return answered;
}

void LiveStorageLink::deliver(PendingWrite w) {
  if (core_.stop.load()) return;
  if (core_.cut(s_.clients[w.request.client].name, kStorageHost)) {
    if (*core_.partition_mode == PartitionMode::Hold) held_.push_back(std::move(w));
    return;  // Drop: lost
  }
  w.reply = storage_.serve(recorder_.history(), core_.now_true(), w.request);
  const auto now = LiveCore::Clock::now();
  const auto reply_due = links_.due(w.request.client, false, now);
  if (reply_due <= now) return answer(w);
  events_.schedule(reply_due, [this, w] {
    std::lock_guard inner(core_.mutex);
    answer(w);
  });
}

void LiveStorageLink::answer(const PendingWrite& w) {
  if (core_.cut(s_.clients[w.request.client].name, kStorageHost)) return;  // the reply is lost or held: a timeout
  *w.answer = w.reply;
  core_.cv.notify_all();
}

void LiveStorageLink::delay(const std::string& client, bool to_storage, LiveCore::Clock::duration d) {
  std::lock_guard lk(core_.mutex);
  for (std::size_t c = 0; c < s_.clients.size(); ++c)
    if (s_.clients[c].name == client) links_.delay_next(c, to_storage, d);
}

void LiveStorageLink::repartition() {
  std::vector<PendingWrite> held = std::move(held_);
  held_.clear();
  for (auto& w : held) deliver(std::move(w));
}

}  // namespace locksim::live
