// `vllm bench serve --save-result` files: one JSON object per concurrency
// level (or one per line with --append-result), read with yaml-cpp.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "../base/ascii_case.hpp"
#include "json_value.hpp"
#include "tpnet/base/text.hpp"
#include "tpnet/io/sweep_io.hpp"
#include "tpnet/io/text_file.hpp"
#include "yaml_fields.hpp"

namespace tpnet {
namespace {

constexpr double kMaxMs = 1e9;  // eleven days: anything above is not a measurement
// 1 ns: below it 1000 / mean_tpot_ms x concurrency overflows (found by tests/fuzz).
constexpr double kMinMs = 1e-6;

/// A positive number under `key`, or nullopt when the key is absent or null.
constexpr double kMaxRate = 1e6;   // requests per second: above it no server measured it
constexpr double kMinRate = 1e-6;  // one request in eleven days: below it nothing was measured

/// A result's keys over the project's JSON tree (io/json_value.hpp: a line
/// of a JSON-lines file parses in microseconds, where yaml-cpp took 0.3 ms),
/// with the checks and messages io/yaml_fields gives the same keys in YAML.
/// A key whose value is null counts as absent.
class Fields {
 public:
  Fields(const json::Value& object, const std::string& origin) : object_(object), origin_(origin) {}

  [[nodiscard]] const json::Value* raw(std::string_view key) const { return object_.find(key); }
  [[nodiscard]] bool has(std::string_view key) const { return raw(key) != nullptr; }
  [[nodiscard]] bool present(std::string_view key) const {
    const json::Value* v = raw(key);
    return v != nullptr && !v->is_null();
  }
  /// A string, number or boolean: what YAML calls a scalar.
  [[nodiscard]] bool scalar(std::string_view key) const {
    const json::Value* v = raw(key);
    return v != nullptr && (v->is_string() || v->is_number() || v->is_bool());
  }
  [[nodiscard]] InputLocation where(std::string_view key) const {
    const json::Value* v = raw(key);
    return InputLocation::in_file(origin_, v != nullptr ? v->line() : object_.line(),
                                  std::string(key));
  }
  [[nodiscard]] InputLocation where_object() const {
    return InputLocation::in_file(origin_, object_.line(), "");
  }

  [[nodiscard]] std::optional<std::string> text(std::string_view key) const {
    if (!present(key)) return std::nullopt;
    if (!scalar(key)) throw InputError("expected text", where(key));
    return raw(key)->text();
  }

  [[nodiscard]] std::optional<double> number(std::string_view key, double lo, double hi) const {
    if (!present(key)) return std::nullopt;
    const double value = scalar_number(key);
    if (value < lo || value > hi) {
      throw InputError(
          fmt::format("{} is out of range; allowed {:g} to {:g}", raw(key)->text(), lo, hi),
          where(key));
    }
    return value;
  }
  [[nodiscard]] double required_number(std::string_view key, double lo, double hi) const {
    const auto value = number(key, lo, hi);
    if (!value) throw InputError("required key is missing", where(key));
    return *value;
  }

  [[nodiscard]] std::optional<long long> integer(std::string_view key, long long lo,
                                                 long long hi) const {
    if (!present(key)) return std::nullopt;
    const double value = scalar_number(key);
    const std::string& written = raw(key)->text();
    if (value != std::floor(value)) {
      throw InputError("'" + written + "' must be a whole number", where(key));
    }
    std::string_view digits = written;
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
      digits.remove_prefix(1);
    if (digits.size() > 1 && digits.front() == '0' &&
        digits.find_first_not_of("0123456789") == std::string_view::npos) {
      throw InputError(
          fmt::format("'{}' has a leading zero (some tools read it as octal); write {:.0f}",
                      written, value),
          where(key));
    }
    if (value < static_cast<double>(lo) || value > static_cast<double>(hi)) {
      throw InputError(fmt::format("{} is out of range; allowed {} to {}", written, lo, hi),
                       where(key));
    }
    return static_cast<long long>(value);
  }
  [[nodiscard]] long long required_integer(std::string_view key, long long lo, long long hi) const {
    const auto value = integer(key, lo, hi);
    if (!value) throw InputError("required key is missing", where(key));
    return *value;
  }

  /// A time in ms that must be a measurement: positive, at least kMinMs.
  [[nodiscard]] std::optional<double> positive(std::string_view key) const {
    const auto value = number(key, 0.0, kMaxMs);
    if (value && !(*value > 0.0)) throw InputError("must be positive", where(key));
    if (value && *value < kMinMs) {
      throw InputError(fmt::format("is {:g} ms, under {:g} ms: not a measurement", *value, kMinMs),
                       where(key));
    }
    return value;
  }

  /// vLLM writes an unlimited rate as the string "inf" (Python's float("inf")).
  [[nodiscard]] bool infinite_text(std::string_view key) const {
    if (!scalar(key)) return false;
    const std::string text = detail::lowercase(raw(key)->text());
    return text == "inf" || text == "infinity" || text == "+inf";
  }

 private:
  [[nodiscard]] double scalar_number(std::string_view key) const {
    const json::Value& v = *raw(key);
    if (!scalar(key)) {
      throw InputError(std::string("expected a number, found a ") + (v.is_object()  ? "mapping"
                                                                     : v.is_array() ? "list"
                                                                                    : "value"),
                       where(key));
    }
    const std::string& text = v.text();
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || ptr == text.data() ||
        !std::isfinite(value)) {
      throw InputError("'" + text + "' is not a number", where(key));
    }
    return value;
  }

  const json::Value& object_;
  const std::string& origin_;
};

/// The load a run put on the server: request_rate (a number, or "inf" for
/// every request at once) and max_concurrency (a cap, or null for none).
void read_load(const Fields& root, BenchResult& r) {
  if (root.present("ramp_up_strategy")) {
    // vLLM's --ramp-up-strategy: the rate climbs from ramp_up_start_rps to
    // ramp_up_end_rps while request_rate stays "inf", so "inf" would read
    // as every request sent at once.
    const auto start = root.number("ramp_up_start_rps", 0.0, kMaxRate);
    const auto end = root.number("ramp_up_end_rps", 0.0, kMaxRate);
    throw InputError(
        fmt::format("is '{}': the request rate ramped{} during the run, so it measured no one "
                    "load level; tpnet reads runs at one --request-rate or --max-concurrency",
                    root.scalar("ramp_up_strategy") ? root.raw("ramp_up_strategy")->text()
                                                    : std::string("set"),
                    start && end ? fmt::format(" from {:g} to {:g} requests/s", *start, *end)
                                 : std::string()),
        root.where("ramp_up_strategy"));
  }
  const bool rate = root.present("request_rate");
  const bool cap = root.present("max_concurrency");
  const bool unlimited_rate = rate && root.infinite_text("request_rate");
  if (cap) {
    r.point.concurrency = static_cast<int>(root.required_integer("max_concurrency", 1, 1000000));
  }
  if (rate && !unlimited_rate) {
    const double value = root.required_number("request_rate", 0.0, kMaxRate);
    if (!(value >= kMinRate)) {
      throw InputError(fmt::format("must be a positive number of requests/s (at least {:g}) or "
                                   "\"inf\"",
                                   kMinRate),
                       root.where("request_rate"));
    }
    r.axis = LoadAxis::request_rate;
    r.point.request_rate = value;
    return;
  }
  if (cap) return;  // the usual closed loop: every request sent, at most N in flight
  if (unlimited_rate) {
    r.axis = LoadAxis::request_rate;  // the top of a rate sweep: every request at once
    return;
  }
  // max_concurrent_requests (vLLM 0.10+) is the peak number of requests the
  // client saw in flight, a measurement: it exceeds the cap in real files
  // (28 under --max-concurrency 25), so it never stands in for the setting.
  const bool has_peak = root.present("max_concurrent_requests");
  throw InputError(
      fmt::format("is missing or null, and so is request_rate: the run measured neither a fixed "
                  "concurrency nor a request rate{}; rerun vllm bench serve with "
                  "--max-concurrency N or --request-rate R",
                  has_peak ? " (max_concurrent_requests is the peak vLLM observed in flight, "
                             "not the concurrency it was run at)"
                           : ""),
      root.where("max_concurrency"));
}

BenchResult read_result(const json::Value& object, const std::string& origin,
                        const BenchNaming& naming) {
  if (!object.is_object()) {
    throw InputError("expected a mapping of keys for a vllm bench serve result",
                     InputLocation::in_file(origin, object.line(), ""));
  }
  const Fields root(object, origin);
  if (!root.has("mean_ttft_ms") && !root.has("max_concurrency")) {
    throw InputError(
        "is not a vllm bench serve result: it has neither mean_ttft_ms nor max_concurrency",
        root.where_object());
  }
  BenchResult r;
  r.point.source = root.where_object();
  read_load(root, r);

  // Requests first: when every request failed vLLM still writes its means,
  // as 0 (numpy's mean of nothing), which would read as the fastest run.
  const auto completed = root.integer("completed", 0, 1LL << 40);
  const auto failed = root.integer("failed", 0, 1LL << 40);
  if (completed && *completed == 0) {
    throw InputError(
        failed && *failed > 0
            ? fmt::format("is 0 and failed is {}: every request failed, so the means (written as "
                          "0) measure nothing; see the errors vllm bench serve printed",
                          *failed)
            : std::string("is 0: no request completed, so the means measure nothing"),
        root.where("completed"));
  }
  if (const auto sent = root.integer("num_prompts", 0, 1LL << 40);
      sent && completed && failed && *completed + *failed > *sent) {
    throw InputError(fmt::format("{} completed and {} failed add up to more than num_prompts {}: "
                                 "the file is not one vllm bench serve run",
                                 *completed, *failed, *sent),
                     root.where("failed"));
  }

  const auto ttft_ms = root.positive("mean_ttft_ms");
  if (!ttft_ms) {
    throw InputError("required key is missing (the TTFT SLO needs it)", root.where("mean_ttft_ms"));
  }
  r.point.ttft = Seconds::milliseconds(*ttft_ms);
  const auto tpot_ms = root.positive("mean_tpot_ms");
  const auto itl_ms = root.positive("mean_itl_ms");
  if (itl_ms) r.point.itl = Seconds::milliseconds(*itl_ms);
  if (tpot_ms) {
    r.point.tps = rate_from_interval(Seconds::milliseconds(*tpot_ms));
    r.tps_from = "1000 / mean_tpot_ms";
    r.point.check_tps_against_itl = false;
  } else if (itl_ms) {
    r.point.tps = rate_from_interval(Seconds::milliseconds(*itl_ms));
    r.tps_from = "1000 / mean_itl_ms";
  } else {
    throw InputError("required key is missing: the decode rate needs mean_tpot_ms or mean_itl_ms",
                     root.where("mean_tpot_ms"));
  }
  // The percentiles an SLO may judge instead of the means (slo.statistic):
  // the decode rate at a percentile is 1 / that percentile of TPOT (of ITL
  // when the file has no TPOT), the rate that share of requests reaches.
  const std::string interval = tpot_ms ? "tpot" : "itl";
  for (std::size_t i = 0; i < kSloPercentiles.size(); ++i) {
    const std::string name(to_string(kSloPercentiles[i]));
    // A percentile of 0 (one-token outputs have no TPOT) is left unset: the
    // means still judge, and only an SLO on that statistic is refused.
    const auto ttft = root.number(fmt::format("{}_ttft_ms", name), 0.0, kMaxMs);
    if (ttft && *ttft >= kMinMs) r.point.ttft_percentiles_s[i] = *ttft / 1e3;
    const auto step = root.number(fmt::format("{}_{}_ms", name, interval), 0.0, kMaxMs);
    if (step && *step >= kMinMs) {
      r.point.tps_percentiles[i] =
          rate_from_interval(Seconds::milliseconds(*step)).tokens_per_second();
    }
  }

  if (failed && *failed > 0) {
    const std::string level =
        r.axis == LoadAxis::concurrency ? fmt::format("max_concurrency {}", r.point.concurrency)
        : r.point.request_rate          ? fmt::format("request_rate {:g}", *r.point.request_rate)
                                        : std::string("request_rate inf");
    const std::string share =
        completed ? fmt::format(" ({} of {}, {:.1f}%)", *failed, *completed + *failed,
                                100.0 * static_cast<double>(*failed) /
                                    static_cast<double>(*completed + *failed))
                  : std::string();
    r.warnings.push_back(fmt::format(
        "{}: {} request(s) failed at {}{}; TTFT, TPS and latency are the means of the {} that "
        "completed, and the server did not serve the others",
        origin, *failed, level, share,
        completed ? std::to_string(*completed) : std::string("requests")));
  }
  r.point.completed = completed;
  if (const auto duration = root.number("duration", 0.0, 1e9)) {
    if (*duration > 0.0) r.point.duration = Seconds(*duration);
  }
  if (const auto p99 = root.positive("p99_e2el_ms")) {
    r.point.p99_latency = Seconds::milliseconds(*p99);
  }
  if (const auto achieved = root.number("request_throughput", 0.0, kMaxRate)) {
    if (*achieved > 0.0) r.point.achieved_rate = *achieved;
  }
  if (const auto output = root.number("output_throughput", 0.0, 1e12)) {
    if (*output > 0.0) r.point.output_throughput = TokenRate(*output);
  }
  if (root.present("burstiness")) {
    const double burstiness = root.required_number("burstiness", 0.0, 1e6);
    if (!(burstiness > 0.0)) {
      throw InputError("must be positive (vLLM's gamma shape; 1 = Poisson arrivals)",
                       root.where("burstiness"));
    }
    r.point.burstiness = burstiness;
  }
  const auto output_tokens = root.number("total_output_tokens", 0.0, 1e15);
  if (const auto e2el_ms = root.positive("mean_e2el_ms")) {
    r.point.latency = Seconds::milliseconds(*e2el_ms);
    r.latency_from = "mean_e2el_ms";
  } else if (tpot_ms && output_tokens && completed) {
    const double per_request = *output_tokens / static_cast<double>(*completed);
    if (per_request >= 1.0) {
      r.point.latency = Seconds::milliseconds(*ttft_ms + *tpot_ms * (per_request - 1.0));
      r.latency_from = "mean_ttft_ms + mean_tpot_ms x (total_output_tokens / completed - 1)";
    }
  }

  r.config = root.text(naming.config_key);
  if (r.config && r.config->empty()) r.config.reset();
  if (!r.config && naming.config_key == "config") {
    // vLLM's own --label, where no --metadata config=NAME was given.
    if (root.present("label") && root.scalar("label")) {
      r.config = root.text("label");
      if (r.config && r.config->empty()) r.config.reset();
    }
  }
  if (root.present("model_id") && root.scalar("model_id") &&
      !root.raw("model_id")->text().empty()) {
    r.model_id = root.raw("model_id")->text();
  }
  for (const char* key : {"label", "backend", "endpoint_type"}) {
    if (root.present(key) && root.scalar(key)) {
      r.file_name_prefixes.push_back(root.raw(key)->text());
    }
  }
  if (auto tp = root.integer("tp", 1, 4096)) {
    r.tp = static_cast<int>(*tp);
  } else if (auto size = root.integer("tensor_parallel_size", 1, 4096)) {
    r.tp = static_cast<int>(*size);
  }
  return r;
}

/// A point's load level as a map key: its concurrency, or its request rate
/// with an unlimited run ("inf") above every rate.
double level_key(const SweepPoint& p, LoadAxis axis) {
  if (axis == LoadAxis::concurrency) return p.concurrency;
  return p.request_rate.value_or(std::numeric_limits<double>::infinity());
}

/// The number after a leading "TP" (any case): TP8-300K -> 8.
std::optional<int> tp_from_name(const std::string& name) {
  if (name.size() < 3 || std::toupper(static_cast<unsigned char>(name[0])) != 'T' ||
      std::toupper(static_cast<unsigned char>(name[1])) != 'P') {
    return std::nullopt;
  }
  int tp = 0;
  std::size_t i = 2;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && tp < 100000) {
    tp = tp * 10 + (name[i] - '0');
    ++i;
  }
  if (i == 2 || tp < 1 || tp > 4096) return std::nullopt;
  if (i < name.size() && std::isalpha(static_cast<unsigned char>(name[i]))) return std::nullopt;
  return tp;
}

bool looks_like_json(const std::string& path, std::string_view text) {
  const auto ext = std::filesystem::path(path).extension().string();
  if (ext == ".json" || ext == ".jsonl") return true;
  if (ext == ".csv") return false;
  const auto first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

std::string file_and_line(const InputLocation& at) {
  return at.line > 0 ? at.file + ":" + std::to_string(at.line) : at.file;
}

std::optional<double> number_in(std::string_view word) {
  if (word.empty() || !(std::isdigit(static_cast<unsigned char>(word.front())) != 0)) {
    return std::nullopt;
  }
  if (!std::all_of(word.begin(), word.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.';
      })) {
    return std::nullopt;
  }
  try {
    return std::stod(std::string(word));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Whether a word of a result's file name says its load level: vLLM's
/// "0.5qps", "infqps" and "concurrency8", its date and time (20250101,
/// 120000), or the run's own rate or cap as a number, bare or after "c",
/// "conc", "rate", "qps" or "rps" ("11-rate-sweep-0.5", "c16").
bool names_the_level(std::string_view word, const BenchResult& r) {
  const std::string w = detail::lowercase(std::string(word));
  const bool digits = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  if (digits && (w.size() == 8 || w.size() == 6)) return true;  // vLLM's %Y%m%d-%H%M%S
  const auto level_is = [&](std::string_view number) {
    if (number == "inf") return !r.point.request_rate;
    const auto value = number_in(number);
    if (!value) return false;
    if (r.point.request_rate && std::fabs(*value - *r.point.request_rate) <= 1e-9 * *value) {
      return true;
    }
    return r.point.concurrency > 0 && *value == static_cast<double>(r.point.concurrency);
  };
  for (std::string_view suffix : {"qps", "rps"}) {
    if (w.size() > suffix.size() && w.ends_with(suffix)) {
      return level_is(std::string_view(w).substr(0, w.size() - suffix.size()));
    }
  }
  for (std::string_view prefix : {"concurrency", "conc", "rate", "qps", "rps", "c"}) {
    if (w.size() > prefix.size() && w.starts_with(prefix)) {
      return level_is(std::string_view(w).substr(prefix.size()));
    }
  }
  return level_is(w);
}

/// A config name for a result that records none: its model (`model_id`
/// after the last '/', as vLLM names files) and what its file name says
/// besides the model, vLLM's label and the load level, so the runs of one
/// sweep ("11-rate-sweep-0.1.json" .. "-1.0.json") group together and other
/// runs of the same model ("10-monday-peak.json") stay apart.
std::optional<std::string> plain_config_name(const BenchResult& r) {
  if (!r.model_id) return std::nullopt;
  const std::string& id = *r.model_id;
  const std::string model =
      id.substr(id.find_last_of('/') == std::string::npos ? 0 : id.find_last_of('/') + 1);
  if (model.empty()) return std::nullopt;
  std::string stem = std::filesystem::path(r.point.source.file).stem().string();
  if (const auto at = stem.find(model); at != std::string::npos) stem.erase(at, model.size());
  for (const auto& prefix : r.file_name_prefixes) {
    if (!prefix.empty() && stem.starts_with(prefix) &&
        (stem.size() == prefix.size() ||
         std::string_view("-_ ").find(stem[prefix.size()]) != std::string_view::npos)) {
      stem.erase(0, prefix.size());
      break;
    }
  }
  std::string rest;
  std::size_t start = 0;
  while (start <= stem.size()) {
    std::size_t end = stem.find_first_of("-_ ", start);
    if (end == std::string::npos) end = stem.size();
    const std::string_view word = std::string_view(stem).substr(start, end - start);
    if (!word.empty() && !names_the_level(word, r)) {
      rest += (rest.empty() ? "" : "-") + std::string(word);
    }
    start = end + 1;
  }
  return rest.empty() ? model : model + " " + rest;
}

}  // namespace

namespace {

/// Where the JSON value starting at `pos` ends (one past its last byte), or
/// npos when the text ends first. Only brackets and strings are tracked: the
/// point is to find a record cut short or two records run together before
/// yaml-cpp, which stops after the first value and ignores the rest.
std::size_t json_value_end(std::string_view text, std::size_t pos) {
  const char first = text[pos];
  if (first != '{' && first != '[' && first != '"') {
    const std::size_t end = text.find_first_of(" \t\r\n,]}", pos);
    return end == std::string_view::npos ? text.size() : end;
  }
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = pos; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (depth == 0) return i + 1;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

struct TextLine {
  int number = 0;
  std::string_view text;  ///< trimmed
};

std::vector<TextLine> non_blank_lines(std::string_view text) {
  std::vector<TextLine> lines;
  int number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    ++number;
    std::string_view line =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    line = trim_space(line);
    if (!line.empty()) lines.push_back(TextLine{number, line});
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return lines;
}

/// Why one line of a JSON-lines file is not one whole result object, or ""
/// when it is.
std::string line_fault(const TextLine& line, bool last) {
  const std::string_view text = line.text;
  if (text.front() != '{') {
    return text.front() == '['
               ? "is a JSON array inside a file of one object per line; --append-result writes "
                 "each result as one object on its own line"
               : "is not a JSON object; a vllm bench serve result file holds one object, or one "
                 "per line as --append-result writes them";
  }
  const std::size_t end = json_value_end(text, 0);
  if (end == std::string_view::npos) {
    return last ? "is not valid JSON: cut short, its object never closes (an interrupted run "
                  "leaves its last line so); remove the line or rerun that level"
                : "its JSON object does not close on this line: a file holds one JSON object, or "
                  "one per line as --append-result writes them";
  }
  if (end < text.size()) {
    return "holds more than one JSON value (two records run together?); --append-result "
           "writes each result on its own line";
  }
  return "";
}

/// A file's documents: the whole text when it is one JSON value, else one
/// per line, each line a whole object. Refuses, naming the line, anything
/// else: a damaged file must not read as its first record.
std::vector<TextLine> json_documents(std::string_view text, const std::string& origin) {
  std::vector<TextLine> lines = non_blank_lines(text);
  if (lines.empty()) {
    throw InputError("is empty; expected a vllm bench serve result (JSON)",
                     InputLocation::in_file(origin));
  }
  const std::size_t begin = text.find_first_not_of(" \t\r\n");
  const std::size_t end = json_value_end(text, begin);
  if (end != std::string_view::npos && blank(text.substr(end))) {
    return {TextLine{lines.front().number, text}};  // whole, so yaml-cpp's lines are the file's
  }
  if (end == std::string_view::npos &&
      (lines.size() == 1 || json_value_end(lines.front().text, 0) == std::string_view::npos)) {
    throw InputError(
        "is not valid JSON: cut short, the value that starts here never closes (an interrupted "
        "run leaves a file so)",
        InputLocation::in_file(origin, lines.front().number));
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string fault = line_fault(lines[i], i + 1 == lines.size());
    if (!fault.empty()) throw InputError(fault, InputLocation::in_file(origin, lines[i].number));
  }
  return lines;
}

/// A document that holds none of a result's keys: a folder's meta.json or a
/// harness's summary, not a damaged result.
bool is_other_document(const json::Value& root) {
  const auto is_result = [](const json::Value& item) {
    return item.is_object() &&
           (item.find("mean_ttft_ms") != nullptr || item.find("max_concurrency") != nullptr);
  };
  if (root.is_array()) return std::none_of(root.items().begin(), root.items().end(), is_result);
  return root.is_object() && !is_result(root);
}

std::vector<BenchResult> read_documents(std::string_view given, const std::string& origin,
                                        const BenchNaming& naming, bool skip_others,
                                        std::vector<std::string>* skipped) {
  // --save-detailed adds per-request arrays, most of a file's size, that
  // nothing here reads: dropped before parsing, so memory follows the rest.
  const std::string kept = yaml::without_top_level_keys(
      given,
      {"input_lens", "output_lens", "ttfts", "itls", "generated_texts", "errors", "start_times"});
  const std::string_view text = kept;
  const std::vector<TextLine> documents = json_documents(text, origin);
  std::vector<BenchResult> results;
  for (const auto& document : documents) {
    try {
      const json::Value root = json::parse(document.text, origin);
      if (skip_others && documents.size() == 1 && is_other_document(root)) {
        if (skipped != nullptr) skipped->push_back(origin);
        return {};
      }
      // A JSON array of results (several runs gathered into one list).
      const auto read = [&](const json::Value& item) {
        results.push_back(read_result(item, origin, naming));
        if (documents.size() > 1) results.back().point.source.line = document.number;
      };
      if (root.is_array()) {
        for (const auto& item : root.items()) read(item);
      } else {
        read(root);
      }
    } catch (const InputError& e) {
      if (documents.size() == 1) throw;
      InputLocation at = e.where();
      at.line = document.number;
      throw InputError(e.detail(), at);
    }
  }
  return results;
}

}  // namespace

std::vector<BenchResult> parse_vllm_bench_json(std::string_view text, const std::string& origin,
                                               const BenchNaming& naming) {
  return read_documents(text, origin, naming, false, nullptr);
}

SweepSet sweeps_from_bench(const std::vector<BenchResult>& results,
                           const std::optional<std::string>& config_name,
                           const BenchNaming& naming) {
  SweepSet set;
  std::map<std::string, std::size_t> index;
  std::map<std::string, std::set<std::string>> derivations;
  // (config, level) -> index of its point: a map, so a file of many levels reads in n log n.
  std::map<std::pair<std::string, double>, std::size_t> seen;
  for (const auto& r : results) {
    const InputLocation& at = r.point.source;
    std::string name;
    bool named_by_model = false;
    if (config_name) {
      name = *config_name;
      if (r.config && *r.config != name) {
        set.warnings.push_back(fmt::format("{}: its config key says '{}'; read as config '{}'",
                                           file_and_line(at), *r.config, name));
      }
    } else if (r.config) {
      name = *r.config;
    } else if (auto plain = plain_config_name(r)) {
      name = *plain;
      named_by_model = true;
    } else {
      throw InputError(
          fmt::format(
              "names no config (no key '{}', no model_id): record one with vllm bench serve's "
              "--metadata config=NAME tp=N, name the key that does (`sweep.config_key`), or "
              "name the files on the command line (`sweeps` NAME=PATH)",
              naming.config_key),
          InputLocation::in_file(at.file, at.line, naming.config_key));
    }
    if (r.model_id) set.model_ids.emplace(name, *r.model_id);
    std::optional<int> tp = r.tp ? r.tp : tp_from_name(name);
    if (!tp) tp = naming.tp;
    if (!tp) {
      throw InputError(fmt::format("the TP size of config '{}' is unknown: record it with vllm "
                                   "bench serve's --metadata tp=N, name the config TP<N> (e.g. "
                                   "TP4=PATH), or state it for results that record none "
                                   "(`sweep.tp`)",
                                   name),
                       InputLocation::in_file(at.file, at.line, "tp"));
    }
    const auto [it, added] = index.emplace(name, set.sweeps.size());
    if (added) {
      set.sweeps.push_back(Sweep{name, *tp, r.axis, {}, {}});
    } else if (set.sweeps[it->second].axis != r.axis) {
      const Sweep& first = set.sweeps[it->second];
      throw InputError(
          fmt::format("config '{}' mixes runs with a fixed request rate and runs without one "
                      "(fixed concurrency only, as in {}): a sweep varies one of them; name them "
                      "as two configs",
                      name, file_and_line(first.points.front().source)),
          InputLocation::in_file(at.file, at.line, "request_rate"));
    } else if (set.sweeps[it->second].tp != *tp) {
      throw InputError(fmt::format("config '{}' has tp {} here and {} in {}", name, *tp,
                                   set.sweeps[it->second].tp,
                                   file_and_line(set.sweeps[it->second].points.front().source)),
                       InputLocation::in_file(at.file, at.line, "tp"));
    }
    Sweep& sweep = set.sweeps[it->second];
    const auto [dup, fresh] =
        seen.emplace(std::make_pair(name, level_key(r.point, r.axis)), sweep.points.size());
    if (!fresh) {
      const SweepPoint& p = sweep.points[dup->second];
      const std::string hint =
          named_by_model ? "; these results record no config, so their model_id and file name "
                           "named them: name the key that tells them apart "
                           "(`sweep.config_key`), or the files (`sweeps` NAME=PATH)"
                         : "";
      if (r.axis == LoadAxis::concurrency) {
        throw InputError(fmt::format("config '{}' has max_concurrency {} twice (also in {}){}",
                                     name, r.point.concurrency, file_and_line(p.source), hint),
                         InputLocation::in_file(at.file, at.line, "max_concurrency"));
      }
      throw InputError(fmt::format("config '{}' has request_rate {} twice (also in {}){}", name,
                                   p.request_rate ? fmt::format("{:g}", *p.request_rate) : "inf",
                                   file_and_line(p.source), hint),
                       InputLocation::in_file(at.file, at.line, "request_rate"));
    }
    sweep.points.push_back(r.point);
    derivations[name].insert("TPS = " + r.tps_from);
    derivations[name].insert(r.latency_from.empty()
                                 ? "latency not in the result (vllm bench serve writes "
                                   "mean_e2el_ms with --percentile-metrics ttft,tpot,itl,e2el)"
                                 : "latency = " + r.latency_from);
    set.warnings.insert(set.warnings.end(), r.warnings.begin(), r.warnings.end());
  }
  for (auto& s : set.sweeps) {
    std::string joined;
    for (const auto& d : derivations[s.config]) joined += (joined.empty() ? "" : "; ") + d;
    s.notes.push_back("from vllm bench serve results: " + joined);
  }
  return set;
}

SweepSet load_sweeps(const std::string& path, const std::optional<std::string>& config_name,
                     const BenchNaming& naming) {
  if (config_name && config_name->empty()) {
    throw InputError("the config name before '=' is empty", InputLocation::in_file(path));
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      const auto ext = entry.path().extension();
      // Every *.json entry is read as a file: one that is not (a folder, a
      // symlink loop, a FIFO) is refused by read_text_file, naming it.
      if (ext == ".json" || ext == ".jsonl") files.push_back(entry.path().string());
    }
    if (ec) throw InputError("cannot be listed", InputLocation::in_file(path));
    if (files.empty()) {
      throw InputError("has no *.json files (vllm bench serve results)",
                       InputLocation::in_file(path));
    }
    std::sort(files.begin(), files.end());
    std::vector<BenchResult> results;
    // Result folders also hold a harness's meta.json or summary: those are
    // skipped, named in a warning. A damaged result is still refused.
    std::vector<std::string> skipped;
    for (const auto& file : files) {
      auto more = read_documents(read_text_file(file), file, naming, true, &skipped);
      results.insert(results.end(), more.begin(), more.end());
    }
    if (results.empty()) {
      throw InputError(fmt::format("has no vllm bench serve results: none of its {} *.json files "
                                   "has mean_ttft_ms or max_concurrency",
                                   files.size()),
                       InputLocation::in_file(path));
    }
    SweepSet set = sweeps_from_bench(results, config_name, naming);
    for (const auto& file : skipped) {
      set.warnings.push_back(fmt::format(
          "{}: skipped: not a vllm bench serve result (no mean_ttft_ms, no max_concurrency)",
          file));
    }
    return set;
  }
  const std::string text = read_text_file(path);
  if (looks_like_json(path, text)) {
    return sweeps_from_bench(parse_vllm_bench_json(text, path, naming), config_name, naming);
  }
  if (config_name) {
    throw InputError(
        "a CSV names its configs in its config column; give the file without "
        "NAME=",
        InputLocation::in_file(path));
  }
  return parse_sweep_csv(text, path);
}

SweepSet merge_sweep_sets(std::vector<SweepSet> sets) {
  SweepSet out;
  std::map<std::string, std::size_t> index;
  for (auto& set : sets) {
    out.warnings.insert(out.warnings.end(), set.warnings.begin(), set.warnings.end());
    out.model_ids.insert(set.model_ids.begin(), set.model_ids.end());
    for (auto& s : set.sweeps) {
      const auto [it, added] = index.emplace(s.config, out.sweeps.size());
      if (added) {
        out.sweeps.push_back(std::move(s));
        continue;
      }
      Sweep& into = out.sweeps[it->second];
      const InputLocation first =
          s.points.empty() ? InputLocation::for_key("sweeps") : s.points.front().source;
      if (into.tp != s.tp) {
        throw InputError(
            fmt::format(
                "config '{}' has tp {} here and {} in {}", s.config, s.tp, into.tp,
                into.points.empty() ? "another sweep" : file_and_line(into.points[0].source)),
            first);
      }
      if (into.axis != s.axis) {
        throw InputError(
            fmt::format(
                "config '{}' is a {} sweep here and a {} sweep in {}; name them as two "
                "configs",
                s.config, to_string(s.axis), to_string(into.axis),
                into.points.empty() ? "another file" : file_and_line(into.points[0].source)),
            first);
      }
      std::map<double, std::size_t> levels;
      for (std::size_t i = 0; i < into.points.size(); ++i) {
        levels.emplace(level_key(into.points[i], into.axis), i);
      }
      for (const auto& p : s.points) {
        const auto [dup, fresh] = levels.emplace(level_key(p, s.axis), into.points.size());
        if (!fresh) {
          throw InputError(
              fmt::format("config '{}' has {} twice (also in {})", s.config,
                          s.axis == LoadAxis::concurrency
                              ? fmt::format("concurrency {}", p.concurrency)
                              : fmt::format("request_rate {}",
                                            p.request_rate ? fmt::format("{:g}", *p.request_rate)
                                                           : std::string("inf")),
                          file_and_line(into.points[dup->second].source)),
              p.source);
        }
        into.points.push_back(p);
      }
      for (const auto& n : s.notes) {
        if (std::find(into.notes.begin(), into.notes.end(), n) == into.notes.end()) {
          into.notes.push_back(n);
        }
      }
    }
  }
  return out;
}

std::vector<std::string> model_id_warnings(const SweepSet& set, std::string_view model) {
  const auto letters_and_digits = [](std::string_view text) {
    text = text.substr(
        text.find_last_of('/') == std::string_view::npos ? 0 : text.find_last_of('/') + 1);
    std::string out;
    for (const char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    }
    return out;
  };
  const std::string wanted = letters_and_digits(model);
  std::vector<std::string> warnings;
  if (wanted.empty()) return warnings;
  for (const auto& [config, id] : set.model_ids) {
    const std::string measured = letters_and_digits(id);
    if (measured.find(wanted) != std::string::npos || wanted.find(measured) != std::string::npos) {
      continue;
    }
    warnings.push_back(
        fmt::format("sweep config '{}' was measured on model_id {}, not on {}: its "
                    "capacity says nothing about {}",
                    config, id, model, model));
  }
  return warnings;
}

}  // namespace tpnet
