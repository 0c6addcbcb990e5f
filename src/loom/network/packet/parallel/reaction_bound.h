// When the next window's events could first make a driver touch the fabric (a QP delivered),
// as a function of where the window starts, so that it can be known before the start is: the
// ranks of a run over MPI agree on the start and on this bound in one reduction (rank_sync.h).
//
// at(start) = min(fixed, start + after_start): `fixed` covers what is in flight (its arrival
// time is known), `after_start` what is queued (it can leave at the window's start at the
// earliest), each plus the links left on its way. Several bounds combine term by term (min),
// and the combination's at(start) is the minimum of theirs for every start.
#pragma once

#include <algorithm>

#include "loom/core/time.h"

namespace loom::network::packet::parallel {

struct ReactionBound {
  Time fixed = Time::max();        // absolute; Time::max(): nothing in flight
  Time after_start = Time::max();  // a duration after the start; Time::max(): nothing queued

  // The earliest reaction instant for a window starting at `start` (>= start when both terms
  // are; Time::max() for none).
  Time at(Time start) const {
    const Time queued = after_start >= Time::max() - start ? Time::max() : start + after_start;
    return std::min(fixed, queued);
  }
  void combine(const ReactionBound& other) {
    fixed = std::min(fixed, other.fixed);
    after_start = std::min(after_start, other.after_start);
  }
};

}  // namespace loom::network::packet::parallel
