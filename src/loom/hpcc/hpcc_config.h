// HPCC/ns-3 experiment configuration (`scratch/third CONFIG`): the `KEY value...` lines of its
// config.txt, mapped onto PacketParams so that the same experiment runs in Loom.
//
// Mapping (ns-3 key -> Loom):
//   CC_MODE 1/3/7/8 -> cc.kind dcqcn/hpcc/timely/dctcp (10, HPCC-PINT, is rejected)
//   PACKET_PAYLOAD_SIZE -> nic.mtu; wire sizes as ns-3's RdmaHw builds packets: data = payload
//     + 36 (PPP 2, IPv4 20, UDP 8, sequence/priority 6) + INT (HPCC 42, TIMELY 8); ACK/NACK 48
//     bytes (76 under HPCC); the standalone FCT still uses ns-3's 48 bytes per packet
//   ENABLE_QCN -> sw.ecn; KMIN_MAP/KMAX_MAP (KB = 1000 bytes)/PMAX_MAP -> sw.ecn_table
//   BUFFER_SIZE (MB = 2^20 bytes per switch) -> sw.buffer_bytes; USE_DYNAMIC_PFC_THRESHOLD 1
//   ALPHA_RESUME_INTERVAL, RATE_DECREASE_INTERVAL, RP_TIMER (us), EWMA_GAIN,
//   FAST_RECOVERY_TIMES, CLAMP_TARGET_RATE, RATE_AI, RATE_HAI, MIN_RATE -> cc.dcqcn / cc;
//   RATE_AI also HPCC's W_AI and TIMELY's increase, RATE_HAI TIMELY's hyper increase;
//   DCTCP_RATE_AI -> cc.dctcp.rate_ai; EWMA_GAIN also DCTCP's g
//   U_TARGET, MI_THRESH, FAST_REACT -> cc.hpcc; HAS_WIN, VAR_WIN -> nic.window, variable_window
//   INT_MULTI (default 1) -> cc.hpcc.int_byte_unit = 128 x, int_queue_unit = 80 x; INT time in ns
//   GLOBAL_T -> every QP uses the largest base RTT (and BDP) of any host pair
//   L2_ACK_INTERVAL -> nic.ack_interval; ACK_HIGH_PRIO -> nic.ack_high_priority
//   ERROR_RATE_PER_LINK -> link_error_rate (every link, besides the topology file's); SIMULATOR_STOP_TIME (s)
//   TOPOLOGY_FILE, FLOW_FILE, FCT_OUTPUT_FILE, PFC_OUTPUT_FILE -> file names
// Accepted without effect (tracing and monitors of ns-3 and SimAI, or encodings Loom does not
// need): TRACE_FILE, TRACE_OUTPUT_FILE, ENABLE_TRACE, QLEN_MON_FILE, QLEN_MON_START,
// QLEN_MON_END, BW_MON_FILE, RATE_MON_FILE, CNP_MON_FILE, MON_START, MON_END, QP_MON_INTERVAL,
// QLEN_MON_INTERVAL, BW_MON_INTERVAL, PINT_LOG_BASE, PINT_PROB, L2_CHUNK_SIZE, L2_BACK_TO_ZERO
// (Loom goes back to the NACKed byte), RATE_BOUND 1.
//
// As a profile (ConfigUse::kProfile: an experiment's network.packet.profile, e.g. SimAI.conf)
// only the packet parameters apply: TOPOLOGY_FILE, FLOW_FILE, FCT_OUTPUT_FILE,
// PFC_OUTPUT_FILE, SIMULATOR_STOP_TIME and GLOBAL_T are not required and are listed among the
// keys without effect (the experiment's topology, workload and outputs stand instead). Rejected with a message: MULTI_RATE 1, SAMPLE_FEEDBACK 1,
// RATE_BOUND 0, USE_DYNAMIC_PFC_THRESHOLD 0, a LINK_DOWN other than "0 0 0", unknown keys.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "loom/network/packet/packet_params.h"

namespace loom::hpcc {

struct HpccConfig {
  std::string topology_file;
  std::string flow_file;
  std::string fct_output_file = "fct.txt";
  std::string pfc_output_file = "pfc.txt";
  Time stop_time = Time::s(4);
  int cc_mode = 1;
  bool global_t = true;
  double error_rate = 0;  // per link
  network::packet::PacketParams params;
  std::vector<std::string> ignored_keys;  // accepted keys without effect, in file order
};

// What a config is read for: a whole ns-3 run (`loom hpcc`), or the packet parameters of an
// experiment, where its files, stop time and GLOBAL_T do not apply.
enum class ConfigUse : std::uint8_t { kRun, kProfile };

// Parses config text; `name` labels errors ("config.txt:12: ..."). Throws UserError for a
// malformed line, an unknown or unsupported key, or a bad value.
HpccConfig parse_hpcc_config(std::string_view text, const std::string& name, ConfigUse use = ConfigUse::kRun);
// Reads and parses a config file (UserError if it cannot be read).
HpccConfig read_hpcc_config(const std::string& path, ConfigUse use = ConfigUse::kRun);

// SimAI's network settings as its shipped SimAI.conf gives them (astra-sim-alibabacloud
// inputs/config), without its file and monitor keys: the parameters of
// network.packet.profile: simai when no file is named.
std::string_view simai_default_config();

// The per-packet header bytes of HPCC's ns-3 without INT (CustomHeader minus IntHeader).
inline constexpr Bytes kHpccHeaderBytes = 48;
// INT bytes per packet under HPCC (5 hops of 8 bytes and a 2-byte hop count).
inline constexpr Bytes kHpccIntBytes = 42;

}  // namespace loom::hpcc
