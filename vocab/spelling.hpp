// "Did you mean": the candidate closest to a mistyped name (a subcommand,
// an option, a lock kind), by edit distance (a swap of neighbours is one edit). Only a close
// enough candidate is offered — at most a third of the word's length in
// edits (at least one), or a candidate the word is a prefix of — so a
// wild guess gets no suggestion rather than a misleading one. Ties go to
// the earlier candidate, so the answer is the same on every run.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

// Edits between two words: insertions, deletions, substitutions and swaps
// of two neighbouring letters, one each.
std::size_t edit_distance(std::string_view a, std::string_view b);

std::optional<std::string> closest_spelling(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'naive-del'?" or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace locksim
