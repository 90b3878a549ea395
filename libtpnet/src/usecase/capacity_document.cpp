// tpnet capacity's answer as a document: the SLOs and think time, a row per
// config (C_max, what binds, users), the fleet's replicas, the sensitivity
// tables, the scaling efficiency and every measured point (docs/json.md,
// "capacity").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "tpnet/base/quantity.hpp"
#include "tpnet/usecase/capacity.hpp"

namespace tpnet {
namespace {

inline constexpr DisplayUnit kCapacityTokensPerSecond{"tokens/s", 1.0};
inline constexpr DisplayUnit kCapacityRequestsPerSecond{"requests/s", 1.0};

/// A load level under its axis's key: `<stem>concurrency`-style integer keys
/// on the concurrency axis, `<rate_key>` in requests/s on the rate axis.
Field capacity_level_field(LoadAxis axis, const std::string& concurrency_key,
                           const std::string& rate_key, const std::string& label, double level) {
  if (axis == LoadAxis::concurrency) return integer(concurrency_key, label, level);
  return number(rate_key, label, level, kCapacityRequestsPerSecond, 2);
}

/// Users are whole people (the analysis floors them).
std::string capacity_users_text(const std::optional<double>& users) {
  return users ? fmt::format("{:.0f}", *users) : "n/a";
}

/// Users as JSON/CSV carry them (0 with users_known false when unknown),
/// and as tables show them ("n/a").
void add_capacity_users(Record& rec, const std::string& key, const std::string& label,
                        const std::optional<double>& users) {
  rec.push_back(json_only(flag(key + "_known", label + " known", users.has_value())));
  rec.push_back(json_only(integer(key, label, users.value_or(0.0))));
  rec.push_back(table_only(text(key, label, capacity_users_text(users))));
}

std::string capacity_ms_text(const std::optional<Seconds>& s) {
  return s ? fmt::format("{:.2f}", s->value() * 1e3) : "-";
}

std::string capacity_edge_text(const PointVerdict& v) {
  if (v.ttft_on_edge && v.tps_on_edge) return "TTFT, TPS";
  if (v.ttft_on_edge) return "TTFT";
  if (v.tps_on_edge) return "TPS";
  return "";
}

Record capacity_config_record(const ConfigCapacity& c) {
  const LoadAxis axis = c.axis;
  Record rec{
      text("config", "config", c.config),
      integer("tp", "TP", c.tp),
      integer("levels", "levels", static_cast<double>(c.points.size())),
      json_only(capacity_level_field(axis, "lowest_concurrency", "lowest_request_rate_per_s",
                                     "lowest", c.lowest_level)),
      json_only(capacity_level_field(axis, "highest_concurrency", "highest_request_rate_per_s",
                                     "highest", c.highest_level)),
      capacity_level_field(axis, "c_max", "c_max_request_rate_per_s", "C_max", c.c_max),
      text("binding", "binding", std::string(to_string(c.binding))),
      json_only(capacity_level_field(axis, "fails_at_concurrency", "fails_at_request_rate_per_s",
                                     "fails at", c.fails_at)),
      // Nothing measured above C_max failed: a table says so rather than "fails at 0".
      table_only(c.fails_at > 0.0
                     ? capacity_level_field(axis, "fails_at_concurrency",
                                            "fails_at_request_rate_per_s", "fails at", c.fails_at)
                     : text("fails_at_concurrency", "fails at", "none measured")),
      json_only(flag("latency_known", "latency known", c.latency_at_c_max.has_value())),
      json_only(number("latency_at_c_max_s", "latency at C_max",
                       c.latency_at_c_max.value_or(Seconds()).value(), kSeconds, 2)),
      table_only(
          text("latency_at_c_max_s", "latency at C_max (s)",
               c.latency_at_c_max ? fmt::format("{:.2f}", c.latency_at_c_max->value()) : "n/a")),
  };
  add_capacity_users(rec, "users", "users", c.users);
  rec.push_back(flag("on_edge", "on edge", c.on_edge));
  // The default table answers "how many users": C_max, what binds, users;
  // the sensitivity and the peak are --wide's (and the tables below).
  rec.push_back(wide_only(capacity_level_field(
      axis, "c_max_tight", "c_max_tight_request_rate_per_s", "C_max tight", c.c_max_tight)));
  rec.push_back(wide_only(capacity_level_field(
      axis, "c_max_loose", "c_max_loose_request_rate_per_s", "C_max loose", c.c_max_loose)));
  rec.push_back(
      wide_only(number("peak_throughput_tokens_per_s",
                       axis == LoadAxis::concurrency ? "peak TPS x C" : "peak output",
                       c.peak_throughput.tokens_per_second(), kCapacityTokensPerSecond, 1)));
  rec.push_back(wide_only(capacity_level_field(axis, "peak_concurrency", "peak_request_rate_per_s",
                                               "at", c.peak_level)));
  rec.push_back(texts("notes", "notes", c.notes));
  return rec;
}

/// The rate axis's columns: the rate sent, the cap, and whether it kept up.
void add_capacity_rate_fields(Record& rec, const PointVerdict& v) {
  const SweepPoint& p = v.point;
  rec.push_back(json_only(flag("rate_unlimited", "rate unlimited", v.unlimited())));
  if (p.request_rate) {
    rec.push_back(json_only(
        number("request_rate_per_s", "rate", *p.request_rate, kCapacityRequestsPerSecond, 2)));
  }
  rec.push_back(table_only(text("request_rate_per_s", "rate (requests/s)",
                                p.request_rate ? plain_number(*p.request_rate) : "inf")));
  rec.push_back(json_only(integer("max_concurrency", "cap", p.concurrency)));
  rec.push_back(table_only(
      text("max_concurrency", "cap", p.concurrency > 0 ? std::to_string(p.concurrency) : "none")));
  if (p.achieved_rate) {
    rec.push_back(json_only(number("achieved_request_rate_per_s", "completed", *p.achieved_rate,
                                   kCapacityRequestsPerSecond, 3)));
  }
  rec.push_back(table_only(text("achieved_request_rate_per_s", "completed (requests/s)",
                                p.achieved_rate ? fmt::format("{:.3g}", *p.achieved_rate) : "-")));
  if (v.expected_rate) {
    rec.push_back(json_only(number("sustained_request_rate_per_s", "sustained would be",
                                   *v.expected_rate, kCapacityRequestsPerSecond, 3)));
  }
  rec.push_back(json_only(flag("sustained_judged", "sustained judged", v.sustained_judged)));
  if (v.sustained_judged) {
    rec.push_back(
        json_only(flag("tail_outlasts_sending", "tail outlasts sending", v.tail_outlasts_sending)));
  }
  rec.push_back(json_only(flag("sustained", "sustained", v.sustained)));
  rec.push_back(table_only(text("sustained", "sustained",
                                v.unlimited()         ? "n/a"
                                : !v.sustained_judged ? "not judged"
                                : v.sustained         ? "yes"
                                                      : "no")));
}

/// One measured point as a row. `for_machines` (JSON, CSV) leaves out the
/// table's own text columns, which those formats drop anyway: a sweep of
/// 100,000 levels is held once, as small as it can be (docs/hardening.md).
Record capacity_point_record(const ConfigCapacity& c, const PointVerdict& v, bool for_machines) {
  const SweepPoint& p = v.point;
  Record rec;
  rec.reserve(20);
  rec.push_back(text("config", "config", c.config));
  if (c.axis == LoadAxis::concurrency) {
    rec.push_back(integer("concurrency", "C", p.concurrency));
  } else {
    add_capacity_rate_fields(rec, v);
  }
  rec.insert(rec.end(), {
                            number("ttft_s", "TTFT", p.ttft.value(), kMilliseconds, 2),
                            number("tps_tokens_per_s", "TPS", p.tps.tokens_per_second(),
                                   kCapacityTokensPerSecond, 2),
                        });
  if (p.itl) rec.push_back(json_only(number("itl_s", "ITL", p.itl->value(), kMilliseconds, 2)));
  rec.push_back(table_only(text("itl_s", "ITL (ms)", capacity_ms_text(p.itl))));
  if (p.latency) {
    rec.push_back(json_only(number("latency_s", "latency", p.latency->value(), kSeconds, 2)));
  }
  rec.push_back(table_only(text("latency_s", "latency (s)",
                                p.latency ? fmt::format("{:.2f}", p.latency->value()) : "-")));
  if (v.tps_from_itl) {
    rec.push_back(
        json_only(number("tps_from_itl_tokens_per_s", "1000/ITL",
                         v.tps_from_itl->tokens_per_second(), kCapacityTokensPerSecond, 2)));
  }
  rec.push_back(table_only(
      text("tps_from_itl_tokens_per_s", "1000/ITL (tokens/s)",
           v.tps_from_itl ? fmt::format("{:.2f}", v.tps_from_itl->tokens_per_second()) : "-")));
  rec.push_back(flag("meets_ttft", "TTFT ok", v.meets_ttft));
  rec.push_back(flag("meets_tps", "TPS ok", v.meets_tps));
  rec.push_back(json_only(flag("meets_slo", "both ok", v.meets())));
  rec.push_back(json_only(flag("ttft_on_edge", "TTFT on edge", v.ttft_on_edge)));
  rec.push_back(json_only(flag("tps_on_edge", "TPS on edge", v.tps_on_edge)));
  rec.push_back(table_only(text("edge", "on edge", capacity_edge_text(v))));
  std::string source = p.source.file;
  if (p.source.line > 0) source += ":" + std::to_string(p.source.line);
  rec.push_back(json_only(text("source", "source", source)));
  if (for_machines) {
    std::erase_if(rec, [](const Field& f) { return f.table_only; });
  }
  rec.shrink_to_fit();
  return rec;
}

/// The JSON form of a sensitivity table: one row per value and config.
/// `parameter` is the varied value's field.
std::vector<Record> sensitivity_long(const std::vector<SensitivityRow>& rows, LoadAxis axis,
                                     const std::function<Field(const SensitivityRow&)>& parameter) {
  std::vector<Record> out;
  for (const auto& row : rows) {
    for (const auto& cell : row.cells) {
      Record rec{
          parameter(row), flag("chosen", "chosen", row.chosen),
          text("config", "config", cell.config),
          capacity_level_field(axis, "c_max", "c_max_request_rate_per_s", "C_max", cell.c_max)};
      add_capacity_users(rec, "users", "users", cell.users);
      rec.push_back(flag("on_edge", "on edge", cell.on_edge));
      out.push_back(std::move(rec));
    }
  }
  return out;
}

/// The table form: one row per value, one column per config.
std::vector<Record> sensitivity_wide(const std::vector<SensitivityRow>& rows,
                                     const std::function<std::string(const SensitivityRow&)>& value,
                                     const std::string& value_label, bool show_c_max) {
  // Thresholds move the edge; think time does not, so its table leaves the flag out.
  std::vector<Record> out;
  for (const auto& row : rows) {
    Record rec{text("value", value_label, value(row) + (row.chosen ? " *" : ""))};
    for (const auto& cell : row.cells) {
      std::string shown = capacity_users_text(cell.users);
      if (show_c_max) shown = fmt::format("{} / {}", plain_number(cell.c_max), shown);
      if (show_c_max && cell.on_edge) shown += " (edge)";
      rec.push_back(
          text(cell.config, cell.config + (show_c_max ? " C_max / users" : " users"), shown));
    }
    out.push_back(std::move(rec));
  }
  return out;
}

Record fleet_record(const FleetOption& o, LoadAxis axis) {
  Record rec{
      text("config", "config", o.config),
      integer("tp", "TP", o.tp),
      integer("replicas", "replicas", o.replicas),
      wide_only(integer("idle_nodes", "idle nodes", o.idle_nodes)),
      capacity_level_field(axis, "concurrent", "request_rate_per_s",
                           axis == LoadAxis::concurrency ? "concurrent" : "requests", o.concurrent),
  };
  add_capacity_users(rec, "users", "users", o.users);
  add_capacity_users(rec, "users_after_one_loss", "after losing one", o.users_after_one_loss);
  rec.push_back(
      wide_only(number("peak_throughput_tokens_per_s", "peak throughput",
                       o.peak_throughput.tokens_per_second(), kCapacityTokensPerSecond, 1)));
  rec.push_back(number("slo_throughput_tokens_per_s", "throughput at C_max",
                       o.slo_throughput.tokens_per_second(), kCapacityTokensPerSecond, 1));
  rec.push_back(flag("highly_available", "highly available", o.highly_available));
  rec.push_back(wide_only(
      text("availability", "availability",
           o.highly_available ? "survives losing one replica" : "single point of failure")));
  return rec;
}

std::string fleet_choice(const FleetReport& f, const std::optional<std::size_t>& index) {
  if (!index) return "";
  const FleetOption& o = f.options[*index];
  return fmt::format("{} x{}", o.config, o.replicas);
}

std::string fleet_summary(const FleetReport& f, const std::optional<std::size_t>& index) {
  if (!index) return "none with known users";
  const FleetOption& o = f.options[*index];
  std::string out = fmt::format("{} x{}: {:.0f} users, peak {:.0f} tokens/s", o.config, o.replicas,
                                *o.users, o.peak_throughput.tokens_per_second());
  out += o.highly_available
             ? fmt::format(", {:.0f} users after losing one replica", *o.users_after_one_loss)
             : ", a single point of failure";
  return out;
}

Record scaling_record(const ScalingRow& s, LoadAxis axis) {
  return {
      text("from_config", "from", s.from_config),
      text("to_config", "to", s.to_config),
      json_only(integer("from_tp", "from TP", s.from_tp)),
      json_only(integer("to_tp", "to TP", s.to_tp)),
      capacity_level_field(axis, "concurrency", "request_rate_per_s",
                           axis == LoadAxis::concurrency ? "C" : "rate", s.level),
      number("from_tps_tokens_per_s", "TPS from", s.from_tps.tokens_per_second(),
             kCapacityTokensPerSecond, 2),
      number("to_tps_tokens_per_s", "TPS to", s.to_tps.tokens_per_second(),
             kCapacityTokensPerSecond, 2),
      number("speedup", "speed-up", s.speedup, kTimes, 2),
      number("ideal_speedup", "ideal", s.ideal, kTimes, 2),
      number("efficiency_pct", "efficiency", s.efficiency * 100.0, kPercent, 1),
  };
}

}  // namespace

std::vector<std::string> capacity_answer(const CapacityReport& r) {
  std::vector<std::string> out;
  if (!r.fleet.most_users) {
    out.emplace_back("No config has known users under these SLOs.");
    return out;
  }
  out.push_back(fmt::format("Most users on {} nodes: {}.", r.options.fleet_nodes,
                            fleet_summary(r.fleet, r.fleet.most_users)));
  if (r.fleet.best_available && r.fleet.best_available != r.fleet.most_users) {
    out.push_back(fmt::format("Most users, highly available: {}.",
                              fleet_summary(r.fleet, r.fleet.best_available)));
  }
  return out;
}

Document capacity_document(const CapacityReport& r, bool for_machines) {
  std::vector<Record> configs;
  std::vector<Record> points;
  for (const auto& c : r.configs) {
    configs.push_back(capacity_config_record(c));
    for (const auto& v : c.points) points.push_back(capacity_point_record(c, v, for_machines));
  }
  std::vector<Record> fleet;
  for (const auto& f : r.fleet.options) fleet.push_back(fleet_record(f, r.axis));
  std::vector<Record> scaling;
  for (const auto& s : r.scaling) scaling.push_back(scaling_record(s, r.axis));

  const auto think_field = [](const SensitivityRow& row) {
    return number("think_s", "think time", row.think.value(), kSeconds, 0);
  };
  const auto ttft_field = [](const SensitivityRow& row) {
    return number("ttft_slo_s", "TTFT SLO", row.slo.ttft.value(), kMilliseconds, 0);
  };
  const auto tps_field = [](const SensitivityRow& row) {
    return number("tps_slo_tokens_per_s", "TPS SLO", row.slo.tps.tokens_per_second(),
                  kCapacityTokensPerSecond, 1);
  };

  Document doc;
  doc.answer = capacity_answer(r);
  doc.title = fmt::format(
      "tpnet capacity: C_max under {} TTFT <= {} ms and {} TPS >= {} tokens/s; users by "
      "Little's law with {} think time",
      to_string(r.slo.statistic), plain_number(r.slo.ttft.value() * 1e3),
      to_string(r.slo.statistic), plain_number(r.slo.tps.tokens_per_second()),
      format_duration(r.options.think));
  const bool by_rate = r.axis == LoadAxis::request_rate;
  doc.fields = {
      text("load_axis", "load axis", std::string(to_string(r.axis))),
      text("slo_statistic", "SLOs judge each run's", std::string(to_string(r.slo.statistic))),
      number("ttft_slo_s", "TTFT SLO (at most)", r.slo.ttft.value(), kMilliseconds, 0),
      number("tps_slo_tokens_per_s", "TPS SLO (at least)", r.slo.tps.tokens_per_second(),
             kCapacityTokensPerSecond, 1),
      number("think_s", "think time", r.options.think.value(), kSeconds, 0),
      number("edge_pct", "edge margin", r.options.edge * 100.0, kPercent, 1),
      integer("fleet_nodes", "fleet nodes", r.options.fleet_nodes),
      table_only(text("", "most users", fleet_summary(r.fleet, r.fleet.most_users))),
      table_only(
          text("", "most users, highly available", fleet_summary(r.fleet, r.fleet.best_available))),
      texts("notes", "finding", r.notes),
      records("configs",
              by_rate ? "configs (C_max: highest sustained request rate meeting both SLOs)"
                      : "configs (C_max: largest measured concurrency meeting both SLOs)",
              std::move(configs)),
      records("fleet",
              fmt::format("fleet of {} nodes: replicas of one config", r.options.fleet_nodes),
              std::move(fleet)),
      json_only(text("fleet_most_users", "most users", fleet_choice(r.fleet, r.fleet.most_users))),
      json_only(text("fleet_best_available", "most users, highly available",
                     fleet_choice(r.fleet, r.fleet.best_available))),
      texts("fleet_notes", "fleet", r.fleet.notes),
      json_only(records("think_sensitivity", "think time",
                        sensitivity_long(r.think_sensitivity, r.axis, think_field))),
      json_only(records("ttft_sensitivity", "TTFT threshold",
                        sensitivity_long(r.ttft_sensitivity, r.axis, ttft_field))),
      json_only(records("tps_sensitivity", "TPS threshold",
                        sensitivity_long(r.tps_sensitivity, r.axis, tps_field))),
      table_only(records("", "users by think time (* = the analysed value)",
                         sensitivity_wide(
                             r.think_sensitivity,
                             [](const SensitivityRow& row) { return format_duration(row.think); },
                             "think", false))),
      table_only(records("",
                         fmt::format("C_max / users by TTFT threshold (TPS >= {} tokens/s)",
                                     plain_number(r.slo.tps.tokens_per_second())),
                         sensitivity_wide(
                             r.ttft_sensitivity,
                             [](const SensitivityRow& row) {
                               return plain_number(row.slo.ttft.value() * 1e3) + " ms";
                             },
                             "TTFT", true))),
      table_only(records("",
                         fmt::format("C_max / users by TPS threshold (TTFT <= {} ms)",
                                     plain_number(r.slo.ttft.value() * 1e3)),
                         sensitivity_wide(
                             r.tps_sensitivity,
                             [](const SensitivityRow& row) {
                               return plain_number(row.slo.tps.tokens_per_second()) + " tokens/s";
                             },
                             "TPS", true))),
      records("scaling",
              by_rate ? "scaling efficiency: TPS speed-up over the ideal TP ratio at one rate"
                      : "scaling efficiency: TPS speed-up over the ideal TP ratio",
              std::move(scaling)),
  };
  // Appended, not listed above: an initializer list copies its elements,
  // and the points are most of the document (100,000 levels, docs/hardening.md).
  doc.fields.push_back(records("points", "measured points", std::move(points)));
  doc.warnings = r.warnings;
  return doc;
}

}  // namespace tpnet
