#include "switch_drawing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "chart.hpp"
#include "tpnet/base/quantity_text.hpp"
#include "tpnet/base/units.hpp"
#include "tpnet/io/document_render.hpp"

namespace tpnet::cli {
namespace {

constexpr double kMargin = 16.0;
constexpr double kCageHeight = 26.0;
constexpr double kSubport = 38.0;
constexpr double kSubportGap = 4.0;
constexpr double kGroupGap = 14.0;
constexpr double kFan = 26.0;
constexpr double kRow = kCageHeight + kFan + 24.0 + 18.0;
constexpr const char* kFont = "DejaVu Sans, Verdana, Arial, sans-serif";

std::string rate_text(BitRate r) { return format_quantity(r.bits_per_second(), "b/s"); }

struct Cage {
  std::string cage;
  std::string mode;
  int subports = 1;
  std::vector<std::string> labels;  ///< per sub-port: node, "ISL" or "" (spare)
  bool isl = false;
  std::string cable;
};

std::vector<Cage> cages_of(const SwitchUnit& unit, int& next_node) {
  std::vector<Cage> out;
  for (const auto& use : unit.ports) {
    int nodes_left = use.nodes;
    for (int c = 0; c < use.cages; ++c) {
      Cage cage{use.cage, use.mode.name(), use.mode.count, {}, use.isl, use.cable};
      for (int s = 0; s < use.mode.count; ++s) {
        if (use.isl) {
          cage.labels.emplace_back(s == 0 ? "ISL" : "");
        } else if (nodes_left > 0) {
          cage.labels.push_back(fmt::format("n{}", next_node++));
          --nodes_left;
        } else {
          cage.labels.emplace_back();
        }
      }
      out.push_back(std::move(cage));
    }
  }
  return out;
}

double group_width(const Cage& c) {
  return std::max(56.0, c.subports * kSubport + (c.subports - 1) * kSubportGap);
}

}  // namespace

std::string switch_plan_svg(const SwitchPlan& plan, const std::string& id, double width) {
  std::string body;
  double y = kMargin + 18;
  const std::string title =
      fmt::format("{} x {}: {} nodes at {} ({})", plan.switches, plan.switch_name, plan.nodes,
                  rate_text(plan.speed), std::string(to_string(plan.topology)));
  body += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"16\" font-weight=\"bold\">{}</text>\n", kMargin,
      y, xml_escaped(title));
  y += 18;
  body +=
      fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"12\" fill=\"#555555\">{}</text>\n",
                  kMargin, y, xml_escaped(plan.summary));
  y += 14;
  int next_node = 1;
  const double inner = width - 2 * kMargin;
  for (const auto& unit : plan.units) {
    const std::vector<Cage> cages = cages_of(unit, next_node);
    // Lay the cages out in rows that fit.
    std::vector<std::vector<const Cage*>> rows(1);
    double x = 0.0;
    for (const auto& c : cages) {
      const double w = group_width(c);
      if (x > 0.0 && x + w > inner - 16) {
        rows.emplace_back();
        x = 0.0;
      }
      rows.back().push_back(&c);
      x += w + kGroupGap;
    }
    const double box_top = y + 8;
    const double box_height = 30 + static_cast<double>(rows.size()) * kRow;
    std::string heading = fmt::format(
        "{} ({}){}: {} nodes, fabric {} of {}", plan.switch_name, std::string(to_string(unit.role)),
        unit.copies > 1 ? fmt::format(", {} alike", unit.copies) : "", unit.nodes,
        rate_text(unit.fabric_load), rate_text(unit.fabric_capacity));
    body += fmt::format(
        "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" rx=\"6\" "
        "fill=\"#f4f6f8\" "
        "stroke=\"#5a6570\" stroke-width=\"1.5\"><title>{}</title></rect>\n",
        kMargin, box_top, inner, box_height, xml_escaped(heading));
    body += fmt::format(
        "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
        kMargin + 10, box_top + 19, xml_escaped(heading));
    double row_top = box_top + 30;
    for (const auto& row : rows) {
      double cx = kMargin + 10;
      for (const Cage* c : row) {
        const double w = group_width(*c);
        const double cage_x = cx + (w - 56.0) / 2;
        const char* fill = c->isl ? "#CC79A7" : "#0072B2";
        body += fmt::format(
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"56\" height=\"{:.0f}\" rx=\"3\" fill=\"{}\">"
            "<title>{} cage in {}: {}</title></rect>\n",
            cage_x, row_top, kCageHeight, fill, xml_escaped(c->cage), c->mode,
            xml_escaped(c->cable));
        body += fmt::format(
            "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"white\" "
            "text-anchor=\"middle\">{}</text>\n",
            cage_x + 28, row_top + 17, c->mode);
        const double sub_top = row_top + kCageHeight + kFan;
        for (int s = 0; s < c->subports; ++s) {
          const double sx = cx +
                            (w - (c->subports * kSubport + (c->subports - 1) * kSubportGap)) / 2 +
                            s * (kSubport + kSubportGap);
          const std::string& label = c->labels[static_cast<std::size_t>(s)];
          const bool spare = label.empty();
          body += fmt::format(
              "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#333333\" "
              "stroke-width=\"1.5\"{}/>\n",
              cage_x + 28, row_top + kCageHeight, sx + kSubport / 2, sub_top,
              spare ? " stroke-dasharray=\"3 3\"" : "");
          body += fmt::format(
              "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"22\" rx=\"3\" fill=\"{}\" "
              "stroke=\"#333333\"{}><title>{}</title></rect>\n",
              sx, sub_top, kSubport, spare ? "white" : (c->isl ? "#f3d9e8" : "#E69F00"),
              spare ? " stroke-dasharray=\"3 3\"" : "",
              xml_escaped(spare
                              ? fmt::format("spare sub-port of a {} cage", c->cage)
                              : fmt::format("{} on a {} sub-port ({})", label, c->mode, c->cable)));
          body += fmt::format(
              "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
              sx + kSubport / 2, sub_top + 15, spare ? "spare" : xml_escaped(label));
        }
        cx += w + kGroupGap;
      }
      row_top += kRow;
    }
    y = box_top + box_height;
    if (!unit.spare.empty()) {
      for (const auto& s : unit.spare) {
        if (s.cages == 0 && s.subports == 0) continue;
        y += 16;
        body += fmt::format(
            "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"11\" fill=\"#555555\">{}</text>\n",
            kMargin + 10, y,
            xml_escaped(fmt::format("unused: {} whole {} cages, {} sub-ports; could serve {}",
                                    s.cages, s.cage, s.subports, s.could_serve)));
      }
    }
    y += 10;
  }
  if (plan.isl) {
    y += 16;
    body += fmt::format(
        "<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"12\">{}</text>\n", kMargin, y,
        xml_escaped(fmt::format(
            "Inter-switch links: {} LAG(s) of {} x {} {}; worst cross traffic {} over {} "
            "({:.2f}x oversubscribed)",
            plan.isl->lags, plan.isl->per_lag, rate_text(plan.isl->rate), plan.isl->cage,
            rate_text(plan.isl->worst_cross_traffic), rate_text(plan.isl->lag_capacity),
            plan.isl->oversubscription)));
  }
  for (const auto& line : plan.cables) {
    y += 16;
    body += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" font-size=\"12\">cable: {}</text>\n",
                        kMargin, y, xml_escaped(line.text()));
  }
  y += kMargin;
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{}\" width=\"{:.0f}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"{}\" fill=\"#222222\" role=\"img\">\n"
      "<title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{}</svg>\n",
      id, width, std::ceil(y), width, std::ceil(y), kFont, xml_escaped(title), body);
}

}  // namespace tpnet::cli
