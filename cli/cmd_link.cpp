// tpnet link: link presets, and what a PCIe host link can carry.

#include <fmt/format.h>

#include <memory>

#include "common.hpp"
#include "tpnet/quantity.hpp"

namespace tpnet::cli {
namespace {

struct LinkOptions {
  int pcie_gen = 0;
  int lanes = 0;
  std::string coding;
  double efficiency = 0.88;
  std::string format = "table";
};

Document run_link(const LinkOptions& o) {
  Document doc;
  if (o.pcie_gen == 0 && o.lanes == 0) {
    std::vector<Record> rows;
    const StepLatency latency;
    for (const auto& p : link_presets()) {
      rows.push_back({text("name", "preset", std::string(p.name)),
                      number("link_bps", "rate", p.gigabits_per_second * 1e9, kGbps, 0),
                      text("description", "what it is", std::string(p.description))});
    }
    doc.title = "tpnet link: presets (any rate also works: 200Gb/s, 109.07G, 25GB/s)";
    doc.fields = {
        number("base_latency_s", "fixed latency per all-reduce", latency.base.value(),
               kMicroseconds, 1),
        number("step_latency_s", "latency per ring step", latency.per_step.value(), kMicroseconds,
               1),
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
      "link", "Link presets, or the rate a PCIe host link carries (--pcie-gen 5 --lanes 4)");
  sub->add_option("--pcie-gen", options->pcie_gen, "PCIe generation, 1-5");
  sub->add_option("--lanes", options->lanes, "PCIe lanes: 1, 2, 4, 8 or 16");
  sub->add_option("--coding", options->coding,
                  "Line coding: 8b/10b or 128b/130b (default: the generation's own)");
  sub->add_option("--efficiency", options->efficiency,
                  "Share left after TLP/DLLP and flow-control overhead")
      ->default_val(0.88);
  add_format_option(sub, options->format);
  return Command{sub,
                 [options] {
                   return Outcome{run_link(*options), {}, 0};
                 },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
