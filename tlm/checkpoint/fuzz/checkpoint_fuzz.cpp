// libFuzzer entry for the checkpoint reader (docs/checkpoints.md "Read defensively"): any
// bytes, parsed as the file state.ipuckpt. Checks what must hold for every input: the
// reader returns a checkpoint or throws CheckpointError with a kind and a message (any
// other exception escapes and libFuzzer reports it; a read out of bounds, ASan); a
// checkpoint it returns has sections that read back as the `inputs` section is read by a
// restore, each field bounds-checked by ByteReader.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "checkpoint/byte_io.h"
#include "checkpoint/checkpoint_file.h"

namespace ckpt = ipusim::checkpoint;

namespace {

// As tools/ipusim/run_checkpoint.cpp reads `inputs`; a section of another shape throws.
void read_inputs(const std::vector<uint8_t>& section) {
  ckpt::ByteReader r(section, "inputs");
  r.str("config path");
  r.str("ELF path");
  r.str("tiles");
  const uint64_t items = r.count("link fault items", 8);
  for (uint64_t i = 0; i < items; ++i) r.str("link fault item");
  r.expect_end();
}

// Any section as a run of counted u64 lists and strings: exercises count() against what
// is left whatever the bytes are.
void read_generic(const std::vector<uint8_t>& section) {
  ckpt::ByteReader r(section, "any");
  while (!r.done()) {
    const uint64_t n = r.count("words", 8);
    for (uint64_t i = 0; i < n; ++i) r.u64("word");
    if (!r.done()) r.str("text");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> file(data, data + size);
  ckpt::Checkpoint c;
  try {
    c = ckpt::parse_checkpoint(file, "fuzz/state.ipuckpt");
  } catch (const ckpt::CheckpointError& e) {
    if (std::string(e.what()).empty() || std::string(ckpt::CheckpointError::name(e.kind())).empty()) std::abort();
    return 0;
  }
  if (c.header.version != ckpt::kFormatVersion) std::abort();
  for (const ckpt::Section& s : c.sections) {
    if (!c.has(s.name)) std::abort();
    try {
      if (s.name == "inputs")
        read_inputs(s.data);
      else
        read_generic(s.data);
    } catch (const ckpt::CheckpointError& e) {
      if (e.kind() != ckpt::CheckpointError::Kind::Corrupt && e.kind() != ckpt::CheckpointError::Kind::Truncated)
        std::abort();
    }
  }
  return 0;
}
