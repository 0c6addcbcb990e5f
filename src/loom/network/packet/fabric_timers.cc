// A QP's timers: congestion control's rate decrease and increase, and the retransmission
// timeout (no progress for retransmit_timeout: resend from the first unacknowledged byte).
#include "loom/network/packet/fabric.h"

namespace loom::network::packet {

void Fabric::schedule_increase(QpId q, Time when) {
  qps_[q].increase = at_sender(q).schedule_at<&Fabric::on_increase>(when, this, qp_ref(q), order_key(EventKind::kIncrease, q, when));
}

void Fabric::schedule_decrease(QpId q, Time when) {
  qps_[q].decrease = at_sender(q).schedule_at<&Fabric::on_decrease>(when, this, qp_ref(q), order_key(EventKind::kDecrease, q, when));
}

bool Fabric::qp_ref_live(std::uint64_t ref) const {
  const auto q = static_cast<QpId>(ref & 0xffffffffu);
  return q < qps_.size() && qps_[q].active && qps_[q].generation == (ref >> 32);
}

void Fabric::on_decrease(std::uint64_t ref) {
  if (!qp_ref_live(ref)) return;
  const auto q = static_cast<QpId>(ref & 0xffffffffu);
  Qp& qp = qps_[q];
  Simulator& sender = at_sender(q);
  const Time next = cc_.on_decrease(qp.cc, sender.now());
  sender.cancel(qp.increase);
  schedule_increase(q, next);
}

void Fabric::on_increase(std::uint64_t ref) {
  if (!qp_ref_live(ref)) return;
  const auto q = static_cast<QpId>(ref & 0xffffffffu);
  Qp& qp = qps_[q];
  schedule_increase(q, cc_.on_increase(qp.cc, at_sender(q).now()));
  try_transmit(paths_.forward(q)[0]);
}

void Fabric::on_timeout(std::uint64_t ref) {
  if (!qp_ref_live(ref)) return;
  const auto q = static_cast<QpId>(ref & 0xffffffffu);
  Qp& qp = qps_[q];
  Simulator& sender = at_sender(q);
  const Time now = sender.now();
  const Time rto = params_.nic.retransmit_timeout;
  if (now - qp.last_progress >= rto) {
    qp.last_progress = now;
    if (qp.snd_nxt > qp.snd_una) {
      ++sender_lane(q).counters.timeouts;
      if (params_.nic.selective_repeat) {
        qp.repaired_seq = qp.snd_una;  // a lost repair or lost last packets: resend the first
        qp.repair_pending = true;
      } else {
        qp.snd_nxt = qp.snd_una;
      }
      try_transmit(paths_.forward(q)[0]);
    }
  }
  const Time next = qp.last_progress + rto;
  qp.timeout = sender.schedule_at<&Fabric::on_timeout>(next, this, ref, order_key(EventKind::kTimeout, q, next));
}

}  // namespace loom::network::packet
