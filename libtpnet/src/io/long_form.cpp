#include "io/long_form.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "tpnet/base/error.hpp"
#include "tpnet/io/document_render.hpp"

namespace tpnet {
namespace {

std::string escaped(const std::string& s) { return xml_escaped(s); }

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

constexpr const char* kStyle =
    "body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;color:#222;max-width:820px;"
    "margin:24px auto;padding:0 16px;line-height:1.45}"
    "h1{font-size:24px}h2{font-size:19px;border-bottom:1px solid #ccc;padding-bottom:4px;"
    "margin-top:32px}"
    ".verdict{background:#eef4f9;border-left:4px solid #0072B2;padding:8px 16px}"
    "figure{margin:16px 0}figcaption{color:#444;font-size:14px}"
    "svg{max-width:100%;height:auto}"
    "table{border-collapse:collapse;font-size:13px;margin:8px 0}"
    "th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}"
    "th{background:#f2f2f2}code,pre{background:#f6f6f6;font-size:13px}"
    "pre{padding:8px;white-space:pre-wrap;word-break:break-all}";

void html_table(std::string& out, const DocumentTable& t) {
  out += "<table>\n<tr>";
  for (const auto& h : t.header) out += "<th>" + escaped(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const auto& c : row) out += "<td>" + escaped(c) + "</td>";
    out += "</tr>\n";
  }
  out += "</table>\n";
}

void markdown_table(std::string& out, const DocumentTable& t) {
  out += "|";
  for (const auto& h : t.header) out += " " + markdown_cell(h) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) out += " --- |";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& c : row) out += " " + markdown_cell(c) + " |";
    out += "\n";
  }
  out += "\n";
}

}  // namespace

std::string figure_file_name(const std::string& stem, const std::string& name,
                             const std::string& svg) {
  // Named by its content, so that a report written while another run writes
  // the same --out links only to its own charts (no rename can replace a
  // Markdown file and its SVGs as one). FNV-1a over the SVG text: stable
  // across runs and machines, unlike std::hash.
  constexpr std::uint64_t kOffset = 14695981039346656037ULL;
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t hash = kOffset;
  for (const char c : svg) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kPrime;
  }
  constexpr int kShownBits = 48;  // 12 hex digits: a clash needs ~16M versions of one chart
  return fmt::format("{}-{}-{:012x}.svg", stem, name, hash >> (64 - kShownBits));
}

std::string render_long_form_html(const Document& doc) {
  if (doc.sections.empty()) throw Error("html renders only a document with sections");
  std::string out =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width\"/>\n";
  out += "<title>" + escaped(doc.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n";
  out += "<body>\n<h1>" + escaped(doc.title) + "</h1>\n<div class=\"verdict\">\n";
  for (const auto& p : doc.answer) out += "<p>" + escaped(p) + "</p>\n";
  out += "</div>\n";
  for (const auto& s : doc.sections) {
    out += "<h2>" + escaped(s.heading) + "</h2>\n";
    for (const auto& p : s.paragraphs) out += "<p>" + escaped(p) + "</p>\n";
    for (const auto& f : s.figures) {
      out +=
          "<figure>\n" + f.svg + "<figcaption>" + escaped(f.caption) + "</figcaption>\n</figure>\n";
    }
    for (const auto& t : s.tables) html_table(out, t);
    if (s.items.empty()) continue;
    if (s.code) {
      out += "<pre>";
      for (const auto& i : s.items) out += escaped(i) + "\n";
      out += "</pre>\n";
    } else {
      out += "<ul>\n";
      for (const auto& i : s.items) out += "<li>" + escaped(i) + "</li>\n";
      out += "</ul>\n";
    }
  }
  out += "</body>\n</html>\n";
  return out;
}

std::string render_long_form_markdown(const Document& doc) {
  std::string out = "# " + doc.title + "\n\n";
  for (const auto& p : doc.answer) out += "> " + p + "\n>\n";
  if (!doc.answer.empty()) out.resize(out.size() - 2);
  out += "\n";
  for (const auto& s : doc.sections) {
    out += "## " + s.heading + "\n\n";
    for (const auto& p : s.paragraphs) out += p + "\n\n";
    for (const auto& f : s.figures) {
      out += fmt::format("![{}]({})\n\n{}\n\n", f.caption, f.file, f.caption);
    }
    for (const auto& t : s.tables) markdown_table(out, t);
    if (s.items.empty()) continue;
    if (s.code) {
      out += "```\n";
      for (const auto& i : s.items) out += i + "\n";
      out += "```\n\n";
    } else {
      for (const auto& i : s.items) out += "- " + i + "\n";
      out += "\n";
    }
  }
  return out;
}

}  // namespace tpnet
