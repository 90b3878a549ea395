#pragma once
// The long-form renderers behind render(): a document with sections as one
// self-contained HTML page or as Markdown linking its charts' files.

#include <string>

#include "tpnet/usecase/document.hpp"

namespace tpnet {

[[nodiscard]] std::string render_long_form_html(const Document& doc);
[[nodiscard]] std::string render_long_form_markdown(const Document& doc);

}  // namespace tpnet
