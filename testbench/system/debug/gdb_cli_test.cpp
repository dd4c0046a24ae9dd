// `ipusim run --gdb` driven by Debian's gdb-multiarch in batch mode, end to end: a
// breakpoint at a function on tile 7 worker 3 (a condition on the Xipu CSR registers
// `tile` and `thread`), registers and variables read, an instruction step and line
// steps, a watchpoint on tile SRAM, and the run continued to its end; its console output
// and cycle counts equal those of the run without gdb.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include "child_process.h"
#include "cli_run.h"

namespace ipusim {
namespace {

const std::string kBin = IPUSIM_BIN;
const std::string kElf = std::string(IPUSIM_FIRMWARE_DIR) + "/debug/gdb_target.elf";
const std::string kConfig = "configs/test/tiny16.yaml";

std::string temp_path(const std::string& name) { return test::temp_path("gdb_cli_", name); }

// A child `sh -c cmd`; never outlives the test.
class Child {
 public:
  explicit Child(const std::string& cmd) : child_(shell(cmd)) {}
  // The exit status (128 + the signal that ended it), or -1 if it did not end within
  // `limit` (then it is killed, when the Child goes).
  int wait(std::chrono::seconds limit) {
    if (!child_.ended_within(double(limit.count()))) return -1;
    const proc::Outcome o = child_.wait();
    return o.exited ? o.exit_status : 128 + o.signal;
  }

 private:
  static proc::Command shell(const std::string& cmd) {
    proc::Command command = proc::Command::shell(cmd);
    command.out = command.err = proc::Stream::inherit();  // cmd redirects them
    command.timeout_seconds = 600;  // each wait() has its own limit
    return command;
  }
  proc::Child child_;
};

// The port `ipusim run --gdb 0` printed on stderr, waiting for it at most 20 s.
int listening_port(const std::string& stderr_path) {
  const std::regex line(R"(listening on 127\.0\.0\.1:(\d+))");
  for (int i = 0; i < 1000; ++i) {
    std::smatch m;
    const std::string err = test::read_file(stderr_path);
    if (std::regex_search(err, m, line)) return std::stoi(m[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

std::string summary_line(const std::string& err, const std::string& key) {
  const std::regex line("\\n  " + key + " +([^\\n]*)");
  std::smatch m;
  return std::regex_search(err, m, line) ? m[1].str() : "(no " + key + " line)";
}

TEST(GdbCli, BreakStepWatchAndContinueToTheEndAsWithoutGdb) {
  const test::CliResult plain = test::run_cli(kBin, "gdb_cli_plain_", "--config " + kConfig + " --elf " + kElf);
  ASSERT_EQ(plain.status, 0) << plain.err;

  const std::string out = temp_path("ipusim.out"), err = temp_path("ipusim.err");
  std::remove(err.c_str());  // a previous run's port line must not be read
  Child ipusim("exec " + kBin + " run --config " + kConfig + " --elf " + kElf + " --gdb 0 >" + out + " 2>" + err);
  const int port = listening_port(err);
  ASSERT_GT(port, 0) << test::read_file(err);

  const std::string script = temp_path("script.gdb");
  std::ofstream(script) << "set pagination off\n"
                           "set confirm off\n"
                           "target remote 127.0.0.1:" << port << "\n"
                           "break accumulate if $tile == 7 && $thread == 3\n"
                           "continue\n"
                           "info registers a0 a1 tile thread\n"
                           "print count\n"
                           "stepi\n"
                           "print $pc\n"
                           "next\n"
                           "python gdb.execute('watch totals[3] thread %d' % gdb.selected_thread().num)\n"
                           "delete 1\n"
                           "continue\n"
                           "print totals[3]\n"
                           "delete\n"
                           "continue\n";
  const test::CliResult gdb =
      test::run_command("timeout 60 gdb-multiarch", "gdb_cli_gdb_", "-batch -nx -x " + script + " " + kElf);
  const std::string& g = gdb.out;
  EXPECT_EQ(gdb.status, 0) << g << gdb.err;
  EXPECT_TRUE(std::regex_search(g, std::regex(R"(Thread \d+ "tile 7 w3" hit Breakpoint 1, accumulate \(first=300, count=30\))")))
      << g;
  EXPECT_NE(g.find("a1             0x1e\t30"), std::string::npos) << g;
  EXPECT_TRUE(std::regex_search(g, std::regex(R"(tile +0x7\t7\nthread +0x3\t3)"))) << g;
  EXPECT_NE(g.find("$1 = 30"), std::string::npos) << g;
  EXPECT_TRUE(std::regex_search(g, std::regex(R"(\$2 = \(void \(\*\)\(\)\) 0x[0-9a-f]+ <accumulate\+4>)"))) << g;
  EXPECT_TRUE(std::regex_search(g, std::regex(R"(\n17\t +sum \+= first \+ i;)"))) << g;  // next: a line on
  EXPECT_TRUE(std::regex_search(g, std::regex(R"("tile 7 w3" hit Hardware watchpoint 2: totals\[3\])"))) << g;
  EXPECT_NE(g.find("New value = 9435"), std::string::npos) << g;  // 300 + ... + 329
  EXPECT_NE(g.find("$3 = 9435"), std::string::npos) << g;
  EXPECT_NE(g.find("[Inferior 1 (process 1) exited normally]"), std::string::npos) << g;

  ASSERT_EQ(ipusim.wait(std::chrono::seconds(60)), 0) << test::read_file(err);
  const std::string debugged_err = test::read_file(err);
  EXPECT_EQ(test::read_file(out), plain.out);
  for (const char* key : {"tile cycles", "instructions", "simulated time"})
    EXPECT_EQ(summary_line(debugged_err, key), summary_line(plain.err, key)) << key;
}

// A console that cannot be written under --gdb (docs/platform.md "Console ordering"): the
// first failed write stops the tiles as gdb's Ctrl-C does (gdb sees SIGINT); continued,
// the run goes on to its end with its later lines counted, not written, and `ipusim run`
// exits 5 with the console's error.
TEST(GdbCli, AConsoleWriteErrorStopsTheTilesForGdb) {
  const std::string elf = std::string(IPUSIM_FIRMWARE_DIR) + "/system/chatter.elf";
  const std::string err = temp_path("full.err");
  std::remove(err.c_str());
  Child ipusim("exec " + kBin + " run --config configs/test/tiny4.yaml --elf " + elf + " --gdb 0 --quiet >/dev/full 2>" +
               err);
  const int port = listening_port(err);
  ASSERT_GT(port, 0) << test::read_file(err);
  const std::string script = temp_path("full.gdb");
  std::ofstream(script) << "set pagination off\n"
                           "set confirm off\n"
                           "target remote 127.0.0.1:" << port << "\n"
                           "continue\n"
                           "continue\n";
  const test::CliResult gdb =
      test::run_command("timeout 60 gdb-multiarch", "gdb_cli_gdb_", "-batch -nx -x " + script + " " + elf);
  EXPECT_EQ(gdb.status, 0) << gdb.out << gdb.err;
  EXPECT_NE(gdb.out.find("received signal SIGINT"), std::string::npos) << gdb.out;
  EXPECT_NE(gdb.out.find("[Inferior 1 (process 1) exited normally]"), std::string::npos) << gdb.out;
  ASSERT_EQ(ipusim.wait(std::chrono::seconds(60)), 5) << test::read_file(err);
  const std::string e = test::read_file(err);
  EXPECT_NE(e.find("ipusim: error: console: writing stdout failed: No space left on device"), std::string::npos) << e;
  EXPECT_NE(e.find("(the tiles stopped for gdb there;"), std::string::npos) << e;  // not "the run ended"
  EXPECT_NE(e.find("9012 console line(s) in all"), std::string::npos) << e;  // every line counted
}

}  // namespace
}  // namespace ipusim
