#include "tpnet/sim/decode_floor.hpp"

#include "tpnet/model/weights.hpp"

namespace tpnet {

Bytes logits_gather_bytes(const ModelArch& model, const EngineConfig& engine, int tp,
                          TokenCount tokens) {
  const double logits_full =
      static_cast<double>(tokens) * static_cast<double>(model.vocab_size) * engine.activation_bytes;
  return Bytes(logits_full * (tp - 1) / tp);
}

Seconds weight_read_floor(const ModelArch& model, int nodes, BitRate bandwidth) {
  const Bytes per_node = active_weight_bytes(model) / static_cast<double>(nodes);
  return Seconds(per_node.count() / bandwidth.bytes_per_second());
}

}  // namespace tpnet
