// The ranks of a process from its launcher's environment (dist/launcher.h), and the ranks
// of a build without MPI (ranks_none.cpp): one process, or a named error under a launcher
// of several ranks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "dist/launcher.h"
#include "dist/ranks.h"

namespace {

using ipusim::dist::EnvLookup;

EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(Launcher, NoLauncherIsZero) {
  EXPECT_EQ(ipusim::dist::launcher_world_size(env({})), 0u);
  EXPECT_EQ(ipusim::dist::launcher_variable(env({})), "");
}

TEST(Launcher, OpenMpiFirstThenPmi) {
  EXPECT_EQ(ipusim::dist::launcher_world_size(env({{"OMPI_COMM_WORLD_SIZE", "3"}, {"PMIX_SIZE", "5"}})), 3u);
  EXPECT_EQ(ipusim::dist::launcher_variable(env({{"OMPI_COMM_WORLD_SIZE", "3"}, {"PMIX_SIZE", "5"}})),
            "OMPI_COMM_WORLD_SIZE");
  EXPECT_EQ(ipusim::dist::launcher_world_size(env({{"PMI_SIZE", "2"}})), 2u);
  EXPECT_EQ(ipusim::dist::launcher_world_size(env({{"PMIX_SIZE", "4"}})), 4u);
}

TEST(Launcher, MalformedSizesAreNoLauncher) {
  for (const char* bad : {"", "0", "-2", "2x", "x", "99999999999"})
    EXPECT_EQ(ipusim::dist::launcher_world_size(env({{"OMPI_COMM_WORLD_SIZE", bad}})), 0u) << bad;
  // A malformed first variable does not hide a good second one.
  EXPECT_EQ(ipusim::dist::launcher_world_size(env({{"OMPI_COMM_WORLD_SIZE", "x"}, {"PMI_SIZE", "2"}})), 2u);
}

TEST(RanksWithoutMpi, OneProcess) {
  EXPECT_FALSE(ipusim::dist::mpi_built());
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
  ::unsetenv("PMI_SIZE");
  ::unsetenv("PMIX_SIZE");
  int argc = 0;
  char** argv = nullptr;
  const auto place = ipusim::dist::start_ranks(argc, argv);
  EXPECT_EQ(place.rank, 0u);
  EXPECT_EQ(place.size, 1u);
  EXPECT_FALSE(place.mpi);
  EXPECT_FALSE(place.distributed());
}

TEST(RanksWithoutMpi, OneRankOfALauncherRuns) {
  ::setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
  int argc = 0;
  char** argv = nullptr;
  EXPECT_EQ(ipusim::dist::start_ranks(argc, argv).size, 1u);
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
}

TEST(RanksWithoutMpi, SeveralRanksAreRefusedByName) {
  ::setenv("PMI_SIZE", "2", 1);
  int argc = 0;
  char** argv = nullptr;
  try {
    ipusim::dist::start_ranks(argc, argv);
    ADD_FAILURE() << "a build without MPI started as one of 2 ranks";
  } catch (const ipusim::dist::RankError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("this build of ipusim has no MPI"), std::string::npos) << what;
    EXPECT_NE(what.find("one of 2 ranks (PMI_SIZE=2)"), std::string::npos) << what;
  }
  ::unsetenv("PMI_SIZE");
}

}  // namespace
