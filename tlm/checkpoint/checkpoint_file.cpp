#include "checkpoint/checkpoint_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include <fmt/format.h>
#include <zlib.h>
#include <zstd.h>

#include "checkpoint/build_id.h"
#include "checkpoint/byte_io.h"

namespace ipusim::checkpoint {
namespace {

constexpr char kMagic[8] = {'I', 'P', 'U', 'C', 'K', 'P', 'T', '\n'};
constexpr char kEndMagic[8] = {'I', 'P', 'U', 'C', 'K', 'E', 'N', 'D'};
constexpr uint32_t kMaxNameBytes = 64;
constexpr int kZstdLevel = 3;

uint32_t crc_of(const uint8_t* data, size_t size, uint32_t start = 0) {
  uLong crc = start;
  while (size > 0) {
    const uInt n = uInt(std::min<size_t>(size, 1u << 30));
    crc = crc32(crc, data, n);
    data += n;
    size -= n;
  }
  return uint32_t(crc);
}

std::vector<uint8_t> compress(const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), kZstdLevel);
  if (ZSTD_isError(n)) throw CheckpointError(CheckpointError::Kind::Write, std::string("zstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

// A section's checksum covers its descriptor (name, compression, sizes) and its bytes:
// a damaged name or size is refused as surely as damaged data.
uint32_t section_crc(const std::string& name, uint8_t compression, uint64_t size, uint64_t stored_size,
                     const uint8_t* stored) {
  ByteWriter d;
  d.str(name);
  d.u8(compression);
  d.u64(size);
  d.u64(stored_size);
  return crc_of(stored, size_t(stored_size), crc_of(d.data().data(), d.data().size()));
}

// A produced section (Section::produce) compressed as it comes, each piece written by
// `put` as zstd hands it out: what is held is zstd's window and one output buffer.
struct StreamedSection {
  uint64_t stored = 0;  // bytes written
  uint32_t crc = 0;     // CRC-32 of them
};

template <typename Put>
StreamedSection write_streamed(const Section& s, Put& put) {
  const auto fail = [&](const std::string& why) {
    throw CheckpointError(CheckpointError::Kind::Write, fmt::format("checkpoint section '{}': {}", s.name, why));
  };
  if (!s.compress) fail("a streamed section is compressed");
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!cctx) fail("zstd: no memory for a compression context");
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, kZstdLevel);
  // The frame records its content size, as a one-shot frame does: the reader checks it.
  ZSTD_CCtx_setPledgedSrcSize(cctx.get(), s.size);
  std::vector<uint8_t> out(ZSTD_CStreamOutSize());
  StreamedSection result;
  uint64_t given = 0;
  const auto drain = [&](ZSTD_inBuffer in, ZSTD_EndDirective mode) {
    for (;;) {
      ZSTD_outBuffer o{out.data(), out.size(), 0};
      const size_t left = ZSTD_compressStream2(cctx.get(), &o, &in, mode);
      if (ZSTD_isError(left)) fail(std::string("zstd: ") + ZSTD_getErrorName(left));
      result.crc = crc_of(out.data(), o.pos, result.crc);
      result.stored += o.pos;
      put(out.data(), o.pos);
      if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) return;
    }
  };
  s.produce([&](std::span<const uint8_t> bytes) {
    given += bytes.size();
    if (given > s.size) fail(fmt::format("more than the {} byte(s) declared", s.size));
    drain(ZSTD_inBuffer{bytes.data(), bytes.size(), 0}, ZSTD_e_continue);
  });
  if (given != s.size) fail(fmt::format("{} byte(s) produced, {} declared", given, s.size));
  drain(ZSTD_inBuffer{nullptr, 0, 0}, ZSTD_e_end);
  return result;
}

std::string state_path(const std::string& dir) { return (std::filesystem::path(dir) / kStateFile).string(); }

// Reads the file as a sequence of checked fields.
class FileReader {
 public:
  FileReader(const std::vector<uint8_t>& file, const std::string& where) : file_(file), where_(where) {}
  const uint8_t* take(size_t n, const char* what) {
    if (n > file_.size() - at_)
      throw CheckpointError(CheckpointError::Kind::Truncated,
                            fmt::format("{}: truncated: {} needs {} byte(s) at offset {}, the file has {} left",
                                        where_, what, n, at_, file_.size() - at_));
    const uint8_t* p = file_.data() + at_;
    at_ += n;
    return p;
  }
  uint64_t uint(size_t bytes, const char* what) {
    const uint8_t* p = take(bytes, what);
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
    return v;
  }
  size_t left() const { return file_.size() - at_; }
  size_t at() const { return at_; }

 private:
  const std::vector<uint8_t>& file_;
  const std::string& where_;
  size_t at_ = 0;
};

}  // namespace

const char* CheckpointError::name(Kind kind) {
  switch (kind) {
    case Kind::Missing: return "missing";
    case Kind::NotACheckpoint: return "not a checkpoint";
    case Kind::Version: return "format version";
    case Kind::Build: return "build";
    case Kind::Config: return "config";
    case Kind::Elf: return "elf";
    case Kind::Truncated: return "truncated";
    case Kind::Corrupt: return "corrupt";
    case Kind::Unsupported: return "unsupported";
    case Kind::Option: return "option";
    case Kind::Write: return "write";
  }
  return "?";
}

const std::vector<uint8_t>& Checkpoint::section(std::string_view name) const {
  for (const Section& s : sections)
    if (s.name == name) return s.data;
  throw CheckpointError(CheckpointError::Kind::Corrupt, fmt::format("the checkpoint has no section '{}'", name));
}

bool Checkpoint::has(std::string_view name) const {
  for (const Section& s : sections)
    if (s.name == name) return true;
  return false;
}

void write_checkpoint(const std::string& dir, const Checkpoint& ckpt) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw CheckpointError(CheckpointError::Kind::Write, fmt::format("checkpoint '{}': {}", dir, ec.message()));

  ByteWriter header;
  header.str(ckpt.header.build_id);
  header.u64(ckpt.header.config_hash);
  header.u64(ckpt.header.elf_hashes.size());
  for (const uint64_t h : ckpt.header.elf_hashes) header.u64(h);
  header.u64(ckpt.header.superstep);

  // A reader never sees half a file: written under a temporary name, synced, renamed.
  // Each section is compressed and written in turn, so only one is held twice.
  const std::string path = state_path(dir);
  const std::string temp = path + fmt::format(".tmp-{}", ::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool file_gone = false;  // fail() closed and removed it
  auto fail = [&](const char* what) {
    const std::string why = std::strerror(errno);
    file_gone = true;
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    throw CheckpointError(CheckpointError::Kind::Write, fmt::format("checkpoint '{}': {} failed: {}", temp, what, why));
  };
  if (fd < 0) fail("open");
  uint64_t written = 0;  // the file's bytes so far
  auto put = [&](const uint8_t* data, size_t size) {
    for (size_t at = 0; at < size;) {
      const ssize_t n = ::write(fd, data + at, size - at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("write");
      at += size_t(n);
    }
    written += size;
  };
  auto flush = [&](ByteWriter& w) {
    put(w.data().data(), w.data().size());
    w.data().clear();
  };

  ByteWriter file;
  file.raw(kMagic, sizeof kMagic);
  file.u32(ckpt.header.version);
  file.u64(header.data().size());
  file.u32(crc_of(header.data().data(), header.data().size()));
  file.raw(header.data().data(), header.data().size());
  file.u64(ckpt.sections.size());
  flush(file);
  for (const Section& s : ckpt.sections) {
    if (s.produce) {
      file.u32(uint32_t(s.name.size()));
      file.raw(s.name.data(), s.name.size());
      file.u8(1);
      file.u64(s.size);
      flush(file);
      const uint64_t stored_at = written;  // the stored size and the checksum, known at the end
      file.u64(0);
      file.u32(0);
      flush(file);
      StreamedSection streamed;
      try {
        streamed = write_streamed(s, put);
      } catch (...) {  // zstd's, the producer's, or put's (which removed the file already)
        if (!file_gone) {
          ::close(fd);
          ::unlink(temp.c_str());
        }
        throw;
      }
      ByteWriter descriptor, sizes;
      descriptor.str(s.name);
      descriptor.u8(1);
      descriptor.u64(s.size);
      descriptor.u64(streamed.stored);
      sizes.u64(streamed.stored);
      // The checksum covers the descriptor, then the stored bytes: the two CRCs combined.
      sizes.u32(uint32_t(crc32_combine(crc_of(descriptor.data().data(), descriptor.data().size()), streamed.crc,
                                       z_off_t(streamed.stored))));
      if (::pwrite(fd, sizes.data().data(), sizes.data().size(), off_t(stored_at)) != ssize_t(sizes.data().size()))
        fail("write");
      continue;
    }
    std::vector<uint8_t> compressed;
    if (s.compress) compressed = compress(s.data);
    const std::vector<uint8_t>& stored = s.compress ? compressed : s.data;
    file.u32(uint32_t(s.name.size()));
    file.raw(s.name.data(), s.name.size());
    file.u8(s.compress ? 1 : 0);
    file.u64(s.data.size());
    file.u64(stored.size());
    file.u32(section_crc(s.name, s.compress ? 1 : 0, s.data.size(), stored.size(), stored.data()));
    flush(file);
    put(stored.data(), stored.size());
  }
  file.raw(kEndMagic, sizeof kEndMagic);
  flush(file);
  if (::fsync(fd) != 0) fail("fsync");
  if (::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    throw CheckpointError(CheckpointError::Kind::Write, fmt::format("checkpoint '{}': close failed: {}", temp, why));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    throw CheckpointError(CheckpointError::Kind::Write,
                          fmt::format("checkpoint '{}': rename to '{}' failed: {}", temp, path, why));
  }
}

Checkpoint read_checkpoint(const std::string& dir) {
  const std::string path = state_path(dir);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw CheckpointError(CheckpointError::Kind::Missing,
                          fmt::format("'{}' holds no checkpoint (no {} in it)", dir, kStateFile));
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad())
    throw CheckpointError(CheckpointError::Kind::Missing, fmt::format("'{}': cannot be read", path));
  return parse_checkpoint(file, path);
}

Checkpoint parse_checkpoint(const std::vector<uint8_t>& file, const std::string& where) {
  FileReader r(file, where);
  if (file.size() < sizeof kMagic || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0)
    throw CheckpointError(CheckpointError::Kind::NotACheckpoint, fmt::format("{}: not an ipusim checkpoint", where));
  r.take(sizeof kMagic, "the magic");
  Checkpoint ckpt;
  ckpt.header.version = uint32_t(r.uint(4, "the format version"));
  if (ckpt.header.version != kFormatVersion)
    throw CheckpointError(CheckpointError::Kind::Version,
                          fmt::format("{}: format version {}, this ipusim reads version {}", where,
                                      ckpt.header.version, kFormatVersion));
  const uint64_t header_size = r.uint(8, "the header length");
  const uint32_t header_crc = uint32_t(r.uint(4, "the header checksum"));
  if (header_size > r.left())
    throw CheckpointError(CheckpointError::Kind::Truncated,
                          fmt::format("{}: truncated: the header needs {} byte(s), the file has {} left", where,
                                      header_size, r.left()));
  const uint8_t* header_bytes = r.take(size_t(header_size), "the header");
  if (crc_of(header_bytes, size_t(header_size)) != header_crc)
    throw CheckpointError(CheckpointError::Kind::Corrupt, fmt::format("{}: corrupt: the header's checksum differs", where));
  ByteReader h({header_bytes, size_t(header_size)}, "header");
  ckpt.header.build_id = h.str("build id");
  ckpt.header.config_hash = h.u64("config hash");
  const uint64_t elfs = h.count("ELF count", 8);
  for (uint64_t i = 0; i < elfs; ++i) ckpt.header.elf_hashes.push_back(h.u64("ELF hash"));
  ckpt.header.superstep = h.u64("superstep");
  h.expect_end();
  if (ckpt.header.build_id != build_id())
    throw CheckpointError(CheckpointError::Kind::Build,
                          fmt::format("{}: written by ipusim build '{}', this is build '{}' (a checkpoint is restored "
                                      "by the build that wrote it)",
                                      where, ckpt.header.build_id, build_id()));

  const uint64_t count = r.uint(8, "the section count");
  for (uint64_t i = 0; i < count; ++i) {
    const uint32_t name_size = uint32_t(r.uint(4, "a section's name length"));
    if (name_size == 0 || name_size > kMaxNameBytes)
      throw CheckpointError(CheckpointError::Kind::Corrupt,
                            fmt::format("{}: corrupt: section {} has a name of {} byte(s)", where, i, name_size));
    const uint8_t* name = r.take(name_size, "a section's name");
    Section s;
    s.name.assign(reinterpret_cast<const char*>(name), name_size);
    const uint8_t compression = uint8_t(r.uint(1, "a section's compression"));
    const uint64_t size = r.uint(8, "a section's size");
    const uint64_t stored_size = r.uint(8, "a section's stored size");
    const uint32_t crc = uint32_t(r.uint(4, "a section's checksum"));
    if (stored_size > r.left())
      throw CheckpointError(CheckpointError::Kind::Truncated,
                            fmt::format("{}: truncated: section '{}' needs {} byte(s), the file has {} left", where,
                                        s.name, stored_size, r.left()));
    const uint8_t* stored = r.take(size_t(stored_size), "a section");
    if (section_crc(s.name, compression, size, stored_size, stored) != crc)
      throw CheckpointError(CheckpointError::Kind::Corrupt,
                            fmt::format("{}: corrupt: section '{}''s checksum differs", where, s.name));
    if (compression == 0) {
      if (size != stored_size)
        throw CheckpointError(CheckpointError::Kind::Corrupt,
                              fmt::format("{}: corrupt: section '{}' stores {} byte(s) for {}", where, s.name,
                                          stored_size, size));
      s.data.assign(stored, stored + stored_size);
      s.compress = false;
    } else if (compression == 1) {
      const unsigned long long content = ZSTD_getFrameContentSize(stored, size_t(stored_size));
      if (content != size)
        throw CheckpointError(CheckpointError::Kind::Corrupt,
                              fmt::format("{}: corrupt: section '{}' decompresses to {} byte(s), not {}", where,
                                          s.name, content, size));
      s.data.resize(size_t(size));
      const size_t n = ZSTD_decompress(s.data.data(), s.data.size(), stored, size_t(stored_size));
      if (ZSTD_isError(n) || n != size)
        throw CheckpointError(CheckpointError::Kind::Corrupt,
                              fmt::format("{}: corrupt: section '{}' does not decompress ({})", where, s.name,
                                          ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short"));
    } else {
      throw CheckpointError(CheckpointError::Kind::Corrupt,
                            fmt::format("{}: corrupt: section '{}' has compression {}", where, s.name, compression));
    }
    ckpt.sections.push_back(std::move(s));
  }
  const uint8_t* end = r.take(sizeof kEndMagic, "the end marker");
  if (std::memcmp(end, kEndMagic, sizeof kEndMagic) != 0)
    throw CheckpointError(CheckpointError::Kind::Corrupt, fmt::format("{}: corrupt: no end marker after the sections", where));
  if (r.left() != 0)
    throw CheckpointError(CheckpointError::Kind::Corrupt,
                          fmt::format("{}: corrupt: {} byte(s) after the end marker", where, r.left()));
  return ckpt;
}

}  // namespace ipusim::checkpoint
