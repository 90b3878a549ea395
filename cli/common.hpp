#pragma once
// What every subcommand shares: the Command shape, the output format flag,
// and the engine/model/link flags named as vLLM names them.

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>

#include "document.hpp"
#include "tpnet/engine.hpp"
#include "tpnet/link.hpp"
#include "tpnet/model.hpp"

namespace tpnet::cli {

/// A registered subcommand and the function that answers it.
struct Command {
  CLI::App* app = nullptr;
  std::function<Document()> run;
  std::shared_ptr<const std::string> format;  ///< --format, owned with the options
};

/// Adds --format table|json|csv|markdown.
void add_format_option(CLI::App* app, std::string& format);

struct EngineOptions {
  std::string model;
  int tp = 0;
  std::string chunk = "4096";
  std::string long_prefill_threshold;
  int max_num_seqs = 256;
  int spec_tokens = 0;
  int activation_bytes = 2;
  int allreduces_per_layer = 2;
  int extra_allreduces = 1;
  std::string algorithm = "ring";
  std::string base_latency;
  std::string step_latency;
};

/// --model, --tp and the engine settings; `decode` adds nothing here but
/// shows --spec-tokens in the subcommand's own help group.
void add_engine_options(CLI::App* app, EngineOptions& options);

[[nodiscard]] ModelArch load_model(const EngineOptions& options);
[[nodiscard]] EngineConfig to_engine(const EngineOptions& options);
/// Parses a link flag and applies --base-latency/--step-latency overrides.
[[nodiscard]] Link to_link(const std::string& text, const std::string& flag,
                           const EngineOptions& options);

/// "glm-5.3 at TP8 (ring all-reduce)"
[[nodiscard]] std::string describe(const ModelArch& model, const EngineConfig& engine);

/// One table line: "200G (200 Gb/s; latency 6.6 us + 2.7 us per step)".
[[nodiscard]] Field link_summary(std::string label, const Link& link);
/// Link as a JSON record: name, link_bps, latencies.
[[nodiscard]] Field link_record(std::string key, std::string label, const Link& link);

Command setup_bytes(CLI::App& app);
Command setup_penalty(CLI::App& app);
Command setup_decode(CLI::App& app);
Command setup_link(CLI::App& app);
Command setup_models(CLI::App& app);

}  // namespace tpnet::cli
