#include "chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity_text.hpp"
#include "tpnet/io/document_render.hpp"

namespace tpnet::cli::chart {
namespace {

constexpr double kTitlePx = 16.0;
constexpr double kTextPx = 12.0;
constexpr double kSmallPx = 11.0;
constexpr double kLinePlotHeight = 250.0;
constexpr double kRowHeight = 18.0;
constexpr double kRightMargin = 24.0;
constexpr double kOuterMargin = 16.0;
constexpr double kLabelAngleDeg = 35.0;
constexpr double kMaxCategoryLabelPx = 180.0;
constexpr const char* kFont = "DejaVu Sans, Verdana, Arial, sans-serif";
constexpr const char* kInk = "#222222";
constexpr const char* kGrid = "#e4e4e4";
constexpr const char* kNoteInk = "#444444";

// Okabe & Ito (2008); yellow last: weak on white.
constexpr std::array<const char*, 8> kPalette{"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                              "#CC79A7", "#56B4E9", "#000000", "#F0E442"};
// Lines also differ by dash and marker so they survive greyscale print.
constexpr std::array<const char*, 5> kDashes{"", "7 4", "2 3", "9 3 2 3", "4 2 1 2"};

void require_finite(double value, std::string_view what) {
  if (!std::isfinite(value)) {
    throw Error(fmt::format("chart: {} is not a finite number", what));
  }
}

struct Scale {
  double d0 = 0.0;
  double d1 = 1.0;
  double r0 = 0.0;
  double r1 = 1.0;
  [[nodiscard]] double at(double v) const { return r0 + (v - d0) / (d1 - d0) * (r1 - r0); }
};

/// An axis' ticks and the prefix they are printed in.
struct Ticks {
  std::vector<double> values;
  int exponent = 0;
  int decimals = 0;
  [[nodiscard]] std::string label(double v) const {
    return fixed_decimals(v / std::pow(10.0, exponent), decimals);
  }
};

Ticks make_ticks(double lo, double hi, int max_ticks, const std::string& unit) {
  Ticks t;
  t.values = nice_ticks(lo, hi, max_ticks);
  const double step = t.values.size() > 1 ? t.values[1] - t.values[0] : 1.0;
  const double magnitude = std::max(std::fabs(t.values.front()), std::fabs(t.values.back()));
  t.exponent = si_prefix_exponent(magnitude, unit);
  const double scaled_step = step / std::pow(10.0, t.exponent);
  t.decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(scaled_step) - 1e-9)));
  return t;
}

std::string axis_title(const Axis& axis, int exponent) {
  const std::string unit = si_prefixed_unit(exponent, axis.unit);
  if (unit.empty()) return axis.quantity;
  return fmt::format("{} ({})", axis.quantity, unit);
}

/// [lo, hi] covering the values, zero included unless the axis says otherwise.
std::pair<double, double> domain_of(const std::vector<double>& values, const Axis& axis,
                                    bool include_zero) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  for (const double v : values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (values.empty()) {
    lo = 0.0;
    hi = 1.0;
  }
  if (include_zero) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  if (axis.min) lo = *axis.min;
  if (axis.max) hi = *axis.max;
  if (hi <= lo) {
    const double pad = lo == 0.0 ? 1.0 : std::fabs(lo) * 0.1;
    hi = lo + pad;
    if (!include_zero && !axis.min) lo -= pad;
  }
  return {lo, hi};
}

std::vector<std::string> wrapped(const std::string& text, double width, double font_px) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    std::string candidate = line;
    if (!candidate.empty()) candidate += ' ';
    candidate += word;
    if (!line.empty() && text_width(candidate, font_px) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = candidate;
    }
    start = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

/// A label cut to `width` with an ellipsis (its full text goes in a <title>).
std::string shortened(const std::string& text, double width, double font_px) {
  if (text_width(text, font_px) <= width) return text;
  std::string out = text;
  while (!out.empty() && text_width(out + "...", font_px) > width) out.pop_back();
  return out + "...";
}

struct Box {
  double x0, y0, x1, y1;
  [[nodiscard]] bool overlaps(const Box& o) const {
    return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1;
  }
};

class Svg {
 public:
  std::string body;
  std::string defs;
  double y = 0.0;  ///< where the next block starts

  void text(double x, double y_px, const std::string& s, double px,
            std::string_view anchor = "start", std::string_view extra = "") {
    body +=
        fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.0f}\"{}{}{}>{}</text>\n", x,
                    y_px, px, anchor == "start" ? "" : fmt::format(" text-anchor=\"{}\"", anchor),
                    extra.empty() ? "" : " ", extra, xml_escaped(s));
  }
  void line(double x0, double y0, double x1, double y1, std::string_view stroke, double width,
            std::string_view dash = "") {
    body += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
        "stroke-width=\"{:.1f}\"{}/>\n",
        x0, y0, x1, y1, stroke, width,
        dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", dash));
  }
};

std::string title_element(const std::string& hover) {
  return hover.empty() ? "" : "<title>" + xml_escaped(hover) + "</title>";
}

std::string marker(std::size_t index, double x, double y, const char* colour,
                   const std::string& hover) {
  const std::string tip = title_element(hover);
  switch (index % 4) {
    case 0:
      return fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\">{}</circle>\n",
                         x, y, colour, tip);
    case 1:
      return fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"7\" height=\"7\" fill=\"{}\">{}</rect>\n",
          x - 3.5, y - 3.5, colour, tip);
    case 2:
      return fmt::format("<path d=\"M{:.1f},{:.1f} l4,7 h-8 z\" fill=\"{}\">{}</path>\n", x,
                         y - 4.5, colour, tip);
    default:
      return fmt::format("<path d=\"M{:.1f},{:.1f} l4,4 l-4,4 l-4,-4 z\" fill=\"{}\">{}</path>\n",
                         x, y - 4, colour, tip);
  }
}

/// Fill of bar series `index`: every other series is hatched, so neighbours
/// differ in greyscale too.
std::string bar_fill(std::size_t index, const std::string& id, Svg& svg) {
  const char* colour = series_colour(index);
  if (index % 2 == 0) return colour;
  const std::string pattern = fmt::format("{}-hatch{}", id, index);
  if (svg.defs.find(pattern) == std::string::npos) {
    svg.defs += fmt::format(
        "<pattern id=\"{}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"{}\"/>"
        "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"white\" stroke-width=\"2\" "
        "stroke-opacity=\"0.6\"/></pattern>\n",
        pattern, colour);
  }
  return fmt::format("url(#{})", pattern);
}

std::size_t style_of(int style, std::size_t position) {
  return style >= 0 ? static_cast<std::size_t>(style) : position;
}

struct LegendEntry {
  enum class Swatch { line, bar, mark } swatch = Swatch::line;
  std::size_t index = 0;
  std::string name;
  bool markers = true;
};

/// Legend entries flowed into rows across `width`; returns the height used.
double draw_legend(Svg& svg, const std::vector<LegendEntry>& entries, double x0, double width,
                   const std::string& id) {
  if (entries.empty()) return 0.0;
  constexpr double kSwatch = 22.0;
  constexpr double kGap = 18.0;
  constexpr double kRow = 18.0;
  double x = x0;
  double y = svg.y + 12.0;
  for (const auto& e : entries) {
    const std::string name = shortened(e.name, width - kSwatch - 6.0, kTextPx);
    const double w = kSwatch + 6.0 + text_width(name, kTextPx);
    if (x > x0 && x + w > x0 + width) {
      x = x0;
      y += kRow;
    }
    const char* colour = series_colour(e.index);
    switch (e.swatch) {
      case LegendEntry::Swatch::line:
        svg.line(x, y - 4, x + kSwatch, y - 4, colour, 2.0, kDashes[e.index % kDashes.size()]);
        if (e.markers) svg.body += marker(e.index, x + kSwatch / 2, y - 4, colour, "");
        break;
      case LegendEntry::Swatch::bar:
        svg.body += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"10\" fill=\"{}\"/>\n", x,
            y - 9, kSwatch, bar_fill(e.index, id, svg));
        break;
      case LegendEntry::Swatch::mark:
        svg.line(x + kSwatch / 2, y - 12, x + kSwatch / 2, y + 3, kInk, 2.0);
        break;
    }
    svg.text(x + kSwatch + 6.0, y, name, kTextPx);
    x += w + kGap;
  }
  const double used = y - svg.y + 10.0;
  svg.y += used;
  return used;
}

/// Labels of annotations placed so they never cover one another.
class LabelPlacer {
 public:
  /// Moves the box down (then up) until it is clear; returns the y shift.
  double place(Box box, double y_min, double y_max) {
    for (int attempt = 0; attempt < 12; ++attempt) {
      const int lines = (attempt + 1) / 2;  // 0, 1, 1, 2, 2, ...: down, up, down, ...
      const double shift = (attempt % 2 == 0 ? 1.0 : -1.0) * 14.0 * lines;
      Box moved{box.x0, box.y0 + shift, box.x1, box.y1 + shift};
      if (moved.y0 < y_min || moved.y1 > y_max) continue;
      bool clear = true;
      for (const auto& b : placed_) clear = clear && !moved.overlaps(b);
      if (clear) {
        placed_.push_back(moved);
        return shift;
      }
    }
    placed_.push_back(box);
    return 0.0;
  }
  void reserve(Box box) { placed_.push_back(box); }

 private:
  std::vector<Box> placed_;
};

struct PlotArea {
  double left, top, width, height;
  [[nodiscard]] double right() const { return left + width; }
  [[nodiscard]] double bottom() const { return top + height; }
};

void draw_annotations(Svg& svg, const Panel& p, const PlotArea& area, const Scale& xs,
                      const Scale& ys, LabelPlacer& labels) {
  for (const auto& a : p.annotations) {
    const std::string tip = title_element(a.label);
    double lx = 0.0;
    double ly = 0.0;
    std::string anchor = "start";
    switch (a.kind) {
      case Annotation::Kind::y_line: {
        const double y = ys.at(a.a);
        svg.body += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"6 3\">{}</line>\n",
            area.left, y, area.right(), y, kNoteInk, tip);
        lx = area.right() - 4;
        ly = y - 4;
        anchor = "end";
        break;
      }
      case Annotation::Kind::x_line: {
        const double x = xs.at(a.a);
        svg.body += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"6 3\">{}</line>\n",
            x, area.top, x, area.bottom(), kNoteInk, tip);
        const bool room_right = x + 4 + text_width(a.label, kSmallPx) < area.right();
        lx = room_right ? x + 4 : x - 4;
        anchor = room_right ? "start" : "end";
        ly = area.top + 12;
        break;
      }
      case Annotation::Kind::point: {
        const double x = xs.at(a.a);
        const double y = ys.at(a.b);
        svg.body += fmt::format(
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" fill=\"none\" stroke=\"{}\" "
            "stroke-width=\"2\">{}</circle>\n",
            x, y, kInk, tip);
        const bool room_right = x + 10 + text_width(a.label, kSmallPx) < area.right();
        lx = room_right ? x + 10 : x - 10;
        anchor = room_right ? "start" : "end";
        ly = y - 8;
        break;
      }
      case Annotation::Kind::x_band:
      case Annotation::Kind::y_band: {
        const bool x_band = a.kind == Annotation::Kind::x_band;
        const double x0 = x_band ? xs.at(std::min(a.a, a.b)) : area.left;
        const double x1 = x_band ? xs.at(std::max(a.a, a.b)) : area.right();
        const double y0 = x_band ? area.top : ys.at(std::max(a.a, a.b));
        const double y1 = x_band ? area.bottom() : ys.at(std::min(a.a, a.b));
        svg.body += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#000000\" "
            "fill-opacity=\"0.08\">{}</rect>\n",
            x0, y0, std::max(0.5, x1 - x0), std::max(0.5, y1 - y0), tip);
        lx = x0 + 4;
        ly = y0 + 12;
        break;
      }
    }
    if (a.label.empty()) continue;
    const double w = text_width(a.label, kSmallPx);
    const double bx0 = anchor == "end" ? lx - w : lx;
    const double shift =
        labels.place(Box{bx0, ly - kSmallPx, bx0 + w, ly + 2}, area.top, area.bottom());
    svg.body += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.0f}\" fill=\"{}\"{} stroke=\"white\" "
        "stroke-width=\"3\" paint-order=\"stroke\">{}</text>\n",
        lx, ly + shift, kSmallPx, kNoteInk,
        anchor == "start" ? "" : fmt::format(" text-anchor=\"{}\"", anchor), xml_escaped(a.label));
  }
}

void annotation_values(const Panel& p, std::vector<double>& xs, std::vector<double>& ys) {
  for (const auto& a : p.annotations) {
    require_finite(a.a, "an annotation");
    require_finite(a.b, "an annotation");
    switch (a.kind) {
      case Annotation::Kind::y_line:
        ys.push_back(a.a);
        break;
      case Annotation::Kind::x_line:
        xs.push_back(a.a);
        break;
      case Annotation::Kind::point:
        xs.push_back(a.a);
        ys.push_back(a.b);
        break;
      case Annotation::Kind::x_band:
        xs.push_back(a.a);
        xs.push_back(a.b);
        break;
      case Annotation::Kind::y_band:
        ys.push_back(a.a);
        ys.push_back(a.b);
        break;
    }
  }
}

/// Y ticks, grid and axis title at the left of `area`.
void draw_y_axis(Svg& svg, const PlotArea& area, const Scale& ys, const Ticks& ticks,
                 const Axis& axis) {
  for (const double v : ticks.values) {
    const double y = ys.at(v);
    svg.line(area.left, y, area.right(), y, kGrid, 1.0);
    svg.text(area.left - 6, y + 4, ticks.label(v), kSmallPx, "end");
  }
  const double mid = area.top + area.height / 2;
  const std::string title = shortened(axis_title(axis, ticks.exponent), area.height, kTextPx);
  svg.body += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.0f}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 {:.1f} {:.1f})\">{}</text>\n",
      kOuterMargin + 4, mid, kTextPx, kOuterMargin + 4, mid, xml_escaped(title));
}

/// X ticks and title under `area`; returns the height used below the plot.
double draw_x_axis(Svg& svg, const PlotArea& area, const Scale& xs, const Ticks& ticks,
                   const Axis& axis, bool grid) {
  for (const double v : ticks.values) {
    const double x = xs.at(v);
    if (grid) svg.line(x, area.top, x, area.bottom(), kGrid, 1.0);
    svg.line(x, area.bottom(), x, area.bottom() + 4, kInk, 1.0);
    svg.text(x, area.bottom() + 17, ticks.label(v), kSmallPx, "middle");
  }
  svg.text(area.left + area.width / 2, area.bottom() + 34, axis_title(axis, ticks.exponent),
           kTextPx, "middle");
  return 42.0;
}

double left_margin_for(const Ticks& ticks) {
  double widest = 0.0;
  for (const double v : ticks.values)
    widest = std::max(widest, text_width(ticks.label(v), kSmallPx));
  return kOuterMargin + 22.0 + widest + 8.0;
}

int x_tick_budget(double width, double lo, double hi, const std::string& unit) {
  // Two passes: the labels of a first guess decide how many fit.
  const Ticks guess = make_ticks(lo, hi, 8, unit);
  double widest = 0.0;
  for (const double v : guess.values)
    widest = std::max(widest, text_width(guess.label(v), kSmallPx));
  return std::max(2, static_cast<int>(width / (widest + 24.0)));
}

std::string default_hover(const std::string& series, double x, const Axis& xa, double y,
                          const Axis& ya) {
  return fmt::format("{}: {} {}, {} {}", series, xa.quantity, format_quantity(x, xa.unit),
                     ya.quantity, format_quantity(y, ya.unit));
}

void draw_line_panel(Svg& svg, const Panel& p, double width, const std::string& id) {
  std::vector<double> xv;
  std::vector<double> yv;
  std::vector<LegendEntry> legend;
  for (std::size_t s = 0; s < p.lines.size(); ++s) {
    for (const auto& pt : p.lines[s].points) {
      require_finite(pt.x, "a point's x");
      require_finite(pt.y, "a point's y");
      xv.push_back(pt.x);
      yv.push_back(pt.y);
    }
    legend.push_back({LegendEntry::Swatch::line, style_of(p.lines[s].style, s), p.lines[s].name,
                      p.lines[s].markers});
  }
  annotation_values(p, xv, yv);
  const auto [ylo, yhi] = domain_of(yv, p.y, true);
  const auto [xlo0, xhi0] = domain_of(xv, p.x, false);
  const Ticks yt = make_ticks(ylo, yhi, static_cast<int>(kLinePlotHeight / 40.0), p.y.unit);
  const double left = left_margin_for(yt);
  const double plot_w = width - left - kRightMargin;
  const Ticks xt = make_ticks(xlo0, xhi0, x_tick_budget(plot_w, xlo0, xhi0, p.x.unit), p.x.unit);

  if (p.legend) draw_legend(svg, legend, left, plot_w, id);
  const PlotArea area{left, svg.y + 6, plot_w, kLinePlotHeight};
  const Scale ys{yt.values.front(), yt.values.back(), area.bottom(), area.top};
  const Scale xs{p.x.min ? std::min(*p.x.min, xt.values.front()) : xt.values.front(),
                 p.x.max ? std::max(*p.x.max, xt.values.back()) : xt.values.back(), area.left,
                 area.right()};
  draw_y_axis(svg, area, ys, yt, p.y);
  const double below = draw_x_axis(svg, area, xs, xt, p.x, true);
  svg.body += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
      "stroke=\"#999999\"/>\n",
      area.left, area.top, area.width, area.height);
  LabelPlacer labels;
  for (std::size_t s = 0; s < p.lines.size(); ++s) {
    const LineSeries& series = p.lines[s];
    if (series.points.empty()) continue;
    const std::size_t style = style_of(series.style, s);
    const char* colour = series_colour(style);
    std::string d;
    for (std::size_t i = 0; i < series.points.size(); ++i) {
      const double x = xs.at(series.points[i].x);
      const double y = ys.at(series.points[i].y);
      if (i == 0) {
        d += fmt::format("M{:.1f},{:.1f}", x, y);
      } else if (series.steps) {
        d += fmt::format(" H{:.1f} V{:.1f}", x, y);
      } else {
        d += fmt::format(" L{:.1f},{:.1f}", x, y);
      }
    }
    const std::string dash = kDashes[style % kDashes.size()];
    svg.body += fmt::format(
        "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} "
        "stroke-linejoin=\"round\">{}</path>\n",
        d, colour, dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", dash),
        title_element(series.name));
    if (series.markers) {
      for (const auto& pt : series.points) {
        svg.body +=
            marker(style, xs.at(pt.x), ys.at(pt.y), colour,
                   pt.hover.empty() ? default_hover(series.name, pt.x, p.x, pt.y, p.y) : pt.hover);
      }
    }
  }
  draw_annotations(svg, p, area, xs, ys, labels);
  svg.y = area.bottom() + below;
}

void draw_bar_panel(Svg& svg, const Panel& p, double width, const std::string& id) {
  const std::size_t n = p.categories.size();
  std::vector<double> yv;
  std::vector<double> unused_x;
  std::vector<LegendEntry> legend;
  for (std::size_t s = 0; s < p.bars.size(); ++s) {
    if (p.bars[s].values.size() != n) {
      throw Error(fmt::format("chart: series '{}' has {} values for {} categories", p.bars[s].name,
                              p.bars[s].values.size(), n));
    }
    legend.push_back({LegendEntry::Swatch::bar, style_of(p.bars[s].style, s), p.bars[s].name});
  }
  for (std::size_t c = 0; c < n; ++c) {
    double up = 0.0;
    double down = 0.0;
    for (const auto& series : p.bars) {
      if (!series.values[c]) continue;
      const double v = *series.values[c];
      require_finite(v, "a bar");
      if (p.stacked) {
        (v >= 0 ? up : down) += v;
      } else {
        yv.push_back(v);
      }
    }
    if (p.stacked) {
      yv.push_back(up);
      yv.push_back(down);
    }
  }
  annotation_values(p, unused_x, yv);
  const auto [ylo, yhi] = domain_of(yv, p.y, true);
  const Ticks yt = make_ticks(ylo, yhi, static_cast<int>(kLinePlotHeight / 40.0), p.y.unit);
  double left = left_margin_for(yt);
  double plot_w = width - left - kRightMargin;
  const double band = n == 0 ? plot_w : plot_w / static_cast<double>(n);
  double widest = 0.0;
  for (const auto& c : p.categories) {
    widest = std::max(widest, text_width(shortened(c, kMaxCategoryLabelPx, kSmallPx), kSmallPx));
  }
  const bool rotate = widest > band - 6.0;
  const double angle = kLabelAngleDeg * 3.14159265358979 / 180.0;
  double below = 42.0;
  if (rotate) {
    below = widest * std::sin(angle) + kSmallPx * std::cos(angle) + 34.0;
    // The first label runs left of its bar: keep it inside the figure.
    left = std::max(left, kOuterMargin + widest * std::cos(angle) - band / 2 + 4.0);
    plot_w = width - left - kRightMargin;
  }
  const double band_w = n == 0 ? plot_w : plot_w / static_cast<double>(n);

  if (p.legend) draw_legend(svg, legend, left, plot_w, id);
  const PlotArea area{left, svg.y + 6, plot_w, kLinePlotHeight};
  const Scale ys{yt.values.front(), yt.values.back(), area.bottom(), area.top};
  const Scale xs{0.0, 1.0, area.left, area.right()};
  draw_y_axis(svg, area, ys, yt, p.y);
  const std::size_t m = std::max<std::size_t>(1, p.bars.size());
  for (std::size_t c = 0; c < n; ++c) {
    const double x_band = area.left + band_w * static_cast<double>(c);
    double up = 0.0;
    double down = 0.0;
    for (std::size_t s = 0; s < p.bars.size(); ++s) {
      const auto& v = p.bars[s].values[c];
      if (!v) continue;
      double x = 0.0;
      double w = 0.0;
      double from = 0.0;
      double to = *v;
      if (p.stacked) {
        w = band_w * 0.6;
        x = x_band + (band_w - w) / 2;
        double& base = *v >= 0 ? up : down;
        from = base;
        to = base + *v;
        base = to;
      } else {
        w = band_w * 0.8 / static_cast<double>(m);
        x = x_band + band_w * 0.1 + w * static_cast<double>(s);
      }
      const double y0 = ys.at(std::max(from, to));
      const double y1 = ys.at(std::min(from, to));
      const std::string hover = c < p.bars[s].hovers.size() && !p.bars[s].hovers[c].empty()
                                    ? p.bars[s].hovers[c]
                                    : fmt::format("{}, {}: {}", p.categories[c], p.bars[s].name,
                                                  format_quantity(*v, p.y.unit));
      svg.body += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
          "stroke=\"white\" stroke-width=\"0.5\">{}</rect>\n",
          x, y0, std::max(0.5, w - 1.0), std::max(0.5, y1 - y0),
          bar_fill(style_of(p.bars[s].style, s), id, svg), title_element(hover));
    }
    const std::string label = shortened(p.categories[c], kMaxCategoryLabelPx, kSmallPx);
    const double cx = x_band + band_w / 2;
    const std::string tip = label == p.categories[c] ? "" : title_element(p.categories[c]);
    if (rotate) {
      svg.body += fmt::format(
          "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.0f}\" text-anchor=\"end\" "
          "transform=\"rotate(-{:.0f} {:.1f} {:.1f})\">{}{}</text>\n",
          cx, area.bottom() + 14, kSmallPx, kLabelAngleDeg, cx, area.bottom() + 14, tip,
          xml_escaped(label));
    } else {
      svg.body += fmt::format(
          "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.0f}\" "
          "text-anchor=\"middle\">{}{}</text>\n",
          cx, area.bottom() + 17, kSmallPx, tip, xml_escaped(label));
    }
  }
  svg.line(area.left, ys.at(0.0), area.right(), ys.at(0.0), kInk, 1.0);
  svg.body += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
      "stroke=\"#999999\"/>\n",
      area.left, area.top, area.width, area.height);
  if (!p.x.quantity.empty()) {
    svg.text(area.left + area.width / 2, area.bottom() + below - 8, p.x.quantity, kTextPx,
             "middle");
  }
  LabelPlacer labels;
  draw_annotations(svg, p, area, xs, ys, labels);
  svg.y = area.bottom() + below;
}

void draw_timeline_panel(Svg& svg, const Panel& p, double width, const std::string& id) {
  std::vector<double> xv;
  std::vector<double> unused_y;
  double widest = 0.0;
  for (const auto& row : p.rows) {
    widest =
        std::max(widest, text_width(shortened(row.label, kMaxCategoryLabelPx, kSmallPx), kSmallPx));
    for (const auto& s : row.segments) {
      require_finite(s.start, "a segment's start");
      require_finite(s.end, "a segment's end");
      if (s.kind < 0 || static_cast<std::size_t>(s.kind) >= p.segment_kinds.size()) {
        throw Error(fmt::format("chart: segment kind {} has no name", s.kind));
      }
      xv.push_back(s.start);
      xv.push_back(s.end);
    }
    for (const auto& m : row.marks) {
      require_finite(m.at, "a mark");
      xv.push_back(m.at);
    }
  }
  annotation_values(p, xv, unused_y);
  std::vector<LegendEntry> legend;
  for (std::size_t k = 0; k < p.segment_kinds.size(); ++k) {
    legend.push_back({LegendEntry::Swatch::bar, k, p.segment_kinds[k]});
  }
  if (!p.mark_name.empty()) legend.push_back({LegendEntry::Swatch::mark, 0, p.mark_name});
  const double left = kOuterMargin + widest + 10.0;
  const double plot_w = width - left - kRightMargin;
  const auto [xlo, xhi] = domain_of(xv, p.x, true);
  const Ticks xt = make_ticks(xlo, xhi, x_tick_budget(plot_w, xlo, xhi, p.x.unit), p.x.unit);
  if (p.legend) draw_legend(svg, legend, left, plot_w, id);
  const double height = kRowHeight * static_cast<double>(std::max<std::size_t>(1, p.rows.size()));
  const PlotArea area{left, svg.y + 6, plot_w, height};
  const Scale xs{xt.values.front(), xt.values.back(), area.left, area.right()};
  const double below = draw_x_axis(svg, area, xs, xt, p.x, true);
  for (std::size_t r = 0; r < p.rows.size(); ++r) {
    const TimelineRow& row = p.rows[r];
    const double top = area.top + kRowHeight * static_cast<double>(r);
    const std::string label = shortened(row.label, kMaxCategoryLabelPx, kSmallPx);
    svg.body += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.0f}\" text-anchor=\"end\">{}{}</text>\n",
        left - 6, top + kRowHeight / 2 + 4, kSmallPx,
        label == row.label ? "" : title_element(row.label), xml_escaped(label));
    for (const auto& s : row.segments) {
      const double x0 = xs.at(s.start);
      const double x1 = xs.at(s.end);
      svg.body += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\">{}"
          "</rect>\n",
          x0, top + 3, std::max(0.6, x1 - x0), kRowHeight - 6,
          bar_fill(static_cast<std::size_t>(s.kind), id, svg), title_element(s.hover));
    }
    for (const auto& m : row.marks) {
      const double x = xs.at(m.at);
      svg.body += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
          "stroke-width=\"2.5\">{}</line>\n",
          x, top, x, top + kRowHeight, kInk, title_element(m.hover));
    }
  }
  svg.body += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" "
      "stroke=\"#999999\"/>\n",
      area.left, area.top, area.width, area.height);
  LabelPlacer labels;
  const Scale ys{0.0, 1.0, area.bottom(), area.top};
  draw_annotations(svg, p, area, xs, ys, labels);
  svg.y = area.bottom() + below;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
  require_finite(lo, "an axis minimum");
  require_finite(hi, "an axis maximum");
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) hi = lo + (lo == 0.0 ? 1.0 : std::fabs(lo) * 0.1);
  const int intervals = std::max(1, max_ticks - 1);
  const double raw = (hi - lo) / intervals;
  double power = std::pow(10.0, std::floor(std::log10(raw)) - 1);
  double step = power;
  for (int guard = 0; guard < 40; ++guard) {
    bool found = false;
    for (const double f : {1.0, 2.0, 5.0}) {
      step = f * power;
      const double first = std::floor(lo / step + 1e-9);
      const double last = std::ceil(hi / step - 1e-9);
      if (last - first <= intervals) {
        found = true;
        break;
      }
    }
    if (found) break;
    power *= 10.0;
  }
  const auto first = static_cast<long long>(std::floor(lo / step + 1e-9));
  const auto last = static_cast<long long>(std::ceil(hi / step - 1e-9));
  std::vector<double> out;
  for (long long k = first; k <= last; ++k) out.push_back(static_cast<double>(k) * step);
  if (out.size() < 2) out.push_back(out.back() + step);
  return out;
}

const char* series_colour(std::size_t index) { return kPalette[index % kPalette.size()]; }

double text_width(const std::string& text, double font_px) {
  double em = 0.0;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    if (c == ' ' || c == '.' || c == ',' || c == ':' || c == 'i' || c == 'l' || c == '|' ||
        c == '\'' || c == '1') {
      em += 0.34;
    } else if (c >= 'A' && c <= 'Z') {
      em += 0.72;
    } else if (c == 'm' || c == 'w' || c == 'M' || c == 'W' || c == '%') {
      em += 0.9;
    } else {
      em += 0.62;
    }
  }
  return em * font_px;
}

std::string render_svg(const Figure& figure) {
  const std::string id = figure.id.empty()
                             ? "c" + std::to_string(std::hash<std::string>{}(figure.title) % 100000)
                             : figure.id;
  Svg svg;
  svg.y = kOuterMargin;
  const double inner = figure.width - 2 * kOuterMargin;
  for (const auto& line : wrapped(figure.title, inner, kTitlePx)) {
    svg.y += kTitlePx + 4;
    svg.text(kOuterMargin, svg.y, line, kTitlePx, "start", "font-weight=\"bold\"");
  }
  for (const auto& line : wrapped(figure.subtitle, inner, kTextPx)) {
    svg.y += kTextPx + 4;
    svg.text(kOuterMargin, svg.y, line, kTextPx, "start", "fill=\"#555555\"");
  }
  svg.y += 8;
  for (const auto& panel : figure.panels) {
    for (const auto& line : wrapped(panel.title, inner, 13.0)) {
      svg.y += 17;
      svg.text(kOuterMargin, svg.y, line, 13.0, "start", "font-weight=\"bold\"");
    }
    svg.y += 4;
    switch (panel.kind) {
      case Panel::Kind::line:
        draw_line_panel(svg, panel, figure.width, id);
        break;
      case Panel::Kind::bars:
        draw_bar_panel(svg, panel, figure.width, id);
        break;
      case Panel::Kind::timeline:
        draw_timeline_panel(svg, panel, figure.width, id);
        break;
    }
    for (const auto& line : wrapped(panel.caption, inner, kSmallPx)) {
      svg.y += kSmallPx + 3;
      svg.text(kOuterMargin, svg.y, line, kSmallPx, "start", "fill=\"#555555\"");
    }
    svg.y += 14;
  }
  const double height = std::ceil(svg.y + kOuterMargin);
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"{}\" fill=\"{}\" role=\"img\">\n"
      "<title>{}</title>\n",
      figure.width, height, figure.width, height, kFont, kInk, xml_escaped(figure.title));
  if (!svg.defs.empty()) out += "<defs>\n" + svg.defs + "</defs>\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += svg.body;
  out += "</svg>\n";
  return out;
}

}  // namespace tpnet::cli::chart
