#include "tpnet/usecase/shared_fields.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "tpnet/base/quantity.hpp"

namespace tpnet {

std::string describe(const ModelArch& model, const EngineConfig& engine) {
  return fmt::format("{} at TP{} ({} all-reduce)", model.name, engine.tensor_parallel_size,
                     to_string(engine.algorithm));
}

namespace {

std::string joined(const std::vector<NcclProtocol>& protocols) {
  std::string out;
  for (NcclProtocol p : protocols) out += (out.empty() ? "" : ",") + std::string(to_string(p));
  return out;
}

std::string joined(const std::vector<CollectiveAlgorithm>& algorithms) {
  std::string out;
  for (CollectiveAlgorithm a : algorithms) {
    out += (out.empty() ? "" : ",") + std::string(to_string(a));
  }
  return out;
}

}  // namespace

Field link_summary(std::string label, const Link& link, const CollectiveSettings& settings) {
  std::string latency;
  if (const auto& alpha = settings.latency_override) {
    latency = fmt::format("latency: user override, {} + {} per step", format_duration(alpha->base),
                          format_duration(alpha->per_step));
  } else {
    const NcclSetup& nccl = settings.nccl;
    latency = fmt::format("latency: {} tuning model",
                          nccl.tuning.source.substr(0, nccl.tuning.source.find(',')));
    if (!settings.nccl_algorithm_from_engine) {
      latency += ", algorithms " + joined(nccl.algorithms);
    }
    if (nccl.protocols != NcclSetup{}.protocols) latency += ", protocols " + joined(nccl.protocols);
  }
  return table_only(
      text("", std::move(label),
           fmt::format("{} ({}; {})", link.name, format_bit_rate(link.rate), latency)));
}

Field link_record(std::string key, std::string label, const Link& link,
                  const CollectiveSettings& settings) {
  Record fields{
      text("name", "name", link.name),
      number("link_bps", "rate", link.rate.bits_per_second(), kGbps, 2),
      text("latency_model", "latency model", settings.latency_override ? "user override" : "nccl")};
  if (const auto& alpha = settings.latency_override) {
    fields.push_back(
        number("base_latency_s", "base latency", alpha->base.value(), kMicroseconds, 1));
    fields.push_back(
        number("step_latency_s", "step latency", alpha->per_step.value(), kMicroseconds, 1));
  } else {
    const NcclSetup& nccl = settings.nccl;
    fields.push_back(
        text("nccl_algorithms", "NCCL algorithms",
             settings.nccl_algorithm_from_engine ? "engine" : joined(nccl.algorithms)));
    fields.push_back(text("nccl_protocols", "NCCL protocols", joined(nccl.protocols)));
    fields.push_back(integer("nccl_channels",
                             "NCCL network channels (latency model; one per RDMA device)",
                             nccl.channels));
  }
  return json_only(record(std::move(key), std::move(label), std::move(fields)));
}

std::string latency_source(const AllReduceLatency& pricing) {
  if (!pricing.nccl) return "user override";
  return describe(pricing.nccl->chosen) + " (NCCL model)";
}

void append_pricing_fields(Record& out, const AllReduceLatency& pricing, const std::string& prefix,
                           DisplayUnit time_unit, int time_decimals) {
  out.push_back(json_only(
      text(prefix + "latency_model", "latency model", pricing.nccl ? "nccl" : "user override")));
  out.push_back(table_only(text("", "latency priced by", latency_source(pricing))));
  if (!pricing.nccl) return;
  const NcclCost& c = pricing.nccl->chosen;
  out.push_back(json_only(
      text(prefix + "nccl_algorithm", "NCCL algorithm", std::string(to_string(c.algorithm)))));
  out.push_back(json_only(
      text(prefix + "nccl_protocol", "NCCL protocol", std::string(to_string(c.protocol)))));
  out.push_back(number(prefix + "nccl_time_s", "NCCL's modelled time", c.time.value(), time_unit,
                       time_decimals));
}

Field nccl_candidate_records(std::string key, std::string label, const NcclChoice& choice) {
  std::vector<Record> rows;
  for (const NcclCost& c : choice.candidates) {
    const bool chosen =
        c.algorithm == choice.chosen.algorithm && c.protocol == choice.chosen.protocol;
    rows.push_back(
        {text("algorithm", "algorithm", std::string(to_string(c.algorithm))),
         text("protocol", "protocol", std::string(to_string(c.protocol))),
         flag("enabled", "enabled", c.enabled), flag("chosen", "chosen", chosen),
         number("latency_s", "latency", c.latency.value(), kMicroseconds, 1),
         number("bus_bandwidth_bps", "bus bandwidth", c.bus_bandwidth.bits_per_second(), kGBps, 2),
         number("algorithm_bandwidth_bps", "algorithm bandwidth",
                c.algorithm_bandwidth.bits_per_second(), kGBps, 2),
         number("time_s", "time", c.time.value(), kMicroseconds, 1)});
  }
  return records(std::move(key), std::move(label), std::move(rows));
}

Record fabric_fields(const Link& link, const FabricProfile& profile, bool show_provenance) {
  Field provenance = texts("provenance", "provenance", profile.provenance);
  if (!show_provenance) provenance = json_only(std::move(provenance));
  return Record{
      text("link", "link", link.name),
      text("fabric", "fabric", profile.name),
      text("source", "source", std::string(to_string(profile.source))),
      number("rate_bps", "rate at largest size", fabric_rate(profile).bits_per_second(), kGbps, 1),
      note_unless_wide(text("description", "what it is", profile.description)),
      std::move(provenance)};
}

std::string range_cell(const ExtraRange& range) {
  // Rounded first, so that -0.001 prints as +0.00 and not as -0.00.
  auto seconds = [](Seconds s) { return std::round(s.value() * 100.0) / 100.0 + 0.0; };
  return fmt::format("{:+.2f}..{:+.2f}", seconds(range.low), seconds(range.high));
}

Field calibration_record(const CalibrationUse& use) {
  const Calibration& c = *use.file;
  const AllReduceCalibration& a = *use.allreduce;
  const auto& p = c.provenance;
  Record rec{
      text("source", "calibration file", c.origin),
      text("date", "measured", p.date),
      text("nccl_version", "NCCL version", p.nccl_version),
      text("backend", "backend", p.backend),
      json_only(texts("hosts", "hosts", p.hosts)),
      integer("ranks", "sweep ranks", a.ranks),
      text("link", "sweep measured on", a.link),
      json_only(number("link_bps", "link rate", a.link_rate.bits_per_second(), kGbps, 1)),
      number("alpha_s", "alpha (fixed time per all-reduce)", a.alpha.value(), kMicroseconds, 2),
      number("step_latency_s", "latency per ring step", a.step_latency.value(), kMicroseconds, 2),
      number("beta_bps", "beta (rate of bytes sent)", a.beta.bits_per_second(), kGbps, 1),
      number("rms_relative_error_pct", "fit RMS relative error", a.rms_relative_error * 100.0,
             kPercent, 2),
      flag("compute_used", "compute used for the share", use.compute != nullptr),
  };
  if (use.compute != nullptr) {
    rec.push_back(number("compute_per_prompt_token_s", "compute per prompt token per node",
                         use.compute->per_prompt_token.value(), kMilliseconds, 4));
    rec.push_back(text("compute_precision", "compute precision", use.compute->precision));
  }
  rec.push_back(texts("notes", "note", use.notes));
  return record("calibration", "calibration", std::move(rec));
}

}  // namespace tpnet
