// tpnet link: maps the flags to a LinkRequest, runs the link use case
// (tpnet/usecase/link_report.hpp) and renders its document.

#include <memory>
#include <string>

#include "common.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/usecase/link_report.hpp"

namespace tpnet::cli {
namespace {

/// The flags bound to the request's own fields hold its defaults; the rest
/// are text read here.
struct LinkOptions {
  LinkRequest request;
  AllReduceAsk allreduce;
  std::string coding;
  std::string allreduce_size;
  std::string link = "200G";
  std::string nccl_algo = "auto";
  std::string nccl_proto = "auto";
  std::string fabric = "auto";
  std::string node = std::string(kDefaultNodeName);
  std::string format = "table";
};

LinkRequest to_link_request(const LinkOptions& o) {
  LinkRequest request = o.request;
  if (!o.coding.empty()) {
    request.pcie_coding = parse_line_coding(o.coding, InputLocation::for_key("--coding"));
  }
  for (const auto& p : link_presets()) {
    request.presets.push_back({std::string(p.name),
                               BitRate::gigabits_per_second(p.gigabits_per_second),
                               std::string(p.description)});
  }
  if (o.allreduce_size.empty()) return request;
  AllReduceAsk ask = o.allreduce;
  ask.size = parse_bytes(o.allreduce_size, InputLocation::for_key("nccl.size"));
  ask.link = parse_link(o.link, InputLocation::for_key("link"));
  ask.algorithms = parse_nccl_algorithms(o.nccl_algo, InputLocation::for_key("nccl.algorithms"));
  ask.protocols = parse_nccl_protocols(o.nccl_proto, InputLocation::for_key("nccl.protocols"));
  ask.fabric = to_fabric(o.fabric, ask.link, CollectiveSettings{}, o.node);
  ask.fabric_picked_for_link = o.fabric == "auto";
  request.allreduce = ask;
  return request;
}

Document run_link_command(const LinkOptions& o) {
  const LinkRequest request = to_link_request(o);
  Document doc = link_document(request, run_link(request));
  name_document_fields(doc, FieldNames::flags);
  return doc;
}

}  // namespace

Command setup_link(CLI::App& app) {
  auto options = std::make_shared<LinkOptions>();
  LinkRequest& request = options->request;
  AllReduceAsk& allreduce = options->allreduce;
  CLI::App* sub = app.add_subcommand(
      "link",
      "Link presets, the rate a PCIe host link carries (--pcie-gen 5 --lanes 4), or NCCL's "
      "pick for one all-reduce (--allreduce-size 61440B --tp 8)");
  sub->add_option("--pcie-gen", request.pcie_generation, "PCIe generation, 1-5");
  sub->add_option("--lanes", request.pcie_lanes, "PCIe lanes: 1, 2, 4, 8 or 16");
  sub->add_option("--coding", options->coding,
                  "Line coding: 8b/10b or 128b/130b (default: the generation's own)");
  sub->add_option("--efficiency", request.pcie_protocol_efficiency,
                  "Share left after TLP/DLLP and flow-control overhead")
      ->capture_default_str();
  const std::string nccl = "NCCL all-reduce pricing (docs/formulas.md s.20)";
  sub->add_option("--allreduce-size", options->allreduce_size,
                  "Price one all-reduce of this many bytes per rank (e.g. 61440, 50.3MB) with "
                  "NCCL's tuning model")
      ->group(nccl);
  sub->add_option("--link", options->link, "Link (preset or rate)")
      ->group(nccl)
      ->capture_default_str();
  sub->add_option("--tp,--tensor-parallel-size", allreduce.ranks, "Ranks in the all-reduce")
      ->group(nccl)
      ->capture_default_str();
  sub->add_option("--nodes", allreduce.nodes, "Nodes they span (default: one rank per node)")
      ->group(nccl);
  sub->add_option("--nccl-algo", options->nccl_algo,
                  "Algorithms the tuner may pick: auto, ring or tree (like NCCL_ALGO)")
      ->group(nccl)
      ->capture_default_str();
  sub->add_option("--nccl-proto", options->nccl_proto,
                  "Protocols the tuner may pick: auto, LL, LL128 or Simple (like NCCL_PROTO)")
      ->group(nccl)
      ->capture_default_str();
  sub->add_option("--nccl-channels", allreduce.channels,
                  "NCCL network channels: one per RDMA device the port shows (a DGX Spark's "
                  "two PCIe halves)")
      ->group(nccl)
      ->capture_default_str();
  sub->add_option("--fabric", options->fabric,
                  "Profile the estimate uses: auto (the node's measured profile of the link "
                  "preset, else NCCL's model), nominal, a built-in name or a calibration.yaml")
      ->group(nccl)
      ->capture_default_str();
  add_node_option(sub, options->node);
  add_format_option(sub, options->format);
  return Command{sub,
                 [options] {
                   return Outcome{run_link_command(*options), {}, 0};
                 },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
