#pragma once
/// Engine settings read from a `vllm serve` command line, by vLLM's flag
/// names, as request fields (docs/engine.md, "A vllm serve command line").
/// Nothing is fetched: the model it names is only reported.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpnet {

/// One vLLM flag tpnet models, as the request field it sets.
struct VllmSetting {
  std::string field;      ///< e.g. "engine.max_num_batched_tokens", "layout.tp"
  std::string value;      ///< in the form tpnet's field takes ("fp8", "4096"); "" for a switch
  std::string vllm_flag;  ///< as written, e.g. "--max-num-batched-tokens 4096"
};

/// A vLLM flag tpnet does not model, kept so it can be reported.
struct VllmIgnored {
  std::string vllm_flag;  ///< as written, with its value
  std::string reason;     ///< why tpnet does not use it
};

struct VllmServeCommand {
  std::optional<std::string> model;   ///< the MODEL positional or --model, as written
  std::vector<VllmSetting> settings;  ///< in command-line order, one per field
  std::vector<VllmIgnored> ignored;   ///< flags tpnet does not model
};

/// Reads `vllm serve MODEL --flag value ...` (also `python -m
/// vllm.entrypoints.openai.api_server --model MODEL ...`, or flags alone),
/// split as split_shell_commands does; in a script, the first command that
/// starts vLLM. `--flag=value`, underscores for dashes and vLLM's short
/// forms (-tp, -pp, -dp, -ep, -q) are accepted. Maps:
/// tensor/pipeline-parallel size, expert parallelism (ep = tp x dp),
/// max-num-batched-tokens, long-prefill-token-threshold, max-num-seqs,
/// speculative tokens (--speculative-config JSON or --num-speculative-tokens),
/// gpu-memory-utilization, kv-cache-dtype, max-model-len, enforce-eager,
/// quantization and dtype. Throws InputError naming `vllm_args` for an
/// unclosed quote, a flag without its value, a value vLLM would refuse, or a
/// flag given twice with two values.
[[nodiscard]] VllmServeCommand parse_vllm_serve(std::string_view command_line);

/// Shell text split into commands (at newlines, `;`, `&`, `|`) and each
/// command into words as a POSIX shell splits them: quotes, backslashes, line
/// continuations, `#` comments; redirections (`> log`, `2>&1`) are dropped.
/// Nothing is expanded (`$MODEL` stays as written).
[[nodiscard]] std::vector<std::vector<std::string>> split_shell_commands(std::string_view text);

}  // namespace tpnet
