#pragma once
// `--vllm-args "vllm serve MODEL --tensor-parallel-size 8 ..."`: the engine
// settings of a vllm serve command line, turned into the subcommand's own
// flags before it parses them, so every command reads them in one place.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace tpnet::cli {

/// Appends to `args` (the subcommand's name, then its arguments) the flags
/// the `--vllm-args` value maps to (tpnet::parse_vllm_serve). A flag the user
/// gave wins over the vLLM value, with a note; settings the subcommand has no
/// flag for, and vLLM flags tpnet does not model, are noted. The model it
/// names is used only when it is a local path and no --model was given.
/// Returns the notes; throws InputError naming `vllm_args`.
std::vector<std::string> expand_vllm_args(const CLI::App& subcommand,
                                          std::vector<std::string>& args);

/// Adds `--vllm-args` to a subcommand (the value is read by expand_vllm_args).
void add_vllm_args_option(CLI::App* app, std::string& value);

}  // namespace tpnet::cli
