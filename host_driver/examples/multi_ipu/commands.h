// The multi-IPU demo's sub-commands (one file each); each returns the process's exit
// status (demo_device.h) and throws BadInput / ipudrv::Error for main to report.
#pragma once

#include "demo_device.h"

namespace demo {

int run_allreduce(const Options& o);  // ipu_allreduce.elf: every IPU holds the sum
int run_pipeline(const Options& o);   // pipeline.elf: host inputs in, layer 2's outputs out
int run_link_bw(const Options& o);    // mb_link_bw.elf: bandwidth and latency tables

}  // namespace demo
