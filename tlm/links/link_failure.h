// Thrown when a link cannot deliver at all: the injected faults leave no transmission
// through (e.g. a burst longer than the retrain limit allows). A real link would be
// declared down; the model reports it instead of running for ever.
#pragma once

#include <stdexcept>

namespace ipusim::links {

class LinkFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ipusim::links
