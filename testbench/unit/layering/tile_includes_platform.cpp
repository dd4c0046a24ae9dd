// Probe (testbench/unit/layering): the tile module is below the platform.
#include "platform/platform.h"
