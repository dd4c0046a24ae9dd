// Probe (testbench/unit/layering): the platform is below the host interface.
#include "host_if/host_interface.h"
