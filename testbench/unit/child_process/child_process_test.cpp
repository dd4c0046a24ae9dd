// The tests' and benchmarks' one child-process helper (testbench/support/child_process.h):
// each stream kind, environment and directory, how a child ends, and the timeout that
// kills a child and what it started, so no child hangs a suite.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "child_process.h"

namespace ipusim::proc {
namespace {

std::string temp(const std::string& name) {
  return ::testing::TempDir() + "child_process_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name;
}

TEST(ChildProcess, CapturesStdoutAndStderrApartAndTheExitStatus) {
  const Outcome r = run(Command::shell("printf out; printf err >&2; exit 7"));
  ASSERT_TRUE(r.started) << r.start_error;
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_status, 7);
  EXPECT_EQ(r.out, "out");
  EXPECT_EQ(r.err, "err");
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.describe(), "exit status 7");
}

TEST(ChildProcess, CapturesMoreThanAPipeHolds) {
  // 1 MiB on each stream: neither may block the other.
  const Outcome r = run(Command::shell("head -c 1048576 /dev/zero; head -c 1048576 /dev/zero >&2"));
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_EQ(r.out.size(), 1048576u);
  EXPECT_EQ(r.err.size(), 1048576u);
}

TEST(ChildProcess, ASignalThatEndsItIsReported) {
  const Outcome r = run(Command::shell("kill -SEGV $$"));
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(r.describe(), "killed by signal 11");
}

TEST(ChildProcess, ATimeoutKillsTheChildAndWhatItStarted) {
  Command c = Command::shell("sleep 100 & sleep 100");
  c.timeout_seconds = 0.5;
  const auto start = std::chrono::steady_clock::now();
  const Outcome r = run(c);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.signal, SIGKILL);
  // The background sleep held stdout and stderr open; it was killed with the shell.
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(r.describe().rfind("timed out after", 0), 0u) << r.describe();
}

TEST(ChildProcess, EnvironmentIsSetAndUnsetOverThisProcesss) {
  ::setenv("CHILD_PROCESS_TEST_GONE", "here", 1);
  Command c = Command::shell("echo \"$CHILD_PROCESS_TEST_SET|${CHILD_PROCESS_TEST_GONE-unset}|${HOME:+home}\"");
  c.env = {"CHILD_PROCESS_TEST_SET=a b", "CHILD_PROCESS_TEST_GONE"};
  const Outcome r = run(c);
  EXPECT_EQ(r.out, "a b|unset|home\n");
}

TEST(ChildProcess, RunsInTheWorkingDirectoryGiven) {
  Command c = Command::program({"pwd"});  // found in PATH
  c.cwd = "/tmp";
  EXPECT_EQ(run(c).out, "/tmp\n");
  c.cwd = "/no/such/dir";
  const Outcome bad = run(c);
  EXPECT_FALSE(bad.started);
  EXPECT_NE(bad.start_error.find("/no/such/dir"), std::string::npos) << bad.start_error;
}

TEST(ChildProcess, AProgramThatIsNotThereDoesNotStart) {
  const Outcome r = run(Command::program({"no-such-program-ipusim"}));
  EXPECT_FALSE(r.started);
  EXPECT_EQ(r.start_error, "cannot start no-such-program-ipusim: not found");
  const Outcome path = run(Command::program({"/no/such/program"}));
  EXPECT_FALSE(path.started);
  EXPECT_NE(path.start_error.find("No such file"), std::string::npos) << path.start_error;
}

TEST(ChildProcess, FilesAreWrittenAndReadBack) {
  const std::string in = temp("in"), out = temp("out"), err = temp("err");
  std::ofstream(in) << "input line\n";
  Command c = Command::shell("cat; echo oops >&2");
  c.in = Stream::file(in);
  c.out = Stream::file(out);
  c.err = Stream::file(err);
  const Outcome r = run(c);
  EXPECT_EQ(r.out, "input line\n");
  EXPECT_EQ(r.err, "oops\n");
  std::ifstream kept(out);
  std::string line;
  std::getline(kept, line);
  EXPECT_EQ(line, "input line");
}

TEST(ChildProcess, PipesTheCallerHoldsStreamAndEndOnClose) {
  Command c = Command::shell("while read x; do echo \"got $x\"; done; echo done");
  c.in = Stream::pipe();
  c.out = Stream::pipe();
  Child child(c);
  ASSERT_TRUE(child.started());
  ASSERT_EQ(::write(child.stdin_fd(), "a\n", 2), 2);
  char buf[16] = {};
  ASSERT_EQ(::read(child.stdout_fd(), buf, 6), 6);
  EXPECT_EQ(std::string(buf, 6), "got a\n");
  EXPECT_FALSE(child.ended());
  child.close_stdin();
  const Outcome r = child.wait();
  EXPECT_EQ(r.exit_status, 0);
  ASSERT_EQ(::read(child.stdout_fd(), buf, 5), 5);
  EXPECT_EQ(std::string(buf, 5), "done\n");
}

TEST(ChildProcess, ASignalCanBeSentAndTheDestructorKillsAChildStillRunning) {
  pid_t pid = 0;
  {
    Child child(Command::shell("exec sleep 100"));
    pid = child.pid();
    ASSERT_GT(pid, 0);
    EXPECT_EQ(::kill(pid, 0), 0);
  }
  EXPECT_NE(::kill(pid, 0), 0) << "the child outlived its Child";
  Child child(Command::shell("exec sleep 100"));
  EXPECT_TRUE(child.send_signal(SIGTERM));
  const Outcome r = child.wait();
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_FALSE(child.send_signal(SIGTERM)) << "reaped";
}

TEST(ChildProcess, AnAddressSpaceLimitAndThePeakMemoryAreTheChilds) {
  Command c = Command::shell("ulimit -v");
  c.address_space_bytes = uint64_t{512} << 20;
  const Outcome r = run(c);
  EXPECT_EQ(r.out, "524288\n");
  EXPECT_GT(r.max_rss_kib, 0);
  EXPECT_GE(r.cpu_seconds, 0.0);
}

}  // namespace
}  // namespace ipusim::proc
