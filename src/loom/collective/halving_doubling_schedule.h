// Recursive halving-doubling (Rabenseifner), as a StepSchedule, for any n.
//
// With p = the largest power of two <= n, r = n - p and L = log2 p: members below 2r pair up
// (2j, 2j+1); the even one folds into the odd one, which takes part as "new rank" j; members
// m >= 2r take part as new rank m - r. New rank j owns the contiguous blocks
// [start(j), start(j+1)) with start(j) = 2j for j < r, j + r otherwise (start(p) = n): its own
// block and, when it has folded a partner, the partner's.
//   reduce-scatter: fold (the even member sends all blocks, kReduce); L halving steps: at step
//     k new rank j exchanges with j ^ (p >> (k+1)) the half of its current window it does not
//     keep (kReduce), keeping the half holding j; then the odd member sends block 2j back.
//   all-gather: fold (the even member sends its block, kCopy); L doubling steps: at step k new
//     rank j exchanges its window with j ^ 2^k (kCopy); then the whole buffer goes back.
//   all-reduce (and barrier with 0-byte blocks): fold of the whole buffer, halving, doubling,
//     and the whole buffer back.
// Each exchange waits for the previous exchange's reply; each step's reply has its own receive
// slot (0 fold, 1..L halving, L+1..2L doubling, 2L+1 the result sent back), so early arrivals
// from later partners are never confused. Needs 2L+2 <= 32 slots: n < 65536.
//
// For n a power of two all-reduce takes 2L exchanges moving 2(n-1)/n of the buffer per member;
// otherwise two more whole-buffer transfers.
#pragma once

#include <vector>

#include "loom/collective/step_execution.h"

namespace loom::collective {

class HalvingDoublingSchedule final : public StepSchedule {
 public:
  // Requires validate(spec) and supports(kHalvingDoubling, spec.op). Throws UserError for
  // members >= 65536.
  explicit HalvingDoublingSchedule(const CollectiveSpec& spec);

  std::uint32_t threads() const override { return 1; }
  std::uint32_t slots() const override { return 2 * levels_ + 2; }
  std::uint32_t length(std::uint32_t member, std::uint32_t channel, std::uint32_t thread) const override;
  Step step(std::uint32_t member, std::uint32_t channel, std::uint32_t thread, std::uint32_t index) const override;
  std::uint32_t receives(std::uint32_t member, std::uint32_t channel) const override;

 private:
  // The participant's sends in order (fold excluded): exchanges, whose reply comes back on the
  // same slot, then possibly the result sent back to the folded partner.
  std::vector<StepSend> exchanges(std::uint32_t new_rank) const;
  bool folded(std::uint32_t member) const { return member < 2 * extra_ && member % 2 == 0; }
  bool has_partner(std::uint32_t member) const { return member < 2 * extra_ && member % 2 == 1; }
  std::uint32_t new_rank(std::uint32_t member) const { return member < 2 * extra_ ? member / 2 : member - extra_; }
  std::uint32_t real(std::uint32_t new_rank) const { return new_rank < extra_ ? 2 * new_rank + 1 : new_rank + extra_; }
  std::uint32_t start(std::uint32_t new_rank) const;
  StepSend window(std::uint32_t partner, std::uint32_t first, std::uint32_t last, std::uint32_t slot,
                  DataAction action) const;

  CollectiveOp op_;
  std::uint32_t n_;
  std::uint32_t power_;   // p
  std::uint32_t extra_;   // r
  std::uint32_t levels_;  // L
};

}  // namespace loom::collective
