// The chart module (cli/chart.hpp): ticks, units, refusals and layout rules
// that a reader relies on; docs/charts.md.

#include <regex>
#include <string>
#include <vector>

#include "catch.hpp"
#include "chart.hpp"
#include "cli_checks.hpp"
#include "tpnet/base/error.hpp"

using namespace tpnet::cli::chart;
using tpnet::test::count_of;

namespace {

Figure bars_figure(std::vector<std::string> categories, const std::vector<double>& values) {
  Figure f;
  f.title = "extra TTFT";
  Panel p;
  p.kind = Panel::Kind::bars;
  p.y = Axis{"extra TTFT", "s", {}, {}};
  p.categories = std::move(categories);
  BarSeries s{"bound", {}, {}};
  for (const double v : values) s.values.emplace_back(v);
  p.bars.push_back(s);
  f.panels.push_back(p);
  return f;
}

/// The y attribute of the <text> element holding `label`.
double text_y(const std::string& svg, const std::string& label) {
  const std::regex pattern("<text x=\"[-0-9.]+\" y=\"([-0-9.]+)\"[^>]*>" + label + "</text>");
  std::smatch m;
  REQUIRE(std::regex_search(svg, m, pattern));
  return std::stod(m[1].str());
}

}  // namespace

TEST_CASE("nice_ticks steps by 1, 2 or 5 times a power of ten and covers the range", "[chart]") {
  CHECK(nice_ticks(0.0, 8.85, 7) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(nice_ticks(0.0, 1.0, 6) == std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1});
  const auto bytes = nice_ticks(0.0, 3.6e6, 6);
  CHECK(bytes.front() == 0.0);
  CHECK(bytes.back() >= 3.6e6);
  CHECK(bytes[1] - bytes[0] == 1e6);
  const auto negative = nice_ticks(-0.04, 0.13, 6);
  CHECK(negative.front() <= -0.04);
  CHECK(negative.back() >= 0.13);
  CHECK(negative.size() <= 6);
  CHECK_THROWS_AS(nice_ticks(0.0, std::nan(""), 5), tpnet::Error);
}

TEST_CASE("a chart axis names its quantity and its prefixed unit", "[chart]") {
  const std::string svg = render_svg(bars_figure({"P1", "P2"}, {0.14, 0.45}));
  CHECK_THAT(svg, ContainsSubstring(">extra TTFT (ms)</text>"));
  const std::string seconds = render_svg(bars_figure({"P1", "P5"}, {0.14, 8.85}));
  CHECK_THAT(seconds, ContainsSubstring(">extra TTFT (s)</text>"));
}

TEST_CASE("every bar carries a hover title with its value and unit", "[chart]") {
  const std::string svg = render_svg(bars_figure({"P1", "P2", "P3"}, {0.14, 1.11, 4.43}));
  CHECK(count_of(svg, "<title>P") == 3);
  CHECK_THAT(svg, ContainsSubstring("<title>P2, bound: 1.11 s</title>"));
  CHECK_THAT(svg, ContainsSubstring(">bound</text>"));  // the legend
}

TEST_CASE("charts refuse numbers that are not finite and series that do not match", "[chart]") {
  CHECK_THROWS_AS(render_svg(bars_figure({"P1"}, {std::nan("")})), tpnet::Error);
  CHECK_THROWS_AS(render_svg(bars_figure({"P1"}, {HUGE_VAL})), tpnet::Error);
  Figure f = bars_figure({"P1", "P2"}, {1.0, 2.0});
  f.panels[0].bars[0].values.pop_back();
  CHECK_THROWS_AS(render_svg(f), tpnet::Error);
  Figure line;
  Panel p;
  p.kind = Panel::Kind::line;
  p.lines.push_back(LineSeries{"TP4", {Point{1.0, std::nan(""), ""}}, false, true});
  line.panels.push_back(p);
  CHECK_THROWS_AS(render_svg(line), tpnet::Error);
}

TEST_CASE("text from the inputs is escaped for XML", "[chart]") {
  Figure f = bars_figure({"<P1 & co>"}, {1.0});
  f.title = "a \"quoted\" <title>";
  const std::string svg = render_svg(f);
  CHECK_THAT(svg, ContainsSubstring("&lt;P1 &amp; co&gt;"));
  CHECK_THAT(svg, ContainsSubstring("a &quot;quoted&quot; &lt;title&gt;"));
  CHECK(svg.find("<P1") == std::string::npos);
}

TEST_CASE("annotation labels at one height are moved apart instead of overlapping", "[chart]") {
  Figure f = bars_figure({"TP8", "TP16"}, {50e9, 60e9});
  f.panels[0].y = Axis{"memory", "B", {}, {}};
  f.panels[0].annotations = {{Annotation::Kind::y_line, 100e9, 0.0, "budget A"},
                             {Annotation::Kind::y_line, 100e9, 0.0, "budget B"}};
  const std::string svg = render_svg(f);
  const double a = text_y(svg, "budget A");
  const double b = text_y(svg, "budget B");
  CHECK(std::abs(a - b) >= 11.0);  // at least one line of 11 px text apart
}

TEST_CASE("long category labels are turned so they do not run into each other", "[chart]") {
  const std::string narrow = render_svg(bars_figure({"P1", "P2"}, {1.0, 2.0}));
  CHECK(narrow.find("rotate(-35") == std::string::npos);
  std::vector<std::string> many;
  std::vector<double> values;
  for (int i = 0; i < 16; ++i) {
    many.push_back("TP" + std::to_string(i) + " (does not fit)");
    values.push_back(i);
  }
  CHECK_THAT(render_svg(bars_figure(many, values)), ContainsSubstring("rotate(-35"));
}

TEST_CASE("neighbouring series differ beyond colour: hatch patterns and dashes", "[chart]") {
  Figure f = bars_figure({"P1"}, {1.0});
  f.panels[0].bars.push_back(BarSeries{"predicted", {2.0}, {}});
  const std::string svg = render_svg(f);
  CHECK_THAT(svg, ContainsSubstring("<pattern id="));
  CHECK(std::string(series_colour(0)) != series_colour(1));
  Figure lines;
  Panel p;
  p.kind = Panel::Kind::line;
  p.lines.push_back(LineSeries{"TP1", {Point{1, 1, ""}, Point{2, 2, ""}}, false, true});
  p.lines.push_back(LineSeries{"TP2", {Point{1, 2, ""}, Point{2, 3, ""}}, false, true});
  lines.panels.push_back(p);
  CHECK_THAT(render_svg(lines), ContainsSubstring("stroke-dasharray=\"7 4\""));
}
