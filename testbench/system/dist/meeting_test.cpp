// Meetings of ranks (dist/meeting.h) under mpirun, through meeting_probe: every kind gives
// each rank what every rank brought, on 1 to 4 ranks and without mpirun, and counts its
// figures; a rank that dies, or one that stops coming to meetings past the limit, ends the
// whole job within seconds, no rank left running. mpirun runs as root in CI and on two
// cores: --allow-run-as-root --oversubscribe.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "cli_run.h"

namespace {

using ipusim::test::CliResult;

// A directory of the test's own for the ranks' pid files.
std::string pid_dir(const std::string& tag) {
  const std::string dir = ipusim::test::temp_path("dist_meeting_", tag);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

CliResult probe(int ranks, const std::string& args) {
  const std::string launch = ranks == 0 ? std::string(MEETING_PROBE)
                                        : std::string(IPUSIM_MPIRUN) + " --allow-run-as-root --oversubscribe -n " +
                                              std::to_string(ranks) + " " + MEETING_PROBE;
  return ipusim::test::run_command(launch, "dist_meeting_" + std::to_string(ranks) + "_", args);
}

// A process that has ended: gone, or a zombie not yet reaped (its parent, mpirun's
// daemon, has ended too, and init reaps it in its own time).
bool ended(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string id, name, state;
  return stat >> id >> name >> state && state == "Z";
}

// Every rank that wrote its pid has ended, at the latest `seconds` after the job did
// (mpirun returns as it signals the ranks, which then end).
void expect_no_rank_running(const std::string& dir, int ranks, double seconds = 2.0) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (int r = 0; r < ranks; ++r) {
    std::ifstream in(dir + "/rank" + std::to_string(r) + ".pid");
    pid_t pid = 0;
    if (!(in >> pid)) continue;  // a rank killed before it wrote (never the case here)
    while (!ended(pid) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(ended(pid)) << "rank " << r << " (pid " << pid << ") is still running";
  }
}

TEST(Meetings, EveryRankGetsWhatEveryRankBrought) {
  for (int ranks : {0, 1, 2, 3, 4}) {
    const std::string dir = pid_dir("check" + std::to_string(ranks));
    const CliResult r = probe(ranks, "check " + dir);
    EXPECT_EQ(r.status, 0) << ranks << " ranks: " << r.err;
    EXPECT_EQ(r.out, "meetings ok: " + std::to_string(ranks == 0 ? 1 : ranks) + " ranks\n") << r.err;
  }
}

TEST(Meetings, ARankThatDiesEndsTheJobWithinSeconds) {
  const std::string dir = pid_dir("kill");
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = probe(3, "kill " + dir);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(r.status, 0) << r.err;
  EXPECT_LT(seconds, 10.0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/rank1.pid"));
  expect_no_rank_running(dir, 3);
}

TEST(Meetings, ARankLatePastTheLimitEndsTheJobNamingTheMeeting) {
  const std::string dir = pid_dir("late");
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = probe(2, "late " + dir);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_LT(seconds, 10.0) << r.err;  // rank 1 would come after 30 s
  EXPECT_NE(r.err.find("ipusim: error: rank 0 of 2: waited 1."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" s for the other ranks at the late meeting (the meeting limit)"), std::string::npos) << r.err;
  expect_no_rank_running(dir, 2);
}

}  // namespace
