// Force-included (-include) into verilated_fst_c.cpp only, which compiles gtkwave's
// fstapi.c: its writes and maps go through fst_io_guard.h's checked versions. The system
// headers come first so that later includes of them (guarded) leave the names renamed.
#pragma once

#include <sys/mman.h>
#include <stdio.h>

#include <cstdio>

#include "fst_io_guard.h"

namespace std {
using ::ipusim_fst_fclose;
using ::ipusim_fst_fflush;
using ::ipusim_fst_fputc;
using ::ipusim_fst_fwrite;
}  // namespace std

#define fwrite ipusim_fst_fwrite
#define fputc ipusim_fst_fputc
#define fflush ipusim_fst_fflush
#define fclose ipusim_fst_fclose
#define mmap ipusim_fst_mmap
