#include "field_flags.hpp"

namespace tpnet::cli {
namespace {

/// Request fields (the plan file's keys where it has them) and their flags.
struct FieldFlag {
  std::string_view field;
  std::string_view flag;
};

constexpr FieldFlag kFieldFlags[] = {
    {"model", "--model"},
    {"model.bits_per_weight", "--bits-per-weight"},
    {"model.quantization", "--quantization"},
    {"vllm_args", "--vllm-args"},
    {"input.max_bytes", "TPNET_MAX_INPUT_BYTES"},
    {"output.format", "--format"},
    {"node", "--node"},
    {"layouts", "--layouts"},
    {"layout.tp", "--tp"},
    {"layout.pp", "--pp"},
    {"layout.ep", "--ep"},
    {"layout.data_parallel_size", "--data-parallel-size"},
    {"layout.enable_expert_parallel", "--enable-expert-parallel"},
    {"layout.reference_tp", "--reference-tp"},
    {"engine.max_num_batched_tokens", "--chunk"},
    {"engine.long_prefill_token_threshold", "--long-prefill-token-threshold"},
    {"engine.max_num_seqs", "--max-num-seqs"},
    {"engine.num_speculative_tokens", "--spec-tokens"},
    {"engine.activation_bytes", "--activation-bytes"},
    {"engine.allreduces_per_layer", "--allreduces-per-layer"},
    {"engine.extra_allreduces_per_forward", "--extra-allreduces"},
    {"engine.algorithm", "--algorithm"},
    {"engine.all2all_backend", "--all2all-backend"},
    {"links.from", "--from"},
    {"predict.links", "--links"},
    {"predict.overlap", "--overlap"},
    {"predict.traffic", "--traffic"},
    {"predict.timeline", "--timeline"},
    {"disaggregation", "--disaggregate"},
    {"disaggregation.prefill_instances", "--disaggregate"},
    {"disaggregation.decode_instances", "--disaggregate"},
    {"disaggregation.prefill_tp", "--prefill-tp"},
    {"disaggregation.decode_tp", "--decode-tp"},
    {"workload.output_tokens", "--output"},
    {"fabric", "--fabric"},
    {"decode.itl", "--decode-itl"},
    {"engine.accepted_tokens_per_decode", "--accepted-tokens"},
    {"workload.requests", "--prompt"},
    {"links.to", "--to"},
    {"link", "--link"},
    {"latency.base", "--base-latency"},
    {"latency.per_step", "--step-latency"},
    {"nccl.algorithms", "--nccl-algo"},
    {"nccl.protocols", "--nccl-proto"},
    {"nccl.channels", "--nccl-channels"},
    {"nccl.nodes", "--nodes"},
    {"nccl.size", "--allreduce-size"},
    {"workload.prompts", "--prompt"},
    {"expect.concurrency", "--concurrency"},
    {"workload.baseline", "--baseline"},
    {"workload.decode_requests", "--requests"},
    {"bytes_per_token", "--bytes-per-token"},
    {"overhead", "--overhead"},
    {"projection.tp", "--baseline-tp"},
    {"projection.ttft", "--baseline-ttft"},
    {"projection.prompt", "--baseline-prompt"},
    {"projection.link", "--baseline-link"},
    {"memory.node_memory", "--node-memory"},
    {"memory.gpu_memory_utilization", "--gpu-memory-utilization"},
    {"memory.nccl_tuned", "--nccl-tuned"},
    {"memory.nccl_channels", "--nccl-channels"},
    {"memory.nccl_buffsize", "--nccl-buffsize"},
    {"memory.cuda_graph_memory", "--cuda-graph-memory"},
    {"memory.activation_factor", "--activation-factor"},
    {"memory.kv_cache_dtype", "--kv-cache-dtype"},
    {"memory.enforce_eager", "--enforce-eager"},
    {"memory.kv_bytes_per_token", "--kv-bytes-per-token"},
    {"memory.max_model_len", "--max-model-len"},
    {"memory.engram_tables", "--engram-tables"},
    {"memory.autotune_spike", "--autotune-spike"},
    {"memory.memory_bandwidth", "--mem-bw"},
    {"budgets.max_extra_ttft", "--max-extra-ttft"},
    {"budgets.max_extra_ttft_per_1k_tokens", "--max-extra-ttft-per-1k"},
    {"budgets.max_ttft_increase", "--max-ttft-increase"},
    {"budgets.max_decode_slowdown", "--max-decode-slowdown"},
    {"calibration", "--calibration"},
    {"calibration.nccl_version", "--nccl-version"},
    {"nodes", "--nodes"},
    {"cluster.nodes", "--nodes"},
    {"speed", "--speed"},
    {"speeds", "--speeds"},
    {"workload", "--workload"},
    {"ttft_budget", "--ttft-budget"},
    {"prices", "--prices"},
    {"objective", "--objective"},
    {"users_per_instance", "--sweep"},
    {"switches", "--switch"},
    {"sweeps", "--sweep"},
    {"sweep.config_key", "--config-key"},
    {"sweep.tp", "--tp"},
    {"slo.ttft", "--ttft-slo"},
    {"slo.tps", "--tps-slo"},
    {"slo.statistic", "--slo-statistic"},
    {"think", "--think"},
    {"think_values", "--think-values"},
    {"ttft_values", "--ttft-values"},
    {"tps_values", "--tps-values"},
    {"edge", "--edge"},
    {"fleet_nodes", "--fleet"},
    {"pcie.generation", "--pcie-gen"},
    {"pcie.lanes", "--lanes"},
    {"pcie.protocol_efficiency", "--efficiency"},
    {"traffic.prompt_tokens", "--prompt-tokens"},
    {"traffic.tp", "--tp"},
    {"nccl.ranks", "--tp"},
    {"fit.min_size", "--min-size"},
    {"fit.max_size", "--max-size"},
    {"ranks", "--ranks"},
    {"fit.force", "--force"},
    {"collective", "--collective"},
    {"partial", "--partial"},
};

std::string_view lookup(std::string_view field) {
  for (const FieldFlag& entry : kFieldFlags) {
    if (entry.field == field) return entry.flag;
  }
  return {};
}

}  // namespace

std::string flag_for(std::string_view field) {
  const std::string_view flag = lookup(field);
  return std::string(flag.empty() ? field : flag);
}

std::string name_fields(std::string_view text, FieldNames names) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('`', at);
    const std::size_t close =
        open == std::string_view::npos ? std::string_view::npos : text.find('`', open + 1);
    if (close == std::string_view::npos) {
      out.append(text.substr(at));
      break;
    }
    out.append(text.substr(at, open - at));
    const std::string_view inner = text.substr(open + 1, close - open - 1);
    const std::string_view flag = lookup(inner);
    if (flag.empty()) {
      out.append(text.substr(open, close - open + 1));  // not a field: kept as written
    } else {
      out.append(names == FieldNames::flags ? flag : inner);
    }
    at = close + 1;
  }
  return out;
}

namespace {

void name_record_fields(Record& fields, FieldNames names) {
  for (Field& field : fields) {
    field.text = name_fields(field.text, names);
    for (auto& t : field.texts) t = name_fields(t, names);
    for (auto& r : field.records) name_record_fields(r, names);
  }
}

}  // namespace

void name_document_fields(Document& doc, FieldNames names) {
  for (auto& line : doc.answer) line = name_fields(line, names);
  doc.title = name_fields(doc.title, names);
  for (auto& warning : doc.warnings) warning = name_fields(warning, names);
  name_record_fields(doc.fields, names);
  for (auto& section : doc.sections) {
    for (auto& p : section.paragraphs) p = name_fields(p, names);
    for (auto& item : section.items) item = name_fields(item, names);
    for (auto& f : section.figures) f.caption = name_fields(f.caption, names);
    for (auto& table : section.tables) {
      for (auto& row : table.rows) {
        for (auto& cell : row) cell = name_fields(cell, names);
      }
    }
  }
}

std::string error_line(const InputError& error, FieldNames names) {
  const InputLocation& where = error.where();
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) out += ":" + std::to_string(where.line);
    out += ": ";
  }
  if (!where.key.empty()) {
    // A key in a file is that file's own key; a key without one is a request field.
    out +=
        (where.file.empty() && names == FieldNames::flags ? flag_for(where.key) : where.key) + ": ";
  }
  return out + name_fields(error.detail(), names);
}

}  // namespace tpnet::cli
