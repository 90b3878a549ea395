// tpnet link's answer and document: one all-reduce's price, a PCIe host
// link's rates, or the presets.

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "tpnet/usecase/link_report.hpp"
#include "tpnet/usecase/shared_fields.hpp"

namespace tpnet {
namespace {

Document allreduce_price_document(const AllReducePrice& p) {
  const NcclCost& c = p.nccl.chosen;
  Document doc;
  doc.title = fmt::format(
      "tpnet link: one {:.0f} B all-reduce over {} ranks on {} node(s) at {} on {}; NCCL's own "
      "model below",
      p.size.count(), p.ranks, p.nodes, p.link.name, describe(p.fabric));
  Record fabric_record = fabric_fields(p.link, p.fabric);
  fabric_record.push_back(
      number("time_s", "time of the all-reduce", p.estimate.time.value(), kMicroseconds, 1));
  fabric_record.push_back(
      number("latency_s", "of which fixed", p.estimate.latency.value(), kMicroseconds, 1));
  fabric_record.push_back(
      number("transfer_s", "of which bytes", p.estimate.transfer.value(), kMicroseconds, 1));
  doc.fields = {
      record("estimate", "on the fabric profile", std::move(fabric_record)),
      text("link", "link", p.link.name),
      number("link_bps", "rate (channels x per-channel bandwidth)", p.link.rate.bits_per_second(),
             kGbps, 2),
      integer("tp", "ranks", p.ranks),
      integer("nodes", "nodes", p.nodes),
      integer("nccl_channels", "NCCL channels", p.channels),
      number("allreduce_size_bytes", "all-reduce size (each rank's buffer)", p.size.count(),
             kBytesB, 0),
      text("nccl_algorithm", "NCCL algorithm", std::string(to_string(c.algorithm))),
      text("nccl_protocol", "NCCL protocol", std::string(to_string(c.protocol))),
      number("latency_s", "latency", c.latency.value(), kMicroseconds, 1),
      number("algorithm_bandwidth_bps", "algorithm bandwidth",
             c.algorithm_bandwidth.bits_per_second(), kGBps, 2),
      number("time_s", "time (latency + size / algorithm bandwidth)", c.time.value(), kMicroseconds,
             1),
      text("source", "constants", p.nccl_source),
      nccl_candidate_records("candidates", "every candidate", p.nccl),
  };
  return doc;
}

Document pcie_document(const PcieAnswer& pcie) {
  const PcieSpec& spec = pcie.spec;
  const PcieLinkRates& r = pcie.rates;
  Document doc;
  doc.title = fmt::format("tpnet link: PCIe Gen{} x{} host link", spec.generation, spec.lanes);
  doc.fields = {
      integer("pcie_gen", "PCIe generation", spec.generation),
      integer("lanes", "lanes", spec.lanes),
      number("transfer_rate_gtps", "transfer rate per lane", r.transfer_rate_gt_s, kGTps, 1),
      text("coding", "line coding", std::string(to_string(r.coding))),
      number("raw_bps", "raw (lanes x GT/s)", r.raw.bits_per_second(), kGbps, 1),
      number("after_coding_bps", "after line coding", r.after_coding.bits_per_second(), kGbps, 1),
      number("protocol_efficiency", "protocol efficiency", spec.protocol_efficiency, kCount, 3),
      number("usable_bps", "usable after packet and flow-control overhead",
             r.usable.bits_per_second(), kGbps, 1),
  };
  return doc;
}

Document presets_document(const LinkReport& report) {
  std::vector<Record> rows;
  rows.reserve(report.presets.size());
  for (const auto& p : report.presets) {
    rows.push_back({text("name", "preset", p.name),
                    number("link_bps", "rate", p.rate.bits_per_second(), kGbps, 0),
                    note_unless_wide(text("description", "what it is", p.description))});
  }
  Document doc;
  doc.title = "tpnet link: presets (any rate also works: 200Gb/s, 109.07G, 25GB/s)";
  doc.fields = {
      text("latency_model", "all-reduce latency model",
           fmt::format("{} (price one size with `nccl.size`; override with `latency.base`)",
                       report.latency_source)),
      records("presets", "presets", std::move(rows)),
  };
  return doc;
}

}  // namespace

std::vector<std::string> link_answer(const LinkReport& report) {
  if (report.allreduce) {
    const AllReducePrice& p = *report.allreduce;
    const NcclCost& c = p.nccl.chosen;
    return {
        fmt::format("One {:.0f} B all-reduce over {} ranks at {} takes {:.1f} us on {}, {:.1f} us "
                    "of it fixed latency.",
                    p.size.count(), p.ranks, p.link.name, p.estimate.time.value() * 1e6,
                    p.fabric.name, p.estimate.latency.value() * 1e6),
        fmt::format("NCCL's own model picks {} with {}: {:.1f} us.", to_string(c.algorithm),
                    to_string(c.protocol), c.time.value() * 1e6),
    };
  }
  if (report.pcie) {
    const PcieLinkRates& r = report.pcie->rates;
    return {fmt::format(
        "PCIe Gen{} x{} carries {:.1f} Gb/s usable: {:.1f} Gb/s after {} coding, x {:.3f} for "
        "packet and flow-control overhead.",
        report.pcie->spec.generation, report.pcie->spec.lanes, r.usable.bits_per_second() / 1e9,
        r.after_coding.bits_per_second() / 1e9, to_string(r.coding),
        report.pcie->spec.protocol_efficiency)};
  }
  std::string names;
  for (const auto& p : report.presets) {
    if (!names.empty()) names += ", ";
    names += fmt::format("{} ({:.0f} Gb/s)", p.name, p.rate.bits_per_second() / 1e9);
  }
  return {fmt::format("Link presets: {}; any rate also works.", names)};
}

Document link_document(const LinkRequest& /*request*/, const LinkReport& report) {
  Document doc = report.allreduce ? allreduce_price_document(*report.allreduce)
                 : report.pcie    ? pcie_document(*report.pcie)
                                  : presets_document(report);
  doc.answer = link_answer(report);
  return doc;
}

}  // namespace tpnet
