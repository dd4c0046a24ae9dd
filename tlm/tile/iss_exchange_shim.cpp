// TEMPORARY (remove when the ISS branch `iss2` is merged): weak stand-ins for the two
// TileCore exchange calls that tile_core.h declares and the ISS does not define yet. The
// ISS's own (strong) definitions replace these at link time. Until then the ISS never
// stops with StopReason::Exchange, so these are unreachable.
#include <stdexcept>

#include "iss/tile_core.h"

namespace ipusim::iss {

__attribute__((weak)) const std::vector<ExchangePost>& TileCore::exchange_posts() const {
  static const std::vector<ExchangePost> none;
  return none;
}

__attribute__((weak)) void TileCore::release_exchange(uint64_t) {
  throw std::logic_error("TileCore::release_exchange: this ISS has no exchange support");
}

}  // namespace ipusim::iss
