// Control of the probes (testbench/unit/layering): down the graph, the tile module
// includes the ISS, its sockets' payloads and the common headers, as its own sources do.
#include "common/config.h"
#include "exchange/exchange_payload.h"
#include "iss/tile_core.h"
#include "sync/sync_payload.h"
#include "tile/tile.h"
