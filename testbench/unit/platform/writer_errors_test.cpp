// Writers that cannot write (a full disk, a file-size limit) end in an error that names
// the file and the OS error: the --trace timeline, and a core file, whose cut-short
// remains are removed.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "platform/elf_core.h"
#include "platform/platform_timeline.h"

namespace ipusim::platform {
namespace {

TEST(WriterErrors, TraceOnAFullDeviceNamesFileAndError) {
  Timeline timeline("/dev/full", 1e9, 64);
  timeline.add_ipu(0, 4, {0, 1, 2, 3});
  tile::SuperstepRecord r;
  for (uint32_t k = 0; k < 1000; ++k)
    for (uint32_t t = 0; t < 4; ++t) {
      r.index = k;
      r.begin = k * 10;
      r.end = k * 10 + 9;
      timeline.add(0, t, r);
    }
  try {
    timeline.write();
    FAIL() << "writing /dev/full succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--trace: writing '/dev/full' failed: No space left on device"),
              std::string::npos)
        << e.what();
  }
}

// A process limited to 4 KiB files (RLIMIT_FSIZE: writes past it fail with EFBIG, as on
// a full disk) writes a 64 KiB core: the error names the file and the partial file goes.
TEST(WriterErrors, CoreCutShortIsRemoved) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ipusim_core_cut_" + std::to_string(::getpid()) + ".core")).string();
  std::filesystem::remove(path);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    ElfCore core("prog", "prog");
    core.add_thread({});
    core.add_memory({0x40000, std::vector<uint8_t>(64 * 1024, 0xAB)});
    try {
      core.write(path);
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      const bool named = what.find("cannot write core file '" + path + "': File too large") != std::string::npos &&
                         what.find("the partial file is removed") != std::string::npos;
      ::_exit(named ? (std::filesystem::exists(path) ? 3 : 0) : 2);
    }
    ::_exit(1);  // no error
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: no error, 2: the error names no file / OS error, 3: the partial file stayed";
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ipusim::platform
