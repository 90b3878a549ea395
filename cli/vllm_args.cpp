#include "vllm_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "field_flags.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/vllm_serve.hpp"

namespace tpnet::cli {
namespace {

constexpr std::string_view kFlag = "--vllm-args";

/// Whether the user wrote any name of `option` among `args`.
bool given(const CLI::Option& option, const std::vector<std::string>& args) {
  std::vector<std::string> names;
  for (const auto& n : option.get_lnames()) names.push_back("--" + n);
  for (const auto& n : option.get_snames()) names.push_back("-" + n);
  for (const auto& a : args) {
    for (const auto& n : names) {
      if (a == n || (a.size() > n.size() && a.compare(0, n.size() + 1, n + "=") == 0)) return true;
    }
  }
  return false;
}

}  // namespace

void add_vllm_args_option(CLI::App* app, std::string& value) {
  app->add_option(std::string(kFlag), value,
                  "A vllm serve command line, e.g. \"vllm serve MODEL --tensor-parallel-size 8 "
                  "--max-num-batched-tokens 4096\": its engine settings, by vLLM's names; flags "
                  "given here win. The model is read only from a local path (nothing is fetched)")
      ->group("Engine (vLLM names)");
}

std::vector<std::string> expand_vllm_args(const CLI::App& subcommand,
                                          std::vector<std::string>& args) {
  std::optional<std::string> text;
  for (std::size_t i = 1; i < args.size(); ++i) {
    std::optional<std::string> value;
    if (args[i] == kFlag && i + 1 < args.size()) {
      value = args[i + 1];
    } else if (args[i].rfind(std::string(kFlag) + "=", 0) == 0) {
      value = args[i].substr(kFlag.size() + 1);
    }
    if (!value) continue;
    if (text)
      throw InputError("is given twice; give one command line",
                       InputLocation::for_key("vllm_args"));
    text = value;
  }
  if (!text) return {};
  const VllmServeCommand vllm = parse_vllm_serve(*text);
  const std::vector<std::string> user(args.begin() + 1, args.end());
  std::vector<std::string> notes;
  std::vector<std::string> extra;

  const CLI::Option* model_option = subcommand.get_option_no_throw("--model");
  if (vllm.model && model_option != nullptr) {
    std::error_code ec;
    if (given(*model_option, user)) {
      notes.push_back(
          fmt::format("{}: its model '{}' is not read; --model is used", kFlag, *vllm.model));
    } else if (std::filesystem::exists(*vllm.model, ec)) {
      extra.insert(extra.end(), {"--model", *vllm.model});
    } else {
      throw InputError(
          fmt::format("names the model '{}', which is not a local path, and tpnet fetches "
                      "nothing: give `model` (a built-in name from tpnet models, or the "
                      "checkpoint's config.json or its folder)",
                      *vllm.model),
          InputLocation::for_key("vllm_args"));
    }
  }
  // Data parallelism is said twice: as vLLM's two settings for a command that
  // runs DP ranks (predict), else folded into `layout.ep` and a note.
  const bool runs_data_parallel = subcommand.get_option_no_throw("--data-parallel-size") != nullptr;
  const auto said_otherwise = [&](const std::string& field) {
    const bool data_parallel_field =
        field == "layout.data_parallel_size" || field == "layout.enable_expert_parallel";
    return runs_data_parallel ? field == "layout.ep" : data_parallel_field;
  };
  for (const VllmSetting& s : vllm.settings) {
    const std::string flag = flag_for(s.field);
    const CLI::Option* option = subcommand.get_option_no_throw(flag);
    if (said_otherwise(s.field)) continue;
    if (option == nullptr || flag == s.field) {
      notes.push_back(
          fmt::format("{}: {} is not used by tpnet {}", kFlag, s.vllm_flag, subcommand.get_name()));
      continue;
    }
    if (given(*option, user)) {
      notes.push_back(
          fmt::format("{}: {} is given, so its {} is not used", kFlag, flag, s.vllm_flag));
      continue;
    }
    const auto& excludes = option->get_excludes();
    const auto excluded =
        std::find_if(excludes.begin(), excludes.end(),
                     [&](const CLI::Option* other) { return given(*other, user); });
    if (excluded != excludes.end()) {
      notes.push_back(fmt::format("{}: {} is given, so its {} is not used", kFlag,
                                  (*excluded)->get_name(), s.vllm_flag));
      continue;
    }
    extra.push_back(flag);
    if (!s.value.empty()) extra.push_back(s.value);
  }
  std::map<std::string, std::string> by_reason;
  for (const VllmIgnored& i : vllm.ignored) {
    if (runs_data_parallel && i.vllm_flag.rfind("--data-parallel-size", 0) == 0) continue;
    std::string& list = by_reason[i.reason];
    list += (list.empty() ? "" : ", ") + i.vllm_flag;
  }
  for (const auto& [reason, list] : by_reason) {
    notes.push_back(fmt::format("{}: ignores {} ({})", kFlag, list, reason));
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return notes;
}

}  // namespace tpnet::cli
