// tpnet preflight: run on a node (or on a tree saved from one), reads the
// node's own fabric state and says check by check what holds, what is wrong,
// what that cost someone who measured it, and the fix (docs/preflight.md).

#include <memory>

#include "common.hpp"
#include "exit_codes.hpp"
#include "tpnet/io/node_facts.hpp"
#include "tpnet/usecase/preflight.hpp"
#include "tpnet/usecase/preflight_document.hpp"

namespace tpnet::cli {
namespace {

struct PreflightOptions {
  std::string root;
  std::string node = std::string(kDefaultNodeName);
  std::string format = "table";
};

Outcome run_preflight_command(const PreflightOptions& o) {
  PreflightRequest request;
  request.node = load_node(o.node);
  request.facts = read_node_facts_at(o.root, "--root");
  const PreflightReport report = run_preflight(request);
  return Outcome{
      preflight_document(report, o.root.empty() ? "/" : o.root), {}, report.gate_failed() ? 1 : 0};
}

}  // namespace

Command setup_preflight(CLI::App& app) {
  auto options = std::make_shared<PreflightOptions>();
  CLI::App* sub = app.add_subcommand(
      "preflight",
      "Check this node's fabric before a run: both RDMA devices of the port, MTUs, the RoCE v2 "
      "GID index, PCIe links, NCCL_IB_HCA, NCCL_SOCKET_IFNAME, memlock, the NCCL version; each "
      "fault with what it cost and the fix; exit 1 when a check fails");
  sub->add_option("--root", options->root,
                  "Read a tree saved from a node (calibration/scripts/save-node-tree.sh) "
                  "instead of this node");
  add_node_option(sub, options->node);
  add_format_option(sub, options->format);
  set_gate_exit_codes(sub, "a check fails");
  return Command{sub, [options] { return run_preflight_command(*options); },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
