// The identity of a checkpoint's inputs: FNV-1a 64 of the config text and of each ELF's
// bytes. It tells a changed input from the one the checkpoint was taken with (a named
// refusal); it is not a defence against forgery.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ipusim::checkpoint {

uint64_t content_hash(std::span<const uint8_t> bytes);
uint64_t content_hash(std::string_view text);

}  // namespace ipusim::checkpoint
