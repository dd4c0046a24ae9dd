// Verilator's runtime headers for a file that also includes SystemC: include this instead
// of <verilated.h> (and before any V<model>.h) in every wrapper and transactor.
//
// Seeing SystemC (SYSTEMC_VERSION), verilated_funcs.h calls sc_time_stamp() unqualified,
// as if <systemc.h> had put SystemC's names into the global namespace; the platform
// includes <systemc>, which keeps them in sc_core. This one name is all it needs. (The
// models are verilated --cc and keep their own time: the transactors pass it explicitly.)
#pragma once

#include <systemc>

using sc_core::sc_time_stamp;

#include <verilated.h>
