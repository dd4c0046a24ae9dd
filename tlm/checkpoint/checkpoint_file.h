// A checkpoint on disk (docs/checkpoints.md "The format"): one file, DIR/state.ipuckpt,
//
//   "IPUCKPT\n"  u32 format version
//   u64 header length, u32 CRC-32 of the header, the header (build id, config hash, ELF
//     hashes, the superstep it was taken at)
//   u64 section count, then per section: u32 name length, name, u8 compression (0 none,
//     1 zstd), u64 size, u64 stored size, u32 CRC-32 of those fields and the stored
//     bytes, the stored bytes
//   "IPUCKEND"
//
// Every length is checked against the file before it is used and every section's
// checksum before it is decompressed, so a truncated or damaged file is refused with a
// CheckpointError naming what is wrong, never read out of bounds. A new kind of state
// (another block, another engine) is a new section: the layout above does not change.
// Writing is atomic: a temporary file in DIR, then a rename over the name; a section
// may be streamed into it (Section::produce), so a large one is never held whole.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ipusim::checkpoint {

inline constexpr uint32_t kFormatVersion = 2;
inline constexpr const char* kStateFile = "state.ipuckpt";

class CheckpointError : public std::runtime_error {
 public:
  enum class Kind {
    Missing,        // no checkpoint at the path
    NotACheckpoint, // the file does not start with the magic
    Version,        // another format version
    Build,          // written by another ipusim build
    Config,         // the config given differs from the checkpoint's
    Elf,            // an ELF given differs from the checkpoint's
    Truncated,      // the file ends before what its lengths promise
    Corrupt,        // a checksum, a length or a field that cannot be
    Unsupported,    // a state this build cannot save or restore (named)
    Option,         // a run option that would change the results of a restore
    Write,          // the file could not be written
  };
  CheckpointError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }
  // "truncated", "corrupt", ...: the name an error message and a test go by.
  static const char* name(Kind kind);

 private:
  Kind kind_;
};

struct Header {
  uint32_t version = kFormatVersion;
  std::string build_id;             // checkpoint/build_id.h
  uint64_t config_hash = 0;         // content_hash of the config section's text
  std::vector<uint64_t> elf_hashes; // content_hash of each ELF section, in order
  uint64_t superstep = 0;           // syncs every IPU had released when it was taken
};

struct Section {
  std::string name;
  std::vector<uint8_t> data;  // uncompressed
  bool compress = true;       // stored with zstd
  // A section too large to hold in memory beside the run (the SRAM pages): `produce`
  // hands its `size` bytes to `emit` piece by piece while write_checkpoint compresses
  // (zstd, streaming, compress must be true) and writes them; `data` stays empty. The
  // file is the same layout: a reader sees a section like any other.
  using Emit = std::function<void(std::span<const uint8_t>)>;
  std::function<void(const Emit& emit)> produce;
  uint64_t size = 0;  // with produce: the bytes it emits in all
};

struct Checkpoint {
  Header header;
  std::vector<Section> sections;

  // The section named `name`; throws CheckpointError (Corrupt) if there is none.
  const std::vector<uint8_t>& section(std::string_view name) const;
  bool has(std::string_view name) const;
};

// Writes `ckpt` to DIR/state.ipuckpt (DIR made if missing), atomically. Throws
// CheckpointError (Write) naming the path and the OS error.
void write_checkpoint(const std::string& dir, const Checkpoint& ckpt);
// Reads DIR/state.ipuckpt, checking magic, version, build id, every length and checksum.
Checkpoint read_checkpoint(const std::string& dir);
// The same checks on a file's bytes already in memory (`where` names it in errors).
Checkpoint parse_checkpoint(const std::vector<uint8_t>& file, const std::string& where);

}  // namespace ipusim::checkpoint
