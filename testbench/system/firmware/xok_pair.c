/* The valid pair of the xerr programs on its own (tile 2 sends tx to tile 3): the
 * positive control of the exchange error tests. */
#include "xerr_common.h"

static void xerr_role(uint32_t tile) { (void)tile; }
