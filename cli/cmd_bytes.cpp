// tpnet bytes: all-reduce bytes per prompt token and per forward pass.

#include <fmt/format.h>

#include <memory>

#include "common.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/bytes_report.hpp"

namespace tpnet::cli {
namespace {

struct BytesOptions {
  EngineOptions engine;
  std::string link = "200G";
  std::string overhead = "100us";
  std::string format = "table";
};

Document run_bytes(const BytesOptions& o) {
  const ModelArch model = load_model(o.engine);
  const EngineConfig engine = to_engine(o.engine);
  const Link link = to_link(o.link, "--link");
  const CollectiveSettings settings = to_collective_settings(o.engine);
  const Seconds overhead = parse_duration(o.overhead, InputLocation::for_key("--overhead"));
  const BytesReport r = analyze_bytes(model, engine, link, settings, overhead);

  Record allreduce{
      integer("chunk_tokens", "chunk", static_cast<double>(engine.max_num_batched_tokens)),
      number("block_bytes", "block (chunk x hidden x bytes)", r.chunk_allreduce.block.count(),
             kBytesMB, 1),
      number("sent_bytes_per_node", "sent per node", r.chunk_allreduce.sent_per_node.count(),
             kBytesMB, 1),
      integer("steps", "sequential steps", r.chunk_allreduce.steps)};
  if (engine.algorithm == CollectiveAlgorithm::ring) {
    allreduce.push_back(json_only(integer("ring_steps", "ring steps", r.chunk_allreduce.steps)));
  }
  allreduce.push_back(number(
      "segment_bytes",
      engine.algorithm == CollectiveAlgorithm::ring ? "segment per step" : "half block per tree",
      r.chunk_allreduce.segment.count(), kBytesMB, 1));
  allreduce.push_back(number("transfer_s", "transfer time at " + link.name,
                             r.chunk_allreduce_transfer.value(), kMilliseconds, 2));
  allreduce.push_back(
      number("latency_s", "fixed latency", r.chunk_allreduce_latency.value(), kMicroseconds, 1));
  append_pricing_fields(allreduce, r.chunk_latency_pricing, "", kMilliseconds, 3);
  allreduce.push_back(text("regime", "regime", std::string(to_string(r.chunk_regime))));

  std::vector<Record> scaling;
  for (const auto& row : r.tp_scaling) {
    scaling.push_back(
        {text("name", "TP", fmt::format("TP{}", row.tp)), json_only(integer("tp", "tp", row.tp)),
         number("per_token_bytes", "bytes per token", row.per_token_bytes.count(), kBytesMB, 2),
         number("bytes_ratio", fmt::format("bytes vs TP{}", engine.tensor_parallel_size),
                row.bytes_vs_reference, kTimes, 2),
         number("compute_ratio", fmt::format("compute vs TP{}", engine.tensor_parallel_size),
                row.compute_vs_reference, kTimes, 2)});
  }

  Document doc;
  doc.csv = CsvLayout::sections;  // the headline answer is scalars; its lists follow
  doc.title = "tpnet bytes: " + describe(model, engine);
  doc.fields = {
      text("model", "model", model.name),
      integer("tp", "tensor-parallel size", engine.tensor_parallel_size),
      text("algorithm", "all-reduce algorithm", std::string(to_string(engine.algorithm))),
      integer("allreduces_per_forward", "all-reduces per forward", r.allreduces_per_forward),
      number("sent_factor", "sent per node / block", r.sent_factor, kTimes, 3),
      number("per_token_bytes", "bytes per prompt token per node", r.per_token_bytes.count(),
             kBytesMB, 2),
      number("chunk_forward_bytes", "sent per node per full-chunk forward",
             r.chunk_forward_bytes.count(), kBytesGB, 2),
      record("allreduce", "one all-reduce of a full chunk", std::move(allreduce)),
      link_summary("link", link, settings),
      link_record("link", "link", link, settings),
      number("fixed_overhead_s", "a generous fixed overhead", r.fixed_overhead.value(),
             kMicroseconds, 0),
      number("bytes_in_fixed_overhead", "bytes the link moves meanwhile",
             r.bytes_in_fixed_overhead.count(), kBytesMB, 2),
      integer("reference_tp", "reference TP", engine.tensor_parallel_size),
      records("tp_scaling", "per-node share of work against this TP", std::move(scaling)),
  };
  doc.warnings = r.warnings;
  return doc;
}

}  // namespace

Command setup_bytes(CLI::App& app) {
  auto options = std::make_shared<BytesOptions>();
  CLI::App* sub = app.add_subcommand(
      "bytes", "All-reduce bytes per prompt token and per forward pass, per node");
  add_engine_options(sub, options->engine);
  sub->add_option("--link", options->link, "Link for transfer times (preset or rate)")
      ->default_str("200G");
  sub->add_option("--overhead", options->overhead,
                  "Fixed per-transfer overhead to compare a chunk's transfer with")
      ->default_str("100us");
  add_format_option(sub, options->format);
  return Command{sub,
                 [options] {
                   return Outcome{run_bytes(*options), {}, 0};
                 },
                 std::shared_ptr<const std::string>(options, &options->format)};
}

}  // namespace tpnet::cli
