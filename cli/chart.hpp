#pragma once
// Charts as self-contained SVG: line, bar (grouped or stacked) and timeline
// panels in one figure, with axes that carry the quantity and its unit, 1-2-5
// ticks with SI prefixes, a legend, annotations (a limit line, a marked
// point, a shaded band) and a <title> on every mark for hover values.
// Rendering stays in the CLI; charts take numbers the commands already
// computed in libtpnet (docs/charts.md).

#include <optional>
#include <string>
#include <vector>

namespace tpnet::cli::chart {

/// An axis: what it measures and in which base unit ("s", "B", "b/s",
/// "tok/s", "%", "" for counts). Ticks pick an SI prefix of that unit
/// (ms, GB, Gb/s); "%" and "x" never take one.
struct Axis {
  std::string quantity;
  std::string unit;
  std::optional<double> min;  ///< unset: from the data (bars and stacks start at zero)
  std::optional<double> max;
};

/// A reference drawn over a panel, labelled in the plot.
struct Annotation {
  enum class Kind {
    y_line,  ///< horizontal line at `a` (an SLO, a budget)
    x_line,  ///< vertical line at `a` (C_max)
    point,   ///< a marked point at (a, b)
    x_band,  ///< shaded between x = a and x = b
    y_band,  ///< shaded between y = a and y = b
  };
  Kind kind = Kind::y_line;
  double a = 0.0;
  double b = 0.0;
  std::string label;
};

struct Point {
  double x = 0.0;
  double y = 0.0;
  std::string hover;  ///< empty: "series: x, y" in the axes' units
};

struct LineSeries {
  std::string name;
  std::vector<Point> points;
  bool steps = false;  ///< each point holds until the next (rates over windows)
  bool markers = true;
  int style = -1;  ///< colour, dash and marker; -1: the series' position
};

struct BarSeries {
  std::string name;
  /// One per category; unset: no bar (not applicable, not predicted).
  std::vector<std::optional<double>> values;
  std::vector<std::string> hovers;  ///< optional, one per category
  int style = -1;                   ///< colour and hatch; -1: the series' position (keeps a
                                    ///< quantity's colour the same across panels)
};

/// A span of one row of a timeline (a request's prefill, its decode).
struct Segment {
  double start = 0.0;
  double end = 0.0;
  int kind = 0;  ///< index into Panel::segment_kinds: colour and legend entry
  std::string hover;
};

struct Mark {
  double at = 0.0;
  std::string hover;
};

struct TimelineRow {
  std::string label;
  std::vector<Segment> segments;
  std::vector<Mark> marks;  ///< drawn as a tick across the row (a first token)
};

struct Panel {
  enum class Kind { line, bars, timeline };
  Kind kind = Kind::line;
  std::string title;    ///< above the plot
  std::string caption;  ///< optional line under the plot
  Axis x;               ///< line and timeline panels (bars: categories)
  Axis y;               ///< line and bar panels
  std::vector<LineSeries> lines;
  std::vector<std::string> categories;  ///< bars
  std::vector<BarSeries> bars;
  bool stacked = false;
  bool legend = true;                      ///< false: one series the title already names
  std::vector<std::string> segment_kinds;  ///< timeline legend
  std::string mark_name;                   ///< timeline legend entry of the marks
  std::vector<TimelineRow> rows;
  std::vector<Annotation> annotations;
};

/// One SVG: a title and its panels stacked top to bottom.
struct Figure {
  std::string title;
  std::string subtitle;
  std::vector<Panel> panels;
  double width = 760.0;
  /// Prefix of the ids inside (patterns): unique per figure when several
  /// are inlined into one HTML page. Empty: from the title.
  std::string id;
};

/// The SVG text (with an XML declaration-free <svg> root, so it also
/// inlines into HTML). Throws tpnet::Error for a NaN or infinite value, or
/// a series whose length does not match its categories.
[[nodiscard]] std::string render_svg(const Figure& figure);

/// Tick values between lo and hi in 1-2-5 steps, at most `max_ticks`.
[[nodiscard]] std::vector<double> nice_ticks(double lo, double hi, int max_ticks);

/// The colour of series `index` (Okabe-Ito: distinct under the common colour
/// blindnesses, and ordered so neighbours differ in lightness).
[[nodiscard]] const char* series_colour(std::size_t index);

/// Estimated width in pixels of `text` at `font_px` in the charts' sans-serif
/// font: generous, so labels laid out by it do not touch.
[[nodiscard]] double text_width(const std::string& text, double font_px);

}  // namespace tpnet::cli::chart
