#include "platform/departed_rows.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/byte_io.h"
#include "platform/checkpoint_codec.h"

namespace ipusim::platform {

DepartedRows::DepartedRows() : file_(std::tmpfile()) {
  if (!file_)
    throw std::runtime_error(fmt::format("cannot make a temporary file for the checkpoints' superstep rows: {}",
                                         std::strerror(errno)));
}

DepartedRows::~DepartedRows() {
  if (file_) std::fclose(file_);
}

void DepartedRows::add(const SuperstepRow& row) {
  checkpoint::ByteWriter w;
  codec::put(w, row);
  if (std::fwrite(w.data().data(), 1, w.data().size(), file_) != w.data().size()) failed_ = true;
  ++count_;
}

std::vector<uint8_t> DepartedRows::section() const {
  if (failed_ || std::fflush(file_) != 0)
    throw std::runtime_error("writing the superstep rows' temporary file failed (the file system is full?)");
  const long size = std::ftell(file_);
  if (size < 0) throw std::runtime_error(fmt::format("the superstep rows' temporary file: {}", std::strerror(errno)));
  checkpoint::ByteWriter head;
  head.u64(count_);
  std::vector<uint8_t> out = std::move(head.data());
  const size_t at = out.size();
  out.resize(at + size_t(size));
  std::rewind(file_);
  const size_t got = std::fread(out.data() + at, 1, size_t(size), file_);
  std::fseek(file_, 0, SEEK_END);  // appends go on after it
  if (got != size_t(size)) throw std::runtime_error("reading back the superstep rows' temporary file failed");
  return out;
}

uint64_t DepartedRows::for_each(std::span<const uint8_t> section, uint32_t ipus,
                                const std::function<void(const SuperstepRow&)>& each) {
  checkpoint::ByteReader r(section, "rows");
  const uint64_t n = r.count("rows", 16);
  for (uint64_t i = 0; i < n; ++i) {
    const SuperstepRow row = codec::get_row(r, ipus);
    if (row.index != i) r.fail(fmt::format("row {} where row {} belongs", row.index, i));
    each(row);
  }
  r.expect_end();
  return n;
}

}  // namespace ipusim::platform
