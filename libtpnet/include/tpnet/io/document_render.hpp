#pragma once
/// Renders a Document as a terminal table, JSON, CSV, Markdown or HTML, and
/// the number and text formats every output shares. Pure: the terminal's
/// width comes in a TextLayout.

#include <cstddef>
#include <string>
#include <string_view>

#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/document.hpp"

namespace tpnet {

/// html renders only long-form documents (with sections); --format never
/// offers it to the commands that print fields.
enum class Format { table, json, csv, markdown, html };
/// "table", "json", "csv", "markdown" or "html"; InputError naming
/// `output.format` otherwise.
[[nodiscard]] Format parse_format(std::string_view name);

/// How a table-format output fits the screen: every line at most `width`
/// characters; prose wraps with a hanging indent, table rows never wrap (the
/// columns that do not fit are left out and named), `wide` shows every column.
inline constexpr std::size_t kDefaultTextWidth = 100;
struct TextLayout {
  std::size_t width = kDefaultTextWidth;
  bool wide = false;
  /// How the caller asks for every column, named under a table that left
  /// some out ("--wide" in tpnet's CLI).
  std::string show_every_column = "a wider layout";
};

/// Characters `text` takes on a terminal: UTF-8 sequences count once.
[[nodiscard]] std::size_t display_width(std::string_view text);

/// `first` then `text`, broken at spaces into lines of at most `width`
/// characters; lines after the first start with `hang` spaces. A word longer
/// than a line is cut. Each line ends with a newline.
[[nodiscard]] std::string wrap(std::string_view first, std::string_view text, std::size_t hang,
                               std::size_t width);

/// A number as JSON and CSV print it: whole values without a fraction, others
/// with up to 12 significant digits. Throws tpnet::Error for NaN or infinity.
std::string format_number(double value, std::string_view what);
/// The same, appended to `out` without a temporary string.
void append_number(std::string& out, double value, std::string_view what);

/// A JSON string literal with escapes.
std::string json_string(std::string_view text);

/// `<stem>-<name>-<hash>.svg`: the file a long-form document's chart is
/// written to beside its Markdown, named by its content.
std::string figure_file_name(const std::string& stem, const std::string& name,
                             const std::string& svg);

/// Text made safe for XML character data and attribute values.
[[nodiscard]] std::string xml_escaped(const std::string& text);

/// Renders `doc`; throws tpnet::Error if a number is NaN or infinite, so no
/// such value ever reaches a user, and for html of a document without sections.
std::string render(const Document& doc, Format format, const TextLayout& layout = {});

}  // namespace tpnet
