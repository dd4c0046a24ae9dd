#include "child_run.h"

#include "child_process.h"

namespace ipusim::bench {

ChildRun run_child(const std::vector<std::string>& argv, bool discard_stderr) {
  proc::Command command = proc::Command::program(argv);
  command.out = proc::Stream::null();
  command.err = discard_stderr ? proc::Stream::null() : proc::Stream::inherit();
  command.in = proc::Stream::inherit();
  command.timeout_seconds = 3600;  // the longest benchmark runs minutes
  const proc::Outcome o = proc::run(command);
  ChildRun run;
  if (!o.started) return run;
  run.started = true;
  run.wall_seconds = o.wall_seconds;
  run.exit_status = o.exited ? o.exit_status : -1;
  run.cpu_seconds = o.cpu_seconds;
  run.max_rss_kib = o.max_rss_kib;
  return run;
}

}  // namespace ipusim::bench
