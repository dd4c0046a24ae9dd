// cosim::Waves: the format by extension, the refusals, and the file of each instance.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "cosim/waves.h"

namespace ipusim::cosim {
namespace {

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
  EXPECT_EQ(Waves("out/run.1/w.vcd").format(), WaveFormat::Vcd);
}

TEST(Waves, AnythingButFstOrVcdIsRefusedNamingTheFile) {
  EXPECT_EQ(refusal("w.txt"), "the waveform file 'w.txt' must end in .fst (compact) or .vcd (quick to write)");
  EXPECT_EQ(refusal("w"), "the waveform file 'w' must end in .fst (compact) or .vcd (quick to write)");
  EXPECT_EQ(refusal("dir.fst/w"), "the waveform file 'dir.fst/w' must end in .fst (compact) or .vcd (quick to write)");
  EXPECT_EQ(refusal("w.FST"), "the waveform file 'w.FST' must end in .fst (compact) or .vcd (quick to write)");
  EXPECT_EQ(refusal(".fst"), "the waveform file '.fst' needs a name before .fst");
  EXPECT_EQ(refusal("out/.vcd"), "the waveform file 'out/.vcd' needs a name before .vcd");
}

TEST(Waves, OneInstanceWritesTheFileItself) {
  Waves w("out/w.fst");
  w.add("ipu0.sync");
  w.freeze();
  EXPECT_EQ(w.path("ipu0.sync"), "out/w.fst");
  EXPECT_EQ(w.paths(), std::vector<std::string>{"out/w.fst"});
}

TEST(Waves, SeveralInstancesEachWriteTheirOwn) {
  Waves w("out.d/w.vcd");
  w.add("ipu0.sync");
  w.add("ipu1.sync");
  w.add("link3.a_to_b");
  w.freeze();
  EXPECT_EQ(w.path("ipu1.sync"), "out.d/w.ipu1.sync.vcd");
  EXPECT_EQ(w.paths(), (std::vector<std::string>{"out.d/w.ipu0.sync.vcd", "out.d/w.ipu1.sync.vcd",
                                                 "out.d/w.link3.a_to_b.vcd"}));
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
