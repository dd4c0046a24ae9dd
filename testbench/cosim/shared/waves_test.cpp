// cosim::Waves: the format by extension, the refusals, and the file of each instance.
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "cosim/waves.h"

namespace ipusim::cosim {
namespace {

// A folder under the test's temp dir, made, with a slash at the end.
std::string dir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "waves_" + name + "/";
  std::filesystem::create_directories(d);
  return d;
}

std::string refusal(const std::string& file) {
  try {
    Waves w(file);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Waves, TheExtensionChoosesTheFormat) {
  EXPECT_EQ(Waves("w.fst").format(), WaveFormat::Fst);
  EXPECT_EQ(Waves(dir("run.1") + "w.vcd").format(), WaveFormat::Vcd);
}

TEST(Waves, AnythingButFstOrVcdIsRefusedNamingTheFile) {
  EXPECT_EQ(refusal("w.txt"), "the waveform file 'w.txt' must end in .fst (compact) or .vcd (quick to write)");
  EXPECT_EQ(refusal("w"), "the waveform file 'w' must end in .fst (compact) or .vcd (quick to write)");
  EXPECT_EQ(refusal("dir.fst/w"), "the waveform file 'dir.fst/w' must end in .fst (compact) or .vcd (quick to write)");
  EXPECT_EQ(refusal("w.FST"), "the waveform file 'w.FST' must end in .fst (compact) or .vcd (quick to write)");
  EXPECT_EQ(refusal(".fst"), "the waveform file '.fst' needs a name before .fst");
  EXPECT_EQ(refusal("out/.vcd"), "the waveform file 'out/.vcd' needs a name before .vcd");
}

TEST(Waves, AFolderThatCannotTakeTheFileIsRefusedAtOnce) {
  EXPECT_EQ(refusal("/nonexistent/w.fst"),
            "the waveform file '/nonexistent/w.fst' cannot be written in '/nonexistent': No such file or directory");
}

TEST(Waves, CloseClosesEveryFileEvenIfOneFails) {
  Waves w(::testing::TempDir() + "w.fst");
  int closed = 0;
  w.on_close([&] { ++closed; });
  w.on_close([] { throw std::runtime_error("disk full"); });
  w.on_close([&] { ++closed; });
  EXPECT_THROW(w.close(), std::runtime_error);
  EXPECT_EQ(closed, 2);
  w.close();  // each closer runs once
  EXPECT_EQ(closed, 2);
}

TEST(Waves, OneInstanceWritesTheFileItself) {
  const std::string out = dir("out");
  Waves w(out + "w.fst");
  w.add("ipu0.sync");
  w.freeze();
  EXPECT_EQ(w.path("ipu0.sync"), out + "w.fst");
  EXPECT_EQ(w.paths(), std::vector<std::string>{out + "w.fst"});
}

TEST(Waves, SeveralInstancesEachWriteTheirOwn) {
  const std::string out = dir("out.d");
  Waves w(out + "w.vcd");
  w.add("ipu0.sync");
  w.add("ipu1.sync");
  w.add("link3.a_to_b");
  w.freeze();
  EXPECT_EQ(w.path("ipu1.sync"), out + "w.ipu1.sync.vcd");
  EXPECT_EQ(w.paths(), (std::vector<std::string>{out + "w.ipu0.sync.vcd", out + "w.ipu1.sync.vcd",
                                                 out + "w.link3.a_to_b.vcd"}));
}

TEST(Waves, NamesAreFixedOnlyOnceElaborationEnds) {
  Waves w("w.fst");
  w.add("ipu0.sync");
  EXPECT_THROW(w.path("ipu0.sync"), std::logic_error);  // another instance may still come
  EXPECT_THROW(w.add("ipu0.sync"), std::logic_error);   // a name twice
  w.freeze();
  EXPECT_THROW(w.add("ipu1.sync"), std::logic_error);   // too late
  EXPECT_THROW(w.path("ipu9.sync"), std::logic_error);  // unknown
}

}  // namespace
}  // namespace ipusim::cosim
