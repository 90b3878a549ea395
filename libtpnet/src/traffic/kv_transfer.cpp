#include "tpnet/traffic/kv_transfer.hpp"

#include "tpnet/base/error.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "tpnet/model/layer_plan.hpp"

namespace tpnet {

KvTransfer kv_transfer(const ModelArch& model, int prefill_tp, int decode_tp,
                       TokenCount prompt_tokens, const KvTransferSettings& settings) {
  require_field(prefill_tp >= 1, "disaggregation.prefill_tp", "must be at least 1");
  require_field(decode_tp >= 1, "disaggregation.decode_tp", "must be at least 1");
  require_field(prompt_tokens >= 1, "workload.prompt_tokens", "must be at least 1 token");
  require_field(settings.block_size >= 1, "engine.block_size", "must be at least 1 token");
  KvTransfer out;
  out.prompt_tokens = prompt_tokens;
  out.prefill_tp = prefill_tp;
  out.decode_tp = decode_tp;
  out.blocks = (prompt_tokens + settings.block_size - 1) / settings.block_size;
  out.block_tokens = out.blocks * settings.block_size;
  // Each decode rank pulls the cache it will attend with: its heads' share
  // under GQA, the whole latent under MLA (every rank holds it). The blocks
  // go whole, the unused slots of the last one too.
  out.per_decode_rank =
      sequence_state(model, decode_tp, settings.kv_dtype_bytes, out.block_tokens).total();
  out.total = out.per_decode_rank * static_cast<double>(decode_tp);
  out.per_prefill_rank = out.total / static_cast<double>(prefill_tp);
  const LayerTally layers = tally_layers(model);
  const long long caching = layers.attention + layers.sliding + layers.chunked;
  out.descriptors_per_decode_rank = out.blocks * caching + layers.linear + layers.mamba;
  return out;
}

}  // namespace tpnet
