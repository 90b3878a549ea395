// tpnet decode's answer as a document: one forward's all-reduces and logits
// at the two links, the weight-read floor they are set against, NCCL's pick,
// and with a calibration or fabric profiles their own estimate of the forward
// (docs/json.md, "decode").
#include <fmt/format.h>

#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/shared_fields.hpp"

namespace tpnet {
namespace {

std::string decode_explanation(const DecodeReport& r, const Link& from, const Link& to) {
  return fmt::format(
      "each all-reduce sends {:.0f} KB per node: {:.1f} us at {}, {:.1f} us at {}, against "
      "{:.1f} us of fixed latency ({}; {}); reading the weights takes at least "
      "{:.1f} ms per forward, so {} adds at most {:.2f} ms ({:.1f}% of that floor)",
      r.allreduce.sent_per_node.count() / 1e3, r.transfer_from.value() * 1e6, from.name,
      r.transfer_to.value() * 1e6, to.name, r.allreduce_latency.value() * 1e6,
      latency_source(r.allreduce_pricing), to_string(r.regime), r.weight_read_floor.value() * 1e3,
      to.name, r.max_added_per_forward.value() * 1e3, r.max_added_share * 100.0);
}

/// What NCCL left alone would do, when that differs from the pick assumed.
std::string decode_unpinned_note(const DecodeReport& r) {
  const NcclCost& unpinned = r.nccl_unpinned.chosen;
  const auto& assumed = r.allreduce_pricing.nccl;
  if (assumed && assumed->chosen.algorithm == unpinned.algorithm &&
      assumed->chosen.protocol == unpinned.protocol) {
    return describe(unpinned) + ", as assumed";
  }
  return fmt::format(
      "{}: {:.1f} us latency, {:.1f} us in NCCL's model{}", describe(unpinned),
      unpinned.latency.value() * 1e6, unpinned.time.value() * 1e6,
      assumed ? fmt::format(" (against {:.1f} us for {})", assumed->chosen.time.value() * 1e6,
                            describe(assumed->chosen))
              : "");
}

/// The calibration's point estimate of one forward, beside the bounds.
void append_decode_point(Record& fields, const DecodeReport& r, const Link& from, const Link& to) {
  const DecodePoint& d = *r.point;
  fields.push_back(number("point_allreduce_from_s", "point: one all-reduce at " + from.name,
                          d.allreduce_from.value(), kMicroseconds, 1));
  fields.push_back(number("point_allreduce_to_s", "point: one all-reduce at " + to.name,
                          d.allreduce_to.value(), kMicroseconds, 1));
  fields.push_back(number("point_forward_comm_from_s",
                          "point: communication per forward at " + from.name,
                          d.forward_comm_from.value(), kMilliseconds, 2));
  fields.push_back(number("point_forward_comm_to_s",
                          "point: communication per forward at " + to.name,
                          d.forward_comm_to.value(), kMilliseconds, 2));
  fields.push_back(signed_number("point_added_per_forward_s",
                                 fmt::format("point: {} adds per forward", to.name),
                                 d.added_per_forward.value(), kMilliseconds, 3));
  fields.push_back(signed_number("point_added_pct_of_floor", "point: as a share of the floor",
                                 r.point_added_share.value_or(0.0) * 100.0, kPercent, 2));
  fields.push_back(calibration_record(*r.calibration));
}

/// One forward's collectives priced on each link's fabric profile.
void append_decode_fabric(Record& fields, const DecodeRequest& request, const DecodeReport& r) {
  const DecodeReport::FabricForward& f = *r.fabric;
  const Link& from = request.from.link;
  const Link& to = request.to.link;
  const FabricProfile& from_fabric = *request.from.fabric;
  const FabricProfile& to_fabric = *request.to.fabric;
  fields.push_back(
      number("fabric_forward_comm_from_s",
             fmt::format("communication per forward at {} ({})", from.name, from_fabric.name),
             f.comm_from.value(), kMilliseconds, 2));
  fields.push_back(
      number("fabric_forward_comm_to_s",
             fmt::format("communication per forward at {} ({})", to.name, to_fabric.name),
             f.comm_to.value(), kMilliseconds, 2));
  fields.push_back(signed_number("fabric_added_per_forward_s",
                                 fmt::format("on the fabric profiles {} adds per forward", to.name),
                                 f.added.value(), kMilliseconds, 2));
  fields.push_back(signed_number("fabric_added_pct_of_floor", "as a share of the floor",
                                 f.added_share * 100.0, kPercent, 2));
  fields.push_back(records("fabrics", "fabric profiles",
                           {fabric_fields(from, from_fabric), fabric_fields(to, to_fabric)}));
}

}  // namespace

Document decode_document(const DecodeRequest& request, const DecodeReport& r) {
  const ModelArch& model = request.model;
  const EngineConfig& engine = request.engine;
  const Link& from = request.from.link;
  const Link& to = request.to.link;

  Document doc;
  doc.csv = CsvLayout::sections;  // the headline answer is scalars; its lists follow
  doc.title = fmt::format("tpnet decode: {}, {} request(s) x {} token(s) per forward, {} -> {}",
                          describe(model, engine), request.requests,
                          1 + engine.num_speculative_tokens, from.name, to.name);
  Record pricing;
  append_pricing_fields(pricing, r.allreduce_pricing);
  const NcclCost& unpinned = r.nccl_unpinned.chosen;
  doc.fields = {
      text("model", "model", model.name),
      integer("tp", "tensor-parallel size", engine.tensor_parallel_size),
      text("algorithm", "all-reduce algorithm", std::string(to_string(engine.algorithm))),
      link_summary("from link", from, request.collective),
      link_summary("to link", to, request.collective),
      link_record("from", "from link", from, request.collective),
      link_record("to", "to link", to, request.collective),
      integer("requests", "running requests", request.requests),
      integer("tokens_per_forward", "tokens per forward",
              static_cast<double>(r.tokens_per_forward)),
      number("allreduce_block_bytes", "all-reduce block", r.allreduce.block.count(), kBytesKB, 1),
      number("allreduce_sent_bytes", "sent per node per all-reduce",
             r.allreduce.sent_per_node.count(), kBytesKB, 1),
      integer("allreduce_steps", "steps per all-reduce", r.allreduce.steps),
      number("allreduce_transfer_from_s", "transfer at " + from.name, r.transfer_from.value(),
             kMicroseconds, 1),
      number("allreduce_transfer_to_s", "transfer at " + to.name, r.transfer_to.value(),
             kMicroseconds, 1),
      number("allreduce_latency_s", "fixed latency per all-reduce", r.allreduce_latency.value(),
             kMicroseconds, 1),
  };
  doc.fields.insert(doc.fields.end(), pricing.begin(), pricing.end());
  const Record rest{
      json_only(text("nccl_unpinned_algorithm", "NCCL unpinned algorithm",
                     std::string(to_string(unpinned.algorithm)))),
      json_only(text("nccl_unpinned_protocol", "NCCL unpinned protocol",
                     std::string(to_string(unpinned.protocol)))),
      json_only(number("nccl_unpinned_latency_s", "NCCL unpinned latency", unpinned.latency.value(),
                       kMicroseconds, 1)),
      json_only(number("nccl_unpinned_time_s", "NCCL unpinned time", unpinned.time.value(),
                       kMicroseconds, 1)),
      table_only(text("", "NCCL left alone would pick", decode_unpinned_note(r))),
      text("regime", "regime", std::string(to_string(r.regime))),
      integer("allreduces_per_forward", "all-reduces per forward", r.allreduces_per_forward),
      number("allreduce_forward_bytes", "all-reduce bytes per forward",
             r.allreduce_forward_bytes.count(), kBytesMB, 2),
      number("logits_sent_bytes", "logits all-gather per forward", r.logits_sent.count(), kBytesMB,
             2),
      number("forward_sent_bytes", "sent per node per forward", r.forward_sent.count(), kBytesMB,
             1),
      number("weight_bytes_per_node", "active weights per node", r.weight_bytes_per_node.count(),
             kBytesGB, 2),
      number("weight_read_floor_s",
             fmt::format("weight-read floor per forward (at {:.4g} GB/s)",
                         r.memory_bandwidth.bits_per_second() / 8e9),
             r.weight_read_floor.value(), kMilliseconds, 2),
      number("traffic_ceiling_bps", "decode traffic ceiling", r.traffic_ceiling.bits_per_second(),
             kGbps, 1),
      signed_number("max_added_per_forward_s", "most the slower link adds per forward",
                    r.max_added_per_forward.value(), kMilliseconds, 2),
      signed_number("max_added_pct_of_floor", "as a share of the floor", r.max_added_share * 100.0,
                    kPercent, 1),
      number("gather_latency_s",
             r.gather_nccl
                 ? fmt::format("logits all-gather latency ({})", describe(r.gather_nccl->chosen))
                 : "logits all-gather latency",
             r.gather_latency.value(), kMicroseconds, 1),
      number("latency_per_forward_s", fmt::format("fixed latency per forward (at {})", from.name),
             r.latency_per_forward.value(), kMilliseconds, 2),
      nccl_candidate_records(
          "nccl_candidates", "NCCL's candidates for one all-reduce at " + from.name,
          r.allreduce_pricing.nccl ? *r.allreduce_pricing.nccl : r.nccl_unpinned),
      text("explanation", "why", decode_explanation(r, from, to)),
  };
  doc.fields.insert(doc.fields.end(), rest.begin(), rest.end());
  if (r.point) append_decode_point(doc.fields, r, from, to);
  if (r.fabric) append_decode_fabric(doc.fields, request, r);
  doc.warnings = r.warnings;
  return doc;
}

}  // namespace tpnet
