// tpnet link: link presets, what a PCIe host link can carry, and what NCCL's
// tuner makes of one all-reduce over a link.

#include <fmt/format.h>

#include <memory>

#include "common.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/link_presets.hpp"

namespace tpnet::cli {
namespace {

struct LinkOptions {
  int pcie_gen = 0;
  int lanes = 0;
  std::string coding;
  double efficiency = PcieSpec{}.protocol_efficiency;
  std::string allreduce_size;
  std::string link = "200G";
  int tp = 8;
  int nodes = 0;
  std::string nccl_algo = "auto";
  std::string nccl_proto = "auto";
  int nccl_channels = NcclSetup{}.channels;
  std::string fabric = "auto";
  std::string node = std::string(kDefaultNodeName);
  std::string format = "table";
};

/// What NCCL's tuner makes of one all-reduce over a link (docs/formulas.md s.20).
Document run_nccl(const LinkOptions& o) {
  const Bytes size = parse_bytes(o.allreduce_size, InputLocation::for_key("--allreduce-size"));
  const Link link = parse_link(o.link, InputLocation::for_key("--link"));
  NcclSetup setup;
  setup.ranks = o.tp;
  setup.nodes = o.nodes;
  setup.link_rate = link.rate;
  setup.channels = o.nccl_channels;
  setup.algorithms = parse_nccl_algorithms(o.nccl_algo, InputLocation::for_key("--nccl-algo"));
  setup.protocols = parse_nccl_protocols(o.nccl_proto, InputLocation::for_key("--nccl-proto"));
  const NcclChoice choice = choose_nccl_allreduce(size, setup);
  const NcclCost& c = choice.chosen;
  const int nodes = o.nodes == 0 ? o.tp : o.nodes;
  // The built-in profiles are measured with one GPU a node.
  const FabricProfile fabric = nodes != o.tp && o.fabric == "auto"
                                   ? nominal_fabric(link)
                                   : to_fabric(o.fabric, link, o.node);
  const FabricAllReduce estimate = fabric_allreduce(fabric, size, o.tp, CollectiveAlgorithm::ring);

  Document doc;
  doc.title = fmt::format(
      "tpnet link: one {:.0f} B all-reduce over {} ranks on {} node(s) at {}: {:.1f} us on {}; "
      "NCCL's own model below",
      size.count(), o.tp, nodes, link.name, estimate.time.value() * 1e6, describe(fabric));
  Record fabric_record = fabric_fields(link, fabric);
  fabric_record.push_back(
      number("time_s", "time of the all-reduce", estimate.time.value(), kMicroseconds, 1));
  fabric_record.push_back(
      number("latency_s", "of which fixed", estimate.latency.value(), kMicroseconds, 1));
  fabric_record.push_back(
      number("transfer_s", "of which bytes", estimate.transfer.value(), kMicroseconds, 1));
  doc.fields = {
      record("estimate", "on the fabric profile", std::move(fabric_record)),
      text("link", "link", link.name),
      number("link_bps", "rate (channels x per-channel bandwidth)", link.rate.bits_per_second(),
             kGbps, 2),
      integer("tp", "ranks", o.tp),
      integer("nodes", "nodes", nodes),
      integer("nccl_channels", "NCCL channels", setup.channels),
      number("allreduce_size_bytes", "all-reduce size (each rank's buffer)", size.count(), kBytesB,
             0),
      text("nccl_algorithm", "NCCL algorithm", std::string(to_string(c.algorithm))),
      text("nccl_protocol", "NCCL protocol", std::string(to_string(c.protocol))),
      number("latency_s", "latency", c.latency.value(), kMicroseconds, 1),
      number("algorithm_bandwidth_bps", "algorithm bandwidth",
             c.algorithm_bandwidth.bits_per_second(), kGBps, 2),
      number("time_s", "time (latency + size / algorithm bandwidth)", c.time.value(), kMicroseconds,
             1),
      text("source", "constants", std::string(setup.tuning.source)),
      nccl_candidate_records("candidates", "every candidate", choice),
  };
  return doc;
}

Document run_link(const LinkOptions& o) {
  Document doc;
  if (!o.allreduce_size.empty()) {
    if (o.pcie_gen != 0 || o.lanes != 0) {
      throw InputError("--allreduce-size prices an all-reduce; leave out --pcie-gen and --lanes",
                       InputLocation::for_key("--allreduce-size"));
    }
    return run_nccl(o);
  }
  if (o.pcie_gen == 0 && o.lanes == 0) {
    std::vector<Record> rows;
    for (const auto& p : link_presets()) {
      rows.push_back(
          {text("name", "preset", std::string(p.name)),
           number("link_bps", "rate", p.gigabits_per_second * 1e9, kGbps, 0),
           note_unless_wide(text("description", "what it is", std::string(p.description)))});
    }
    doc.title = "tpnet link: presets (any rate also works: 200Gb/s, 109.07G, 25GB/s)";
    doc.fields = {
        text("latency_model", "all-reduce latency model",
             std::string(nccl_2_28_tuning().source) +
                 " (price one size with --allreduce-size; override with --base-latency)"),
        records("presets", "presets", std::move(rows)),
    };
    return doc;
  }
  if (o.pcie_gen == 0 || o.lanes == 0) {
    throw InputError("give both --pcie-gen and --lanes (e.g. --pcie-gen 5 --lanes 4)",
                     InputLocation::for_key(o.pcie_gen == 0 ? "--pcie-gen" : "--lanes"));
  }
  PcieSpec spec;
  spec.generation = o.pcie_gen;
  spec.lanes = o.lanes;
  spec.protocol_efficiency = o.efficiency;
  if (!o.coding.empty())
    spec.coding = parse_line_coding(o.coding, InputLocation::for_key("--coding"));
  const PcieLinkRates r = pcie_link_rates(spec);
  doc.title = fmt::format("tpnet link: PCIe Gen{} x{} host link", o.pcie_gen, o.lanes);
  doc.fields = {
      integer("pcie_gen", "PCIe generation", o.pcie_gen),
      integer("lanes", "lanes", o.lanes),
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

}  // namespace

Command setup_link(CLI::App& app) {
  auto options = std::make_shared<LinkOptions>();
  CLI::App* sub = app.add_subcommand(
      "link",
      "Link presets, the rate a PCIe host link carries (--pcie-gen 5 --lanes 4), or NCCL's "
      "pick for one all-reduce (--allreduce-size 61440B --tp 8)");
  sub->add_option("--pcie-gen", options->pcie_gen, "PCIe generation, 1-5");
  sub->add_option("--lanes", options->lanes, "PCIe lanes: 1, 2, 4, 8 or 16");
  sub->add_option("--coding", options->coding,
                  "Line coding: 8b/10b or 128b/130b (default: the generation's own)");
  sub->add_option("--efficiency", options->efficiency,
                  "Share left after TLP/DLLP and flow-control overhead")
      ->default_val(PcieSpec{}.protocol_efficiency);
  const std::string nccl = "NCCL all-reduce pricing (docs/formulas.md s.20)";
  sub->add_option("--allreduce-size", options->allreduce_size,
                  "Price one all-reduce of this many bytes per rank (e.g. 61440, 50.3MB) with "
                  "NCCL's tuning model")
      ->group(nccl);
  sub->add_option("--link", options->link, "Link (preset or rate)")
      ->group(nccl)
      ->default_str("200G");
  sub->add_option("--tp,--tensor-parallel-size", options->tp, "Ranks in the all-reduce")
      ->group(nccl)
      ->default_val(8);
  sub->add_option("--nodes", options->nodes, "Nodes they span (default: one rank per node)")
      ->group(nccl);
  sub->add_option("--nccl-algo", options->nccl_algo,
                  "Algorithms the tuner may pick: auto, ring or tree (like NCCL_ALGO)")
      ->group(nccl)
      ->default_str("auto");
  sub->add_option("--nccl-proto", options->nccl_proto,
                  "Protocols the tuner may pick: auto, LL, LL128 or Simple (like NCCL_PROTO)")
      ->group(nccl)
      ->default_str("auto");
  sub->add_option("--nccl-channels", options->nccl_channels,
                  "NCCL network channels: one per RDMA device the port shows (a DGX Spark's "
                  "two PCIe halves)")
      ->group(nccl)
      ->default_str(std::to_string(NcclSetup{}.channels));
  sub->add_option("--fabric", options->fabric,
                  "Profile the estimate uses: auto (the node's measured profile of the link "
                  "preset, else NCCL's model), nominal, a built-in name or a calibration.yaml")
      ->group(nccl)
      ->default_str("auto");
  add_node_option(sub, options->node);
  add_format_option(sub, options->format);
  return Command{sub,
                 [options] {
                   return Outcome{run_link(*options), {}, 0};
                 },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
