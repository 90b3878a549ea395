#pragma once
// The library names request fields (`engine.max_num_batched_tokens`, the plan
// file's keys); the command line names flags. This is the one table between
// the two, applied where errors and warnings leave the CLI.

#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet::cli {

/// How a subcommand's messages name request fields.
enum class FieldNames {
  flags,      ///< as the flags that set them (--chunk); every command but check
  plan_keys,  ///< as the plan file's keys (engine.max_num_batched_tokens); tpnet check
};

/// The flag that sets `field`, or `field` itself when no flag does.
[[nodiscard]] std::string flag_for(std::string_view field);

/// `text` with every `field` in backticks named as `names` says: its flag,
/// or the bare key. Backticked text that is not a field keeps its backticks.
[[nodiscard]] std::string name_fields(std::string_view text, FieldNames names);

/// name_fields on a document's answer, title, warnings, every text field and
/// its sections' prose and table cells (a use case words a hint with the
/// field it means: `nccl.size`).
void name_document_fields(Document& doc, FieldNames names);

/// The one line an InputError prints: "file:line: key: detail", with the key
/// and the fields in the detail named as `names` says.
[[nodiscard]] std::string error_line(const InputError& error, FieldNames names);

}  // namespace tpnet::cli
