// Probe (testbench/unit/layering): the links are plain C++ below the exchange.
#include "exchange/exchange_plan.h"
