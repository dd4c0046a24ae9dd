/* pod_stream: every tile of every IPU computes `pod_job.work` rounds of a hash, then syncs
 * zone 2 (across every board), then halts; tile 0 of IPU `pod_job.reader` first reads
 * `pod_job.bytes` bytes (a multiple of 4, at most 256) from host stream 2 and mixes them
 * into its hash. So on a pod the reader's board waits on the host at once while the
 * other boards have their whole compute still to do: the device-API system tests show
 * the wait is reported there, not when the others starve. Each tile keeps its hash in
 * `pod_hash`. */
#include <stdint.h>

#include "ipu/xipu.h"

struct pod_job {
  uint32_t reader, bytes, work;
};
volatile struct pod_job pod_job = {8u, 64u, 20000u};
volatile uint32_t pod_hash;
static uint32_t buf[64];

int main(void) {
  const int reader = ipu_id() == pod_job.reader && ipu_tile_id() == 0;
  ipu_sync(IPU_SYNC_IPU);
  if (reader) ipu_stream_read(2, buf, pod_job.bytes);
  ipu_xwait();
  uint32_t h = 2166136261u ^ ipu_global_tile_id();
  for (uint32_t i = 0; i < pod_job.work; ++i) h = (h ^ buf[i % 64u]) * 16777619u;
  ipu_sync(IPU_SYNC_GROUP);
  pod_hash = h;
  return 0;
}
