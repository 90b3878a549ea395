#include "tpnet/traffic/expert_alltoall.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

#include "tpnet/model/layer_plan.hpp"

namespace tpnet {
namespace {

// DeepEP's kernels take BF16 hidden states in and give BF16 back.
constexpr double kDeepEpBf16Bytes = 2.0;
// DeepEP's FP8 dispatch: one float scale per 128 channels, a 16-byte header
// (the source token index and three reserved ints) per message.
constexpr long long kDeepEpChannelsPerScale = 128;
constexpr double kDeepEpScaleBytes = 4.0;
constexpr double kDeepEpHeaderBytes = 16.0;
constexpr double kDeepEpBufferAlignment = 128.0;
// vLLM's allgather_reducescatter gathers each token's top-k weights (float32)
// and expert ids (int32) with its hidden state.
constexpr double kRoutingBytesPerExpert = 8.0;

long long scales_of(long long width) {
  return (width + kDeepEpChannelsPerScale - 1) / kDeepEpChannelsPerScale;
}

double normal_density(double x) {
  return std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
}
double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

}  // namespace

double expected_max_standard_normal(int samples) {
  if (samples <= 1) return 0.0;
  // E[max] = integral of x n phi(x) Phi(x)^(n-1): Simpson's rule on [-12, 12],
  // where the integrand of any n up to millions has vanished.
  constexpr int kIntervals = 4800;
  constexpr double kLow = -12.0;
  constexpr double kHigh = 12.0;
  const double step = (kHigh - kLow) / kIntervals;
  const double n = samples;
  const auto integrand = [n](double x) {
    return x * n * normal_density(x) * std::pow(normal_cdf(x), n - 1.0);
  };
  double sum = integrand(kLow) + integrand(kHigh);
  for (int i = 1; i < kIntervals; ++i) {
    sum += integrand(kLow + i * step) * (i % 2 == 1 ? 4.0 : 2.0);
  }
  return sum * step / 3.0;
}

double expected_remote_ranks(int experts, int experts_per_token, int ranks) {
  if (ranks <= 1 || experts <= 0 || experts_per_token <= 0) return 0.0;
  // A given other rank is missed when all k experts fall among the E - E/R
  // experts it does not hold: C(E - E/R, k) / C(E, k).
  const int held = experts / ranks;
  double missed = 1.0;
  for (int i = 0; i < experts_per_token; ++i) {
    const auto outside = static_cast<double>(experts - held - i);
    if (outside <= 0.0) {
      missed = 0.0;
      break;
    }
    missed *= outside / static_cast<double>(experts - i);
  }
  return static_cast<double>(ranks - 1) * (1.0 - missed);
}

double uniform_routing_imbalance(int experts, int experts_per_token, int ranks,
                                 double tokens_per_rank) {
  if (ranks <= 1 || tokens_per_rank <= 0.0 || experts <= 1 || experts_per_token <= 0) return 1.0;
  // One token's copies on a given rank: hypergeometric, k draws from E
  // experts of which E/R are the rank's.
  const double share = 1.0 / ranks;
  const double k = experts_per_token;
  const double per_token_variance =
      k * share * (1.0 - share) * (experts - k) / static_cast<double>(experts - 1);
  const double mean = tokens_per_rank * k;  // R x t tokens, k/R copies each on average
  const double deviation = std::sqrt(ranks * tokens_per_rank * per_token_variance);
  const double imbalance = 1.0 + expected_max_standard_normal(ranks) * deviation / mean;
  // No rank receives more than min(k, E/R) copies of every token.
  const double held = std::max(1, experts / ranks);
  const double most = ranks * std::min(k, held) / k;
  return std::clamp(imbalance, 1.0, most);
}

ExpertAllToAll expert_alltoall(const ModelArch& model, const EngineConfig& engine,
                               const ParallelLayout& layout, const ExpertAllToAllSettings& settings,
                               double tokens_per_dp_rank) {
  const MoeSpec* moe = first_moe(model.layers);
  if (moe == nullptr || layout.ep <= 1) {
    throw InputError(
        fmt::format("{} has no expert parallelism to price: an all-to-all needs an MoE model "
                    "and EP above 1",
                    layout.name()),
        InputLocation::for_key("layout.ep"));
  }
  if (engine.all2all_backend == AllToAllBackend::deepep_high_throughput) {
    throw InputError(
        "deepep_high_throughput forwards RDMA traffic through NVLink peers and expects eight "
        "GPUs per node; with one GPU per node use deepep_low_latency or allgather_reducescatter",
        InputLocation::for_key("engine.all2all_backend"));
  }
  if (settings.routing_imbalance && !(*settings.routing_imbalance >= 1.0)) {
    throw InputError("the busiest rank's share over the mean must be at least 1",
                     InputLocation::for_key("moe.routing_imbalance"));
  }
  if (!(tokens_per_dp_rank >= 0.0) || !std::isfinite(tokens_per_dp_rank)) {
    throw InputError("tokens per data-parallel rank must be a number of at least 0",
                     InputLocation::for_key("workload.tokens"));
  }
  ExpertAllToAll out;
  out.backend = engine.all2all_backend;
  out.dispatch_width = moe->latent_size > 0 ? moe->latent_size : model.hidden_size;
  const auto width = static_cast<double>(out.dispatch_width);
  const double k = moe->experts_per_token;
  const int tp = layout.tp;

  const int dp = layout.data_parallel();
  if (dp == 1) {
    // EP inside one TP group (ep = tp): vLLM uses no all-to-all; each rank
    // holds some experts of the same tokens and the TP all-reduce combines.
    out.ranks = 1;
    out.keeps_tp_allreduce = tp > 1;
    return out;
  }
  // vLLM's sequence-parallel MoE (TP > 1 and DP > 1, either backend): each
  // TP rank takes 1/tp of its group's tokens, dispatches them over the whole
  // EP group, and the TP group all-gathers the combined outputs.
  out.ranks = layout.ep;
  out.tokens_per_rank = tokens_per_dp_rank / tp;
  if (tp > 1) {
    out.tp_allgather_sent = Bytes(static_cast<double>(tp - 1) * out.tokens_per_rank *
                                  static_cast<double>(model.hidden_size) * engine.activation_bytes);
  }

  if (engine.all2all_backend == AllToAllBackend::allgather_reducescatter) {
    // All-gather every rank's rows over the EP group, then reduce-scatter the
    // results back: every token reaches every other rank.
    const double activation = engine.activation_bytes;
    out.dispatch_message = Bytes(width * activation + k * kRoutingBytesPerExpert);
    out.combine_message = Bytes(width * activation);
    const auto rows = static_cast<double>(out.ranks - 1) * out.tokens_per_rank;
    out.dispatch_sent = out.dispatch_message * rows;
    out.combine_sent = out.combine_message * rows;
    out.messages_per_phase = out.ranks - 1;
    out.remote_copies_per_token = out.ranks - 1;
    return out;
  }

  // DeepEP low latency: one write per token and expert on another rank.
  const auto scales = static_cast<double>(scales_of(out.dispatch_width));
  out.dispatch_message = Bytes(kDeepEpHeaderBytes + (settings.dispatch == DispatchPrecision::fp8
                                                         ? width + scales * kDeepEpScaleBytes
                                                         : width * kDeepEpBf16Bytes));
  out.combine_message = Bytes(width * kDeepEpBf16Bytes);
  const auto remote_share = static_cast<double>(layout.ep - 1) / layout.ep;
  out.remote_copies_per_token = k * remote_share;
  out.messages_per_phase = out.tokens_per_rank * out.remote_copies_per_token;
  out.dispatch_sent = out.dispatch_message * out.messages_per_phase;
  out.combine_sent = out.combine_message * out.messages_per_phase;
  out.imbalance_given = settings.routing_imbalance.has_value();
  out.imbalance = settings.routing_imbalance.value_or(uniform_routing_imbalance(
      moe->routed_experts, moe->experts_per_token, layout.ep, out.tokens_per_rank));
  return out;
}

Bytes deepep_low_latency_buffer(const ModelArch& model, const ExpertAllToAllSettings& settings,
                                int ranks) {
  const MoeSpec* moe = first_moe(model.layers);
  if (moe == nullptr || ranks <= 1) return {};
  const long long carried = moe->latent_size > 0 ? moe->latent_size : model.hidden_size;
  const auto width = static_cast<double>(carried);
  const auto scales = static_cast<double>(scales_of(carried));
  const double experts = moe->routed_experts;
  const auto tokens = static_cast<double>(settings.max_tokens_per_rank);
  // DeepEP's LowLatencyLayout: a dispatch slot fits a BF16 or an FP8 message,
  // a combine slot a BF16 row and its per-128-channel min/max.
  const double dispatch_slot =
      kDeepEpHeaderBytes + std::max(width * kDeepEpBf16Bytes, width + scales * kDeepEpScaleBytes);
  const double combine_slot = scales * kDeepEpScaleBytes + width * kDeepEpBf16Bytes;
  const double send = std::max(tokens * dispatch_slot, experts * tokens * combine_slot);
  const double receive =
      std::max(experts * tokens * dispatch_slot, experts * tokens * combine_slot);
  const double signaling =
      std::ceil(experts * 4.0 / kDeepEpBufferAlignment) * kDeepEpBufferAlignment;
  // Odd and even buffers of each, for back-to-back layers.
  const double rdma = std::ceil(2.0 * (send + receive + signaling) / kDeepEpBufferAlignment) *
                      kDeepEpBufferAlignment;
  return Bytes(rdma) + settings.nvlink_buffer;
}

}  // namespace tpnet
