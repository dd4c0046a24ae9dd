// The ipusim build a checkpoint was written by: `git describe --always --dirty --tags` of
// the source tree when the build was configured ("unknown" outside a git tree). A
// checkpoint is restored only by the build that wrote it (the state it saves is the
// models' as that build has them).
#pragma once

namespace ipusim::checkpoint {

const char* build_id();

}  // namespace ipusim::checkpoint
