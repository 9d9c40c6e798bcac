// Closest spelling (sim/spelling.hpp): the textbook two-row Levenshtein.
#include "vocab/spelling.hpp"

#include <algorithm>

namespace locksim {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

std::optional<std::string> closest_spelling(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty()) return std::nullopt;
  const std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const auto& c : candidates) {
    const std::size_t d = std::string_view(c).substr(0, word.size()) == word ? 0 : edit_distance(word, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto best = closest_spelling(word, candidates);
  return best ? "; did you mean '" + *best + "'?" : "";
}

}  // namespace locksim
