#include "svg_output.hpp"

#include "tpnet/io/output_file.hpp"

namespace tpnet::cli {

CLI::Validator output_path_given() {
  return {[](const std::string& text) -> std::string {
            return text.empty() ? "an empty path; give the file to write" : "";
          },
          "", "output path"};
}

void add_svg_option(CLI::App* app, std::string& path, const std::string& what) {
  app->add_option("--svg", path, "Write an SVG chart of " + what + " to this file")
      ->check(output_path_given());
}

void check_svg_path(const std::string& path) {
  if (!path.empty()) check_output_path(path, "--svg");
}

void write_svg(const std::string& path, const std::string& svg, Document& doc) {
  if (path.empty()) return;
  write_file_atomically(path, svg, "--svg");
  doc.fields.push_back(text("svg", "chart written to", path));
}

void write_svg(const std::string& path, const chart::Figure& figure, Document& doc) {
  if (path.empty()) return;
  write_svg(path, chart::render_svg(figure), doc);
}

}  // namespace tpnet::cli
