#pragma once
/// What prefill/decode disaggregation moves per request: the prompt's KV
/// cache from the prefill instance's ranks to the decode instance's, in the
/// engine's blocks (docs/formulas.md s.32). Priced in
/// tpnet/sim/kv_transfer_time.hpp.

#include "tpnet/base/units.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet {

struct KvTransferSettings {
  TokenCount block_size = 16;  ///< vLLM's --block-size: tokens per KV block
  int kv_dtype_bytes = 2;      ///< --kv-cache-dtype: bf16 2, fp8 1
};

/// One request's KV cache handed from prefill to decode.
struct KvTransfer {
  TokenCount prompt_tokens = 0;
  TokenCount block_tokens = 0;  ///< the prompt rounded up to whole blocks
  long long blocks = 0;
  int prefill_tp = 1;
  int decode_tp = 1;
  Bytes per_decode_rank;   ///< what one decode rank receives: its own cache of the prompt
  Bytes per_prefill_rank;  ///< what one prefill rank sends: the total over the prefill ranks
  Bytes total;             ///< every decode rank's, together
  /// Regions one decode rank reads: one per block of each layer that caches
  /// tokens, one per layer that keeps a fixed state (linear attention, Mamba).
  long long descriptors_per_decode_rank = 0;
};

/// Throws InputError naming `disaggregation.prefill_tp`, `.decode_tp`,
/// `workload.prompt_tokens` or `engine.block_size` when below 1, and as
/// sequence_state does when the model lacks its attention shapes.
[[nodiscard]] KvTransfer kv_transfer(const ModelArch& model, int prefill_tp, int decode_tp,
                                     TokenCount prompt_tokens, const KvTransferSettings& settings);

}  // namespace tpnet
