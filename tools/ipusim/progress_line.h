// `ipusim run`'s progress display: one line on stderr, rewritten in place ('\r') while a
// long run goes on and cleared when it ends. Shown on a terminal once the run has taken a
// second (a short run shows nothing), from the first report with --progress (even into a
// pipe), never with --no-progress; never by default in a pipe or a CI log.
#pragma once

#include <cstdio>
#include <string>

#include "platform/run_progress.h"

namespace ipusim::cli {

class ProgressLine {
 public:
  enum class Mode { Auto, On, Off };
  // `out` is where it writes (stderr); Auto looks at whether `out` is a terminal.
  ProgressLine(std::FILE* out, Mode mode);
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  void update(const platform::RunProgress& p);
  // Blanks the line (before the summary), if one was shown.
  void clear();

  // The text of one update, e.g. "ipusim: 12 supersteps, 3.457 us simulated, 1234.5 MIPS, 2.3 s".
  static std::string text(const platform::RunProgress& p);

 private:
  std::FILE* out_;
  bool enabled_;
  double delay_seconds_;  // Auto: nothing before the run has taken this long
  size_t shown_ = 0;      // length of the line on screen (0: none)
};

}  // namespace ipusim::cli
