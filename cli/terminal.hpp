// How output looks on a terminal and off one, in one place:
//
// Colour: `--color auto|always|never` (every subcommand that prints
// coloured text: run, replay, live, check, hunt) wins; without it (or with
// `auto`), NO_COLOR present and not empty turns colour off
// (https://no-color.org), then CLICOLOR_FORCE set and not "0" turns it on
// (https://bixense.com/clicolors), else colour only on a terminal. NO_COLOR
// before CLICOLOR_FORCE is the order of Rust's anstream
// (anstream/src/auto.rs, choice(): `no_color()` is asked before
// `clicolor_force()`).
//
// Progress: a long command redraws one line on a terminal; off a terminal
// (CI logs) it writes whole lines, and only for a run that is long — from
// 10 s on, one line at each 10 % step or every 30 s, whichever comes first:
// "locksim: sweep 1234/8340 (14 %), ETA 0:52". Always on stderr, so JSON
// lines on stdout stay clean.
#pragma once

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "reports/run_output.hpp"

namespace locksim::cli {

enum class ColorWhen { Auto, Always, Never };

// The decision, from the flag and the two variables (nullptr: unset) and
// whether the stream is a terminal.
inline bool colour_wanted(ColorWhen flag, const char* no_color, const char* clicolor_force, bool terminal) {
  if (flag != ColorWhen::Auto) return flag == ColorWhen::Always;
  if (no_color != nullptr && *no_color != '\0') return false;
  if (clicolor_force != nullptr && *clicolor_force != '\0' && std::string(clicolor_force) != "0") return true;
  return terminal;
}

// The process's --color (one command per process).
inline ColorWhen& color_flag() {
  static ColorWhen flag = ColorWhen::Auto;
  return flag;
}

// Adds `--color auto|always|never` to a subcommand that prints coloured text.
inline void add_color_option(CLI::App& cmd) {
  const std::map<std::string, ColorWhen> names{
      {"auto", ColorWhen::Auto}, {"always", ColorWhen::Always}, {"never", ColorWhen::Never}};
  cmd.add_option_function<std::string>(
         "--color", [names](const std::string& when) { color_flag() = names.at(when); },
         "Colour the text output: auto (a terminal, unless NO_COLOR; CLICOLOR_FORCE forces it), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->type_name("WHEN");
}

inline reports::TextStyle stdout_style() {
  return {colour_wanted(color_flag(), std::getenv("NO_COLOR"), std::getenv("CLICOLOR_FORCE"),
                        ::isatty(STDOUT_FILENO) == 1)};
}

// "locksim: sweep 1234/8340 (14 %), ETA 0:52": the ETA from the rate so
// far (h:mm:ss past an hour; "?" before the first piece is done).
inline std::string progress_line(const std::string& what, std::uint64_t done, std::uint64_t total, double elapsed_s) {
  const auto d = static_cast<double>(done), t = static_cast<double>(total);
  const unsigned percent = total ? static_cast<unsigned>(100.0 * d / t) : 100;
  std::string eta = "?";
  if (done > 0 && total >= done) {
    const auto left = static_cast<std::uint64_t>(elapsed_s * (t - d) / d + 0.5);
    char buf[32];
    if (left >= 3600)
      std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", static_cast<unsigned long long>(left / 3600),
                    static_cast<unsigned long long>(left / 60 % 60), static_cast<unsigned long long>(left % 60));
    else
      std::snprintf(buf, sizeof buf, "%llu:%02llu", static_cast<unsigned long long>(left / 60),
                    static_cast<unsigned long long>(left % 60));
    eta = buf;
  }
  return "locksim: " + what + " " + std::to_string(done) + "/" + std::to_string(total) + " (" +
         std::to_string(percent) + " %), ETA " + eta;
}

// How a long command shows its progress on stderr: not at all (--quiet),
// one line redrawn (a terminal), or whole lines now and then (not a terminal).
enum class ProgressMode { Off, Redraw, Lines };

// `redraw_ok`: false when stdout is the same terminal and carries the
// command's output (sweep --out -): a redrawn line would tear it.
inline ProgressMode progress_mode(bool quiet, bool redraw_ok = true) {
  if (quiet) return ProgressMode::Off;
  if (::isatty(STDERR_FILENO) != 1) return ProgressMode::Lines;
  return redraw_ok ? ProgressMode::Redraw : ProgressMode::Off;
}

// When a progress line is due off a terminal (see the top): not before
// kQuiet of the run, then at each 10 % step not yet shown or kEvery after
// the last line. Not thread-safe: its caller holds its own lock.
class ProgressPacer {
 public:
  static constexpr std::chrono::seconds kQuiet{10};
  static constexpr std::chrono::seconds kEvery{30};
  using Clock = std::chrono::steady_clock;

  explicit ProgressPacer(Clock::time_point started) : started_(started) {}
  bool due(std::uint64_t done, std::uint64_t total, Clock::time_point now) {
    if (now - started_ < kQuiet || done == 0) return false;
    const std::uint64_t step = total ? done * 10 / total : 10;
    if (step <= shown_step_ && last_ && now - *last_ < kEvery) return false;
    shown_step_ = step;
    last_ = now;
    return true;
  }

 private:
  Clock::time_point started_;
  std::optional<Clock::time_point> last_;
  std::uint64_t shown_step_ = 0;
};

}  // namespace locksim::cli
