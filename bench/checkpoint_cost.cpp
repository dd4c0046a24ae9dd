// checkpoint_cost: what a checkpoint costs and what a restore saves (docs/checkpoints.md
// "Cost"). Three `ipusim run`s of one ELF on one config: the uninterrupted run (with the
// --extra options, e.g. `--rtl sync --waves F`), the run that takes the checkpoint at
// --superstep N (without them: the fast part), and the restore (with them). Prints one
// JSON line: the checkpoint's bytes, each run's wall and CPU seconds and peak resident
// set, `write_seconds` (the taking run's wall time over the uninterrupted one's, when
// --extra is empty), and `restore_over_whole`, the restore's wall time over the
// uninterrupted run's (with --extra: what the fast-forward saves). Exit 1 if a run fails
// or the three do not end with the same status.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "child_run.h"

namespace {

double load_average() {
  std::ifstream in("/proc/loadavg");
  double l = 0;
  in >> l;
  return l;
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

nlohmann::ordered_json figures(const ipusim::bench::ChildRun& r) {
  nlohmann::ordered_json j;
  j["wall_seconds"] = r.wall_seconds;
  j["cpu_seconds"] = r.cpu_seconds;
  j["max_rss_mib"] = double(r.max_rss_kib) / 1024.0;
  j["exit_status"] = r.exit_status;
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"the cost of an ipusim checkpoint and of its restore"};
  std::string ipusim = IPUSIM_BINARY, config = "configs/pod16.yaml",
              elf = std::string(IPUSIM_FIRMWARE_DIR) + "/ipu_allreduce.elf", dir = "/tmp/ipusim_checkpoint_cost",
              extra, label = "checkpoint";
  unsigned superstep = 2, threads = 2;
  app.add_option("--ipusim", ipusim, "the ipusim binary");
  app.add_option("--config", config, "the system config (default: a POD16)");
  app.add_option("--elf", elf, "the ELF (default: ipu_allreduce)");
  app.add_option("--superstep", superstep, "the checkpoint's superstep (default 2)");
  app.add_option("--threads", threads, "host threads (default 2)");
  app.add_option("--extra", extra,
                 "options of the uninterrupted run and of the restore, not of the run that takes the checkpoint "
                 "(e.g. '--rtl sync --waves /tmp/w.vcd': the fast-forward)");
  app.add_option("--dir", dir, "the checkpoint's directory (removed at the end)");
  app.add_option("--label", label, "the case's name in the output");
  CLI11_PARSE(app, argc, argv);

  const std::vector<std::string> common = {"--threads", std::to_string(threads), "--quiet"};
  std::vector<std::string> whole = {ipusim, "run", "--config", config, "--elf", elf};
  whole.insert(whole.end(), common.begin(), common.end());
  std::vector<std::string> taking = whole;
  taking.insert(taking.end(), {"--checkpoint-at", "superstep:" + std::to_string(superstep), "--checkpoint-dir", dir});
  std::vector<std::string> restore = {ipusim, "run", "--restore", dir};
  restore.insert(restore.end(), common.begin(), common.end());
  for (const std::string& w : words(extra)) {
    whole.push_back(w);
    restore.push_back(w);
  }

  std::filesystem::remove_all(dir);
  const ipusim::bench::ChildRun w = ipusim::bench::run_child(whole, false);
  const ipusim::bench::ChildRun t = ipusim::bench::run_child(taking, false);
  std::error_code ec;
  const uint64_t bytes = std::filesystem::file_size(std::filesystem::path(dir) / "state.ipuckpt", ec);
  const ipusim::bench::ChildRun r = ipusim::bench::run_child(restore, false);
  std::filesystem::remove_all(dir);

  nlohmann::ordered_json result;
  result["bench"] = "checkpoint_cost";
  result["label"] = label;
  result["config"] = config;
  result["elf"] = elf;
  result["superstep"] = superstep;
  result["extra"] = extra;
  result["checkpoint_bytes"] = ec ? 0 : bytes;
  result["whole"] = figures(w);
  result["taking"] = figures(t);
  result["restore"] = figures(r);
  if (extra.empty()) result["write_seconds"] = t.wall_seconds - w.wall_seconds;
  result["restore_over_whole"] = w.wall_seconds > 0 ? r.wall_seconds / w.wall_seconds : 0;
  result["load_average"] = load_average();
  std::printf("%s\n", result.dump().c_str());
  const bool ok = w.started && w.exit_status >= 0 && !ec && t.exit_status == w.exit_status &&
                  r.exit_status == w.exit_status;
  if (!ok)
    std::fprintf(stderr, "checkpoint_cost: exit %d uninterrupted, %d taking, %d restored%s\n", w.exit_status,
                 t.exit_status, r.exit_status, ec ? " (no checkpoint written)" : "");
  return ok ? 0 : 1;
}
