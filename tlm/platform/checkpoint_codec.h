// The state values a checkpoint holds, as section bytes and back (docs/checkpoints.md):
// a tile at a sync (its core's threads, CSRs, AMP state and the tile's figures) and the
// rows of the superstep accounts. Every read is bounds-checked (checkpoint/byte_io.h):
// a damaged section is refused naming the section and the field.
#pragma once

#include "checkpoint/byte_io.h"
#include "exchange/exchange_group.h"
#include "platform/platform_supersteps.h"
#include "streaming/gateway.h"
#include "tile/tile.h"

namespace ipusim::platform::codec {

void put(checkpoint::ByteWriter& w, const tile::TileSnapshot& s);
tile::TileSnapshot get_tile(checkpoint::ByteReader& r);

void put(checkpoint::ByteWriter& w, const SuperstepRow& row);
SuperstepRow get_row(checkpoint::ByteReader& r, uint32_t ipus);

void put(checkpoint::ByteWriter& w, const exchange::ExchangeGroup::Saved& s);
exchange::ExchangeGroup::Saved get_links(checkpoint::ByteReader& r);

void put(checkpoint::ByteWriter& w, const streaming::Gateway::Saved& s);
streaming::Gateway::Saved get_gateway(checkpoint::ByteReader& r);

}  // namespace ipusim::platform::codec
