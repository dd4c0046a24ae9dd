// Probe (testbench/unit/layering): the ISS is plain C++ below the tile module, which it
// must not see.
#include "tile/tile.h"
