#include "loom/network/packet/fastforward/transient_memo.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "loom/core/error.h"
#include "loom/network/packet/fastforward/conflict_graph.h"

namespace loom::network::packet::fastforward {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'L', 'O', 'O', 'M', 'M', 'E', 'M', 'O'};

std::uint64_t checksum(const std::string& bytes, std::size_t length) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (std::size_t i = 0; i < length; ++i) {
    h ^= static_cast<unsigned char>(bytes[i]);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Little-endian fixed-width fields.
class Writer {
 public:
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void real(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  std::string out;
};

class Reader {
 public:
  Reader(const std::string& bytes, std::size_t end, const fs::path& file) : bytes_(bytes), end_(end), file_(file) {}
  std::uint64_t u64() { return take(8); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(take(4)); }
  double real() { return std::bit_cast<double>(u64()); }
  std::string text(std::size_t n) {
    need(n);
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::size_t left() const { return end_ - pos_; }
  // Throws unless n more bytes are there.
  void need(std::size_t n) const {
    if (n > end_ - pos_) throw UserError(fmt::format("fast-forward memo {}: corrupted (an entry runs past the end)", file_.string()));
  }

 private:
  std::uint64_t take(int n) {
    need(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{static_cast<unsigned char>(bytes_[pos_ + static_cast<std::size_t>(i)])} << (8 * i);
    pos_ += static_cast<std::size_t>(n);
    return v;
  }

  const std::string& bytes_;
  std::size_t end_;
  std::size_t pos_ = 0;
  const fs::path& file_;
};

void write_entry(Writer& w, const PatternDigest& digest, const TransientOutcome& o) {
  w.u64(digest[0]);
  w.u64(digest[1]);
  w.u64(static_cast<std::uint64_t>(o.duration.picoseconds()));
  w.u32(static_cast<std::uint32_t>(o.flows.size()));
  for (const FlowOutcome& f : o.flows) {
    w.u64(f.sent);
    w.u64(f.received);
    w.real(f.rate);
    for (const double v : {f.cc.rate, f.cc.target, f.cc.alpha, f.cc.reference_rate, f.cc.u, f.cc.rtt_diff}) w.real(v);
    w.u64(static_cast<std::uint64_t>(f.cc.prev_rtt_ps));
    w.u32(f.cc.stage);
    w.u32(f.cc.inc_stage);
    w.u32(f.cc.dcqcn_started ? 1 : 0);
  }
  w.u32(o.vouched ? 1 : 0);
}

constexpr std::size_t kFlowBytes = 8 + 8 + 8 + 6 * 8 + 8 + 3 * 4;

TransientOutcome read_entry(Reader& r, PatternDigest& digest) {
  digest = {r.u64(), r.u64()};
  TransientOutcome o;
  o.duration = Time::ps(static_cast<std::int64_t>(r.u64()));
  const std::uint32_t flows = r.u32();
  r.need(std::size_t{flows} * kFlowBytes);
  o.flows.resize(flows);
  for (FlowOutcome& f : o.flows) {
    f.sent = r.u64();
    f.received = r.u64();
    f.rate = r.real();
    for (double* v : {&f.cc.rate, &f.cc.target, &f.cc.alpha, &f.cc.reference_rate, &f.cc.u, &f.cc.rtt_diff}) *v = r.real();
    f.cc.prev_rtt_ps = static_cast<std::int64_t>(r.u64());
    f.cc.stage = r.u32();
    f.cc.inc_stage = r.u32();
    f.cc.dcqcn_started = r.u32() != 0;
  }
  o.vouched = r.u32() != 0;
  return o;
}

// Holds an exclusive flock on dir/.lock while alive.
class DirectoryLock {
 public:
  explicit DirectoryLock(const fs::path& dir) : fd_(::open((dir / ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) {
      throw UserError(fmt::format("fast-forward memo: cannot lock {}: {}", (dir / ".lock").string(), std::strerror(errno)));
    }
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock() { ::close(fd_); }  // closing releases the lock

 private:
  int fd_;
};

}  // namespace

bool outcomes_agree(const TransientOutcome& a, const TransientOutcome& b, double threshold) {
  if (a.flows.size() != b.flows.size()) return false;
  const Time end = std::max(a.duration, b.duration);
  // Bytes an outcome predicts by `end`: its transient's (sent and received averaged, as a
  // replay credits them), then its steady rate.
  const auto bytes = [&](const TransientOutcome& o, const FlowOutcome& f) {
    return static_cast<double>(f.sent + f.received) / 2 + f.rate * (end - o.duration).seconds() / 8;
  };
  for (std::size_t i = 0; i < a.flows.size(); ++i) {
    const FlowOutcome& fa = a.flows[i];
    const FlowOutcome& fb = b.flows[i];
    if (std::abs(fa.rate - fb.rate) > threshold * std::max(fa.rate, fb.rate)) return false;
    const double ba = bytes(a, fa);
    const double bb = bytes(b, fb);
    if (std::abs(ba - bb) > threshold * std::max(ba, bb)) return false;
  }
  return true;
}

TransientMemo::TransientMemo(std::string context, double threshold) : context_(std::move(context)), threshold_(threshold) {}

const TransientOutcome* TransientMemo::find(const PatternDigest& digest) const {
  const auto it = entries_.find(digest);
  return it == entries_.end() ? nullptr : &it->second;
}

TransientMemo::Stored TransientMemo::store(const PatternDigest& digest, TransientOutcome outcome) {
  outcome.vouched = false;
  const auto [it, added] = entries_.emplace(digest, outcome);
  if (added) return Stored::kNew;
  TransientOutcome& entry = it->second;
  if (entry.vouched) return Stored::kKnown;
  if (outcomes_agree(entry, outcome, threshold_)) {
    entry.vouched = true;
    return Stored::kVouched;
  }
  entry = std::move(outcome);
  return Stored::kReplaced;
}

bool TransientMemo::merge(const PatternDigest& digest, TransientOutcome outcome) {
  const auto [it, added] = entries_.emplace(digest, outcome);
  if (!added && outcome.vouched && !it->second.vouched) it->second = std::move(outcome);
  return added;
}

fs::path TransientMemo::file_in(const fs::path& dir) const {
  std::uint64_t h = kFormatVersion;
  for (const char c : context_) h = mix(h, static_cast<unsigned char>(c));
  return dir / fmt::format("transients-{:016x}.memo", h);
}

std::size_t TransientMemo::load(const fs::path& dir) {
  const fs::path file = file_in(dir);
  std::error_code ec;
  if (!fs::exists(file, ec)) return 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(fmt::format("fast-forward memo {}: cannot read it", file.string()));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto refuse = [&](const std::string& what) {
    return UserError(fmt::format("fast-forward memo {}: {}; it is not used (delete it, or give another --memo directory)",
                                 file.string(), what));
  };
  if (bytes.size() < sizeof kMagic + 4 + 8 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    throw refuse("not a Loom memo file (no LOOMMEMO header)");
  }
  Reader header(bytes, bytes.size(), file);
  header.text(sizeof kMagic);
  if (const std::uint32_t version = header.u32(); version != kFormatVersion) {
    throw refuse(fmt::format("format version {}, this Loom reads version {}", version, kFormatVersion));
  }
  const std::size_t body = bytes.size() - 8;
  Reader tail(bytes, bytes.size(), file);
  tail.text(body);
  if (tail.u64() != checksum(bytes, body)) throw refuse("corrupted or truncated (checksum mismatch)");
  Reader r(bytes, body, file);
  r.text(sizeof kMagic + 4);
  const std::uint64_t context_length = r.u64();
  if (context_length > r.left() || r.text(context_length) != context_) {
    throw refuse("made with other network.packet parameters (its context differs from this run's)");
  }
  const std::uint64_t count = r.u64();
  std::map<PatternDigest, TransientOutcome> read;
  for (std::uint64_t i = 0; i < count; ++i) {
    PatternDigest digest;
    TransientOutcome o = read_entry(r, digest);
    read.emplace(digest, std::move(o));
  }
  if (r.left() != 0) throw refuse("corrupted (bytes after the last entry)");
  std::size_t added = 0;
  for (auto& [digest, o] : read) added += merge(digest, std::move(o)) ? 1 : 0;
  return added;
}

void TransientMemo::save(const fs::path& dir) const {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UserError(fmt::format("fast-forward memo: cannot create {}: {}", dir.string(), ec.message()));
  const DirectoryLock lock(dir);
  TransientMemo merged(context_, threshold_);
  merged.load(dir);  // what other runs stored meanwhile
  for (const auto& [digest, o] : entries_) merged.merge(digest, o);
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  w.u32(kFormatVersion);
  w.u64(context_.size());
  w.out += context_;
  w.u64(merged.entries_.size());
  for (const auto& [digest, o] : merged.entries_) write_entry(w, digest, o);
  w.u64(checksum(w.out, w.out.size()));
  const fs::path file = file_in(dir);
  const fs::path temporary = fs::path(file).concat(fmt::format(".tmp{}", ::getpid()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(w.out.data(), static_cast<std::streamsize>(w.out.size()));
    if (!out.flush()) throw UserError(fmt::format("fast-forward memo: cannot write {}", temporary.string()));
  }
  fs::rename(temporary, file, ec);
  if (ec) throw UserError(fmt::format("fast-forward memo: cannot replace {}: {}", file.string(), ec.message()));
}

}  // namespace loom::network::packet::fastforward
