#include "loom/network/packet/monitor_csv.h"

#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "loom/core/error.h"

namespace loom::network::packet {

namespace {

namespace fs = std::filesystem;

class CsvFile {
 public:
  CsvFile(const fs::path& path, std::string_view header) : path_(path), out_(path) {
    if (!out_) throw UserError(fmt::format("cannot write '{}': expected a writable output folder", path.string()));
    out_ << header << '\n';
  }
  // The stream for the next row.
  std::ofstream& row() {
    ++rows_;
    return out_;
  }
  OutputFile close(std::uint64_t dropped) {
    if (dropped != 0) out_ << "# " << dropped << " more rows not kept\n";
    out_.close();
    if (!out_) throw UserError(fmt::format("cannot write '{}': expected space on the device", path_.string()));
    return {path_, rows_, dropped};
  }

 private:
  fs::path path_;
  std::uint64_t rows_ = 0;
  std::ofstream out_;
};

double us(Time t) { return static_cast<double>(t.picoseconds()) * 1e-6; }

}  // namespace

std::vector<OutputFile> write_monitor_csv(const fs::path& dir, const FabricMonitor& monitor) {
  const MonitorOptions& o = monitor.options();
  const Fabric& fabric = monitor.fabric();
  const topology::Topology& topo = fabric.topology();
  const auto node = [&](topology::NodeId n) -> const std::string& { return topo.node(n).name; };
  const auto link_ends = [&](topology::LinkId l) {
    return fmt::format("{},{},{}", l, node(topo.link(l).src), node(topo.link(l).dst));
  };
  std::error_code ignored;
  fs::create_directories(dir, ignored);
  std::vector<OutputFile> written;
  const DroppedRows& dropped = monitor.dropped_rows();
  if (o.queues) {
    CsvFile f(dir / "packet_queues.csv", "time_us,link,src,dst,bytes");
    for (const QueueSample& s : monitor.queues()) {
      f.row() << fmt::format("{:.3f},{},{}\n", us(s.time), link_ends(s.link), s.bytes);
    }
    written.push_back(f.close(dropped.queues));
  }
  if (o.throughput) {
    CsvFile f(dir / "packet_throughput.csv", "time_us,link,src,dst,gbps,utilisation");
    for (const ThroughputSample& s : monitor.throughput()) {
      const double capacity = static_cast<double>(topo.link(s.link).bandwidth.bps());
      f.row() << fmt::format("{:.3f},{},{:.6g},{:.6g}\n", us(s.time), link_ends(s.link), s.bits_per_second * 1e-9,
                             s.bits_per_second / capacity);
    }
    written.push_back(f.close(dropped.throughput));
  }
  if (o.qp_rates) {
    CsvFile f(dir / "packet_qp_rates.csv", "time_us,qp,tag,src,dst,gbps");
    for (const QpRateSample& s : monitor.qp_rates()) {
      f.row() << fmt::format("{:.3f},{},{},{},{},{:.6g}\n", us(s.time), s.qp, s.tag, node(s.src), node(s.dst),
                             s.bits_per_second * 1e-9);
    }
    written.push_back(f.close(dropped.qp_rates));
  }
  if (o.cnps) {
    CsvFile f(dir / "packet_cnps.csv", "time_us,qp,tag,src,dst,cnps");
    for (const QpCnpSample& s : monitor.cnps()) {
      f.row() << fmt::format("{:.3f},{},{},{},{},{}\n", us(s.time), s.qp, s.tag, node(s.src), node(s.dst), s.cnps);
    }
    written.push_back(f.close(dropped.cnps));
  }
  if (o.pfc) {
    CsvFile f(dir / "packet_pfc.csv", "time_us,link,src,dst,class,event");
    for (const PfcEvent& e : fabric.pfc_events()) {
      f.row() << fmt::format("{:.3f},{},{},{}\n", us(e.time), link_ends(e.link), e.priority, e.pause ? "pause" : "resume");
    }
    written.push_back(f.close(fabric.pfc_events_dropped()));
  }
  if (o.drops) {
    CsvFile f(dir / "packet_drops.csv", "time_us,link,src,dst,drops");
    for (const DropSample& s : monitor.drops()) {
      f.row() << fmt::format("{:.3f},{},{}\n", us(s.time), link_ends(s.link), s.drops);
    }
    written.push_back(f.close(dropped.drops));
  }
  return written;
}

void enable_monitors(std::string_view names, MonitorOptions& options) {
  const std::pair<std::string_view, bool MonitorOptions::*> kinds[] = {
      {"queues", &MonitorOptions::queues}, {"throughput", &MonitorOptions::throughput},
      {"qp_rates", &MonitorOptions::qp_rates}, {"cnps", &MonitorOptions::cnps},
      {"pfc", &MonitorOptions::pfc}, {"drops", &MonitorOptions::drops}};
  while (!names.empty()) {
    const std::size_t comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    names = comma == std::string_view::npos ? std::string_view{} : names.substr(comma + 1);
    bool known = false;
    for (const auto& [kind, flag] : kinds) {
      if (name == kind || name == "all") {
        options.*flag = true;
        known = true;
      }
    }
    if (!known) {
      throw UserError(fmt::format("monitor '{}': expected queues, throughput, qp_rates, cnps, pfc, drops "
                                  "or all, separated by commas", name));
    }
  }
}

}  // namespace loom::network::packet
