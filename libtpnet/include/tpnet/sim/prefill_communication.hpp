#pragma once
/// A prompt's communication at two links through vLLM's scheduler: what the
/// second link adds to the last first token, its range over the profiles'
/// measurements and its achieved-rate bound (docs/formulas.md s.25, s.29).

#include "tpnet/base/quantity.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/model/engine.hpp"
#include "tpnet/model/model.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

namespace tpnet {

/// A prompt scenario's communication at two links, step by step through the
/// scheduler until its last first token. Compute is the same at both links
/// (the same steps carry the same tokens), so `extra` is what the second
/// link adds to the last first token: predict's extra_last_first_token
/// without overlap, and penalty's predicted column.
struct PrefillCommunication {
  Seconds from;
  Seconds to;
  Seconds extra;  ///< to - from
  /// `extra` at the two ends of what the profiles measured (s.29).
  ExtraRange extra_range;
  int steps = 0;  ///< steps until the last first token
  /// The achieved-rate bound of `extra` (s.25): every all-reduce's sent bytes
  /// at the largest per-byte gap of the two profiles (`gap`), plus what `to`
  /// adds in fixed cost; never below `extra`.
  Seconds bound;
  PerByteGap gap;
};

/// All `prompt.requests` arrive at once with `output_tokens` each; decodes
/// of requests that finished their prompts share the steps (1 + drafts
/// tokens, `accepted_tokens` yielded each). `with_range`: also the extra at
/// the ends of the profiles' measurements (s.29; two more schedules), else
/// `extra_range` is `extra` at both ends.
[[nodiscard]] PrefillCommunication prefill_communication(
    const ModelArch& model, const EngineConfig& engine, const FabricProfile& from,
    const FabricProfile& to, const PromptSpec& prompt, TokenCount output_tokens,
    double accepted_tokens, bool with_range = false);

}  // namespace tpnet
