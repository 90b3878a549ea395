// tpnet decode: why decode barely changes with the link rate.

#include <memory>

#include "calibration_flags.hpp"
#include "common.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/decode.hpp"

namespace tpnet::cli {
namespace {

struct DecodeOptions {
  EngineOptions engine;
  std::string from = "200G";
  std::string to = "100G";
  int requests = 1;
  std::string node = std::string(kDefaultNodeName);
  std::string memory_bandwidth;  ///< empty: the node's
  CalibrationFlags calibration;
  std::vector<std::string> fabrics;
  std::string format = "table";
};

Document run_decode(const DecodeOptions& o) {
  DecodeRequest request;
  request.model = load_model(o.engine);
  request.engine = to_engine(o.engine);
  request.requests = o.requests;
  request.node = load_node(o.node);
  if (!o.memory_bandwidth.empty()) {
    request.memory_bandwidth =
        parse_bit_rate(o.memory_bandwidth, InputLocation::for_key("--mem-bw"));
  }
  request.calibration = load_calibration(o.calibration);
  const std::vector<Link> from_to{to_link(o.from, "--from"), to_link(o.to, "--to")};
  request.collective = to_collective_settings(o.engine);
  std::vector<ProfiledLink> links =
      with_fabrics(o.fabrics, from_to, request.collective, request.node.name, request.calibration);
  request.from = std::move(links[0]);
  request.to = std::move(links[1]);
  return decode_document(request, tpnet::run_decode(request));
}

}  // namespace

Command setup_decode(CLI::App& app) {
  auto options = std::make_shared<DecodeOptions>();
  CLI::App* sub =
      app.add_subcommand("decode", "Decode traffic per forward, and why link rate barely matters");
  add_engine_options(sub, options->engine);
  sub->add_option("--from", options->from, "Baseline link (preset or rate)")->default_str("200G");
  sub->add_option("--to", options->to, "Link to estimate (preset or rate)")->default_str("100G");
  sub->add_option("--requests", options->requests, "Running requests per decode forward")
      ->default_val(1);
  add_node_option(sub, options->node);
  sub->add_option("--mem-bw", options->memory_bandwidth,
                  "Memory bandwidth each node reads weights at (default: the node's "
                  "memory_bandwidth)");
  add_calibration_options(sub, options->calibration);
  sub->add_option("--fabric", options->fabrics,
                  "Fabric profiles of --from and --to: auto (the node's measured profile of each "
                  "preset; the --calibration file when one is given), nominal, a built-in name "
                  "or a calibration.yaml; one, or two")
      ->delimiter(',');
  add_format_option(sub, options->format);
  return Command{sub,
                 [options] {
                   return Outcome{run_decode(*options), {}, 0};
                 },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
