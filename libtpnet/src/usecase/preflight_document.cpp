#include "tpnet/usecase/preflight_document.hpp"

#include <fmt/format.h>

namespace tpnet {
namespace {

std::vector<double> maybe(const std::optional<BitRate>& rate) {
  return rate ? std::vector<double>{rate->bits_per_second()} : std::vector<double>{};
}

Record check_record(const PreflightCheck& c) {
  std::vector<double> measured;
  if (c.degraded && c.healthy) {
    measured = {c.degraded->bits_per_second(), c.healthy->bits_per_second()};
  }
  return {
      text("check", "check", c.name),
      text("status", "status", std::string(to_string(c.status))),
      text("finding", "finding", c.finding),
      text("cost", "cost (measured)", c.cost),
      numbers("measured_bps", "with / without the fault", measured, kGbps, 2),
      numbers("estimated_bps", "left here (derived)", maybe(c.estimated), kGbps, 1),
      text("source", "source", c.source),
      text("fix", "fix", c.fix),
  };
}

std::vector<double> maybe_int(const std::optional<int>& v) {
  return v ? std::vector<double>{static_cast<double>(*v)} : std::vector<double>{};
}

std::string tally(const std::vector<PreflightCheck>& checks) {
  int held = 0;
  int failed = 0;
  int warned = 0;
  int unjudged = 0;
  for (const auto& c : checks) {
    switch (c.status) {
      case CheckStatus::holds:
        ++held;
        break;
      case CheckStatus::fails:
        ++failed;
        break;
      case CheckStatus::warns:
        ++warned;
        break;
      case CheckStatus::not_judged:
        ++unjudged;
        break;
    }
  }
  return fmt::format("{} hold, {} fail, {} warn, {} not judged", held, failed, warned, unjudged);
}

}  // namespace

Document preflight_document(const PreflightReport& r, const std::string& source) {
  Document doc;
  doc.csv = CsvLayout::sections;
  doc.warnings = r.warnings;
  doc.title = fmt::format("tpnet preflight: {} against {} ({})", r.host.empty() ? source : r.host,
                          r.node, tally(r.checks));
  std::vector<Record> checks;
  for (const auto& c : r.checks) checks.push_back(check_record(c));
  std::vector<Record> devices;
  for (const auto& d : r.devices) {
    devices.push_back({
        text("device", "device", d.device),
        integer("port", "port", d.port),
        text("pci_address", "PCI", d.pci_address),
        numbers("qsfp_port", "QSFP port",
                maybe_int(d.qsfp_port >= 0 ? std::optional<int>(d.qsfp_port) : std::nullopt),
                kCount, 0),
        text("netdev", "interface", d.netdev),
        flag("active", "up", d.active),
        numbers("rate_bps", "rate", maybe(d.rate), kGbps, 0),
        numbers("interface_mtu_bytes", "MTU", maybe_int(d.interface_mtu), kBytesB, 0),
        numbers("roce_mtu_bytes", "RoCE MTU", maybe_int(d.roce_mtu), kBytesB, 0),
        flag("roce_mtu_derived", "RoCE MTU from the MTU", d.roce_mtu_derived),
        numbers("roce_v2_gid_index", "RoCE v2 GID", maybe_int(d.roce_v2_index), kCount, 0),
        flag("nccl_uses", "NCCL uses", d.nccl_uses),
    });
  }
  doc.fields = {
      text("host", "host", r.host),
      text("node", "node", r.node),
      text("source", "read from", source),
      flag("passed", "passed (no check fails)", !r.gate_failed()),
      records("checks", "checks", std::move(checks)),
      records("devices", "RDMA devices", std::move(devices)),
  };
  return doc;
}

Document cluster_preflight_document(const ClusterPreflightReport& r) {
  Document doc;
  doc.csv = CsvLayout::sections;
  doc.warnings = r.warnings;
  std::vector<Record> checks;
  for (const auto& c : r.checks) checks.push_back(check_record(c));
  std::vector<Record> nodes;
  std::vector<Record> node_checks;
  for (size_t rank = 0; rank < r.nodes.size(); ++rank) {
    const PreflightReport& n = r.nodes[rank];
    std::vector<std::string> failed;
    for (const auto& c : n.checks) {
      if (c.status == CheckStatus::fails) failed.push_back(c.name);
      Record row{integer("rank", "rank", static_cast<double>(rank)), text("host", "host", n.host)};
      for (auto& field : check_record(c)) row.push_back(std::move(field));
      node_checks.push_back(std::move(row));
    }
    nodes.push_back({
        integer("rank", "rank", static_cast<double>(rank)),
        text("host", "host", n.host),
        flag("passed", "passed", !n.gate_failed()),
        texts("failed_checks", "failed checks", failed),
    });
  }
  doc.title = fmt::format("tpnet-calibrate preflight: {} ranks against {} (cluster checks: {})",
                          r.nodes.size(), r.nodes.empty() ? std::string() : r.nodes.front().node,
                          tally(r.checks));
  doc.fields = {
      integer("ranks", "ranks", static_cast<double>(r.nodes.size())),
      text("node", "node", r.nodes.empty() ? std::string() : r.nodes.front().node),
      flag("passed", "passed (no check fails on any node)", !r.gate_failed()),
      records("checks", "cluster checks", std::move(checks)),
      records("nodes", "nodes", std::move(nodes)),
      records("node_checks", "each node's checks", std::move(node_checks)),
  };
  return doc;
}

}  // namespace tpnet
