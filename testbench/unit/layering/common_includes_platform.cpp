// Probe (testbench/unit/layering): ipusim_common is below every model, so a header of
// the platform is not on its include path.
#include "platform/platform.h"
