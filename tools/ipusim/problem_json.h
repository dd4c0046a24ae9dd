// A problem record as JSON (the `error` object of `ipusim run --json`): one key per field,
// null where the problem names nothing (function / source: where pc is, when located;
// registers: a fault's thread), and its text.
#pragma once

#include <nlohmann/json.hpp>

#include "common/problem.h"

namespace ipusim::cli {

nlohmann::ordered_json problem_json(const Problem& p);

}  // namespace ipusim::cli
