// Property tests: invariants of the formulas over randomized inputs
// (docs/hardening.md, "Property tests"). Every test draws its cases from a
// generator with a fixed seed, so a run is reproducible; a failure prints the
// seed and the case's inputs. TPNET_PROPERTY_SEED=N reruns with another seed.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_plan.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/model/layout.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"
#include "tpnet/traffic/layout_traffic.hpp"
#include "tpnet/traffic/transfer_time.hpp"
#include "tpnet/usecase/capacity.hpp"
#include "tpnet/usecase/compare.hpp"
#include "tpnet/usecase/penalty.hpp"

namespace {

using namespace tpnet;

/// Cases per property: enough to reach the corners, quick enough that the
/// whole file runs in well under a second in a release build.
constexpr int kCases = 500;

std::uint64_t property_seed() {
  if (const char* text = std::getenv("TPNET_PROPERTY_SEED"); text != nullptr && *text != '\0') {
    return std::strtoull(text, nullptr, 10);
  }
  return 20260611;
}

/// Random inputs from one seeded generator.
class Draw {
 public:
  explicit Draw(std::uint64_t seed) : rng_(seed) {}

  long long integer(long long lo, long long hi) {
    return std::uniform_int_distribution<long long>(lo, hi)(rng_);
  }
  int small(int lo, int hi) { return static_cast<int>(integer(lo, hi)); }
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  /// Spread evenly over orders of magnitude, so 1 and 10^15 are both reached.
  double log_uniform(double lo, double hi) { return std::exp(uniform(std::log(lo), std::log(hi))); }
  /// A whole number spread over orders of magnitude.
  long long log_integer(long long lo, long long hi) {
    const auto v = static_cast<long long>(
        std::llround(log_uniform(static_cast<double>(lo), static_cast<double>(hi))));
    return std::clamp(v, lo, hi);
  }
  bool coin() { return integer(0, 1) == 1; }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[static_cast<std::size_t>(integer(0, static_cast<long long>(items.size()) - 1))];
  }

 private:
  std::mt19937_64 rng_;
};

/// The seed, for the failure message of every check in the test.
#define PROPERTY_SEED(seed) \
  INFO("property seed " << (seed) << " (rerun: TPNET_PROPERTY_SEED=" << (seed) << ")")

ModelArch random_shapes(Draw& d) {
  ModelArch m;
  m.name = "random";
  m.hidden_size = d.log_integer(1, model_limits::kMaxHidden);
  LayerSpec layer;
  layer.mixer.attention.q_heads = layer.mixer.attention.kv_heads = 1;
  layer.mixer.attention.head_dim = layer.mixer.attention.v_head_dim = 1;
  m.layers.append(layer, static_cast<int>(d.log_integer(1, model_limits::kMaxLayers)));
  m.vocab_size = d.log_integer(1, model_limits::kMaxVocab);
  return m;
}

EngineConfig random_engine(Draw& d) {
  EngineConfig e;
  e.tensor_parallel_size = d.small(2, 64);
  e.max_num_batched_tokens = d.log_integer(1, 16777216);
  e.activation_bytes = d.small(1, 8);
  e.allreduces_per_layer = d.small(0, 16);
  e.extra_allreduces_per_forward = d.small(0, 1024);
  e.algorithm = d.coin() ? CollectiveAlgorithm::ring : CollectiveAlgorithm::tree;
  return e;
}

Link link_at(double bps) {
  Link link;
  link.name = fmt::format("{}b/s", bps);
  link.rate = BitRate(bps);
  return link;
}

/// Every built-in model, read once.
std::vector<ModelArch> builtin_models() {
  std::vector<ModelArch> out;
  for (const auto& name : builtin_model_names()) out.push_back(builtin_model(name));
  return out;
}

/// A link rate from 1 Mb/s to 10 Tb/s.
double random_rate(Draw& d) { return d.log_uniform(1e6, 1e13); }

}  // namespace

TEST_CASE("bytes per token grow with TP and never exceed 2 x the block", "[property]") {
  const std::uint64_t seed = property_seed();
  PROPERTY_SEED(seed);
  Draw d(seed);
  for (int i = 0; i < kCases; ++i) {
    const ModelArch model = random_shapes(d);
    EngineConfig small = random_engine(d);
    EngineConfig large = small;
    small.tensor_parallel_size = d.small(1, 1023);
    large.tensor_parallel_size = d.small(small.tensor_parallel_size + 1, 1024);
    CAPTURE(i, model.hidden_size, model.num_layers(), small.activation_bytes,
            small.allreduces_per_layer.value_or(-1), small.extra_allreduces_per_forward,
            to_string(small.algorithm), small.tensor_parallel_size, large.tensor_parallel_size);

    const Bytes block = activation_block(model, small, 1) * allreduces_per_forward(model, small);
    const Bytes fewer = bytes_per_prompt_token(model, small);
    const Bytes more = bytes_per_prompt_token(model, large);
    CHECK(fewer.count() >= 0.0);
    CHECK(fewer <= more);
    CHECK(more.count() <= 2.0 * block.count());
    if (small.algorithm == CollectiveAlgorithm::ring && block.count() > 0.0) {
      CHECK(fewer < more);  // ring: 2(N-1)/N rises with every node
    }
    EngineConfig one = small;
    one.tensor_parallel_size = 1;
    CHECK(bytes_per_prompt_token(model, one).count() == 0.0);  // TP1 sends nothing
  }
}

TEST_CASE("the penalty bound is zero for equal links and not negative for a slower one",
          "[property]") {
  const std::uint64_t seed = property_seed();
  PROPERTY_SEED(seed);
  Draw d(seed);
  for (int i = 0; i < kCases; ++i) {
    const Bytes bytes(d.log_uniform(1.0, 1e15));
    const BitRate from(random_rate(d));
    const BitRate to(from.bits_per_second() * d.uniform(0.0, 1.0));
    CAPTURE(i, bytes.count(), from.bits_per_second(), to.bits_per_second());
    if (to.bits_per_second() <= 0.0) continue;
    CHECK(extra_transfer_time(bytes, from, from).value() == 0.0);
    CHECK(extra_transfer_time(bytes, from, to).value() >= 0.0);
    CHECK(extra_transfer_time(bytes, to, from).value() <= 0.0);  // a faster link gains time
  }
}

TEST_CASE("the penalty bound is monotone in link rate and prompt length", "[property]") {
  const std::uint64_t seed = property_seed();
  PROPERTY_SEED(seed);
  Draw d(seed);
  const std::vector<ModelArch> models = builtin_models();
  for (int i = 0; i < kCases; ++i) {
    const ModelArch& model = d.pick(models);
    EngineConfig engine = random_engine(d);
    const double from = random_rate(d);
    const double to_slow = d.log_uniform(from / 1000.0, from);
    const double to_fast = d.log_uniform(to_slow, from);
    const TokenCount shorter = d.log_integer(1, 1 << 20);
    const TokenCount longer = d.log_integer(shorter, 1 << 24);
    CAPTURE(i, model.name, engine.tensor_parallel_size, to_string(engine.algorithm), from, to_slow,
            to_fast, shorter, longer);

    // A slower new link costs at least as much as a faster one; a faster
    // baseline link makes the same new link cost more.
    const Bytes bytes = bytes_per_prompt_token(model, engine) * static_cast<double>(shorter);
    CHECK(extra_transfer_time(bytes, BitRate(from), BitRate(to_slow)) >=
          extra_transfer_time(bytes, BitRate(from), BitRate(to_fast)));
    CHECK(extra_transfer_time(bytes, BitRate(from), BitRate(to_slow)) >=
          extra_transfer_time(bytes, BitRate(to_fast), BitRate(to_slow)));

    const PenaltyReport r = analyze_penalty(
        model, engine, link_at(from), link_at(to_slow),
        {{"shorter", PromptSpec{1, shorter}, {}}, {"longer", PromptSpec{1, longer}, {}}});
    REQUIRE(r.scenarios.size() == 2);
    CHECK(r.scenarios[0].nominal_bound <= r.scenarios[1].nominal_bound);
    CHECK(r.scenarios[0].prefill_bytes_per_node <= r.scenarios[1].prefill_bytes_per_node);
    CHECK(r.scenarios[0].prefill_forwards <= r.scenarios[1].prefill_forwards);
  }
}

TEST_CASE("the penalty bound is additive over requests", "[property]") {
  const std::uint64_t seed = property_seed();
  PROPERTY_SEED(seed);
  Draw d(seed);
  const std::vector<ModelArch> models = builtin_models();
  for (int i = 0; i < kCases; ++i) {
    const ModelArch& model = d.pick(models);
    const EngineConfig engine = random_engine(d);
    const double from = random_rate(d);
    const double to = d.log_uniform(from / 100.0, from * 100.0);
    const long long requests = d.log_integer(1, 1000);
    const TokenCount each = d.log_integer(1, 1 << 16);
    const TokenCount other = d.log_integer(1, 1 << 16);
    CAPTURE(i, model.name, engine.tensor_parallel_size, from, to, requests, each, other);

    const PenaltyReport r = analyze_penalty(model, engine, link_at(from), link_at(to),
                                            {{"one", PromptSpec{1, each}, {}},
                                             {"many", PromptSpec{requests, each}, {}},
                                             {"other", PromptSpec{1, other}, {}},
                                             {"both", PromptSpec{1, each + other}, {}}});
    REQUIRE(r.scenarios.size() == 4);
    const double one = r.scenarios[0].nominal_bound.value();
    const double many = r.scenarios[1].nominal_bound.value();
    const double both = r.scenarios[3].nominal_bound.value();
    const double sum = one + r.scenarios[2].nominal_bound.value();
    CHECK_THAT(many, WithinRel(static_cast<double>(requests) * one, 1e-12));
    CHECK_THAT(both, WithinRel(sum, 1e-12));
    CHECK(r.scenarios[1].total_tokens == requests * each);
  }
}

TEST_CASE("projections never give network shares outside 0 to 1", "[property]") {
  const std::uint64_t seed = property_seed();
  PROPERTY_SEED(seed);
  Draw d(seed);
  const std::vector<ModelArch> models = builtin_models();
  for (int i = 0; i < kCases; ++i) {
    const ModelArch& model = d.pick(models);
    EngineConfig engine = random_engine(d);
    engine.tensor_parallel_size = 1 << d.small(1, 4);
    const double from = random_rate(d);
    const double to = d.log_uniform(from / 100.0, from * 100.0);
    const TokenCount tokens = d.log_integer(1, 1 << 20);
    // Any baseline TTFT, even one shorter than the formula's own network time.
    const Seconds baseline(d.log_uniform(1e-4, 1e4));
    CAPTURE(i, model.name, engine.tensor_parallel_size, from, to, tokens, baseline.value());

    const PenaltyReport r = analyze_penalty(model, engine, link_at(from), link_at(to),
                                            {{"p", PromptSpec{1, tokens}, baseline}});
    const ScenarioPenalty& s = r.scenarios.at(0);
    REQUIRE(s.network_share.has_value());
    CHECK(*s.network_share >= 0.0);
    CHECK(*s.network_share <= 1.0);
    REQUIRE(s.ttft_increase_bound.has_value());
    if (to < from) {
      CHECK(*s.ttft_increase_bound >= 0.0);
      CHECK(*s.ttft_increase_bound <= from / to - 1.0 + 1e-12 * (from / to));
    }
  }
}

TEST_CASE("compare's projected TTFT increase is a share in 0 to 1 of the link's slowdown",
          "[property]") {
  const std::uint64_t seed = property_seed();
  PROPERTY_SEED(seed);
  Draw d(seed);
  const std::vector<ModelArch> models = builtin_models();
  for (int i = 0; i < kCases / 5; ++i) {
    const ModelArch& model = d.pick(models);
    EngineConfig engine = random_engine(d);
    engine.tensor_parallel_size = 8;
    CompareRequest spec;
    spec.model = model;
    spec.engine = engine;
    spec.node = builtin_node("dgx-spark");
    for (int tp : {2, 4, 8, 16}) spec.layouts.push_back(ParallelLayout{tp, 1, 1});
    spec.reference = ParallelLayout{8, 1, 1};
    spec.from = without_profiles({link_at(random_rate(d))});
    spec.to = without_profiles({link_at(random_rate(d)), link_at(random_rate(d))});
    for (int k = 0; k < 3; ++k) {
      spec.prompts.push_back({"p", PromptSpec{d.log_integer(1, 8), d.log_integer(1, 1 << 17)}, {}});
    }
    // A baseline whose TTFT exceeds its own network time by a random compute time.
    TtftBaseline b{ParallelLayout{1 << d.small(1, 4), 1, 1}, Seconds(0.0),
                   PromptSpec{1, d.log_integer(1, 1 << 17)}, link_at(random_rate(d))};
    const Seconds comm = layout_bytes_per_token(model, engine, b.layout) *
                         static_cast<double>(b.prompt.total_tokens()) / b.link.rate;
    b.ttft = comm + Seconds(d.log_uniform(1e-3, 1e3));
    spec.projection = b;
    CAPTURE(i, model.name, to_string(engine.algorithm), b.layout.tp, b.ttft.value(),
            spec.from[0].link.rate.bits_per_second());

    const CompareReport report = run_compare(spec);
    int rows = 0;
    for_each_compare_row(report, [&](const CompareRow& row) {
      ++rows;
      REQUIRE(row.ttft_increase.has_value());
      REQUIRE(report.compute_node_seconds[row.prompt_index].has_value());
      const auto tokens = static_cast<double>(row.prompt->prompt.total_tokens());
      const Seconds per_token =
          *report.compute_node_seconds[row.prompt_index] / row.layout->layout.nodes();
      const Seconds ttft_from = per_token * tokens + row.comm_time_from;
      const double share = row.comm_time_from / ttft_from;
      CAPTURE(row.layout->layout.name(), row.to->rate.bits_per_second(), tokens, share);
      CHECK(share >= 0.0);
      CHECK(share <= 1.0);
      const double slowdown = row.from->rate / row.to->rate - 1.0;
      if (slowdown > 0.0) {
        CHECK(*row.ttft_increase >= 0.0);
        CHECK(*row.ttft_increase <= slowdown * (1.0 + 1e-12));
      } else {
        CHECK(*row.ttft_increase <= 0.0);
      }
    });
    CHECK(rows == 4 * 2 * 3);
  }
}

TEST_CASE("switch plans never put more nodes on a cage than it has sub-ports", "[property]") {
  const std::uint64_t seed = property_seed();
  PROPERTY_SEED(seed);
  Draw d(seed);
  const std::vector<SwitchSpec> switches = builtin_switches();
  const NodeSpec node = builtin_node("dgx-spark");
  REQUIRE_FALSE(switches.empty());
  for (int i = 0; i < kCases; ++i) {
    const SwitchSpec& sw = d.pick(switches);
    const std::vector<BitRate> speeds = sw.speeds();
    REQUIRE_FALSE(speeds.empty());
    const BitRate speed = d.pick(speeds);
    const int nodes = static_cast<int>(d.log_integer(1, 2000));
    CAPTURE(i, sw.name, rate_label(speed), nodes);

    const SwitchAnswer a = answer_for_switch(sw, node, nodes, speed);
    CHECK(a.supports_speed);
    CHECK(a.headline_nodes <= a.max_nodes);
    CHECK(a.fits_one == (nodes <= a.max_nodes));
    for (const SwitchPlan& plan : a.plans) {
      CAPTURE(plan.summary, plan.switches);
      int placed = 0;
      for (const SwitchUnit& unit : plan.units) {
        int on_unit = 0;
        for (const PortUse& use : unit.ports) {
          CAPTURE(use.group, use.mode.name(), use.cages, use.nodes, use.spare_subports);
          const auto group = std::find_if(sw.port_groups.begin(), sw.port_groups.end(),
                                          [&](const PortGroup& g) { return g.name == use.group; });
          REQUIRE(group != sw.port_groups.end());
          CHECK(use.mode.count >= 1);
          CHECK(use.mode.count <= group->lanes);  // a breakout splits the cage's lanes
          CHECK(use.cages >= 1);
          CHECK(use.nodes >= 0);
          CHECK(use.spare_subports >= 0);
          CHECK(use.nodes + use.spare_subports <= use.cages * use.mode.count);
          if (!use.isl) CHECK(use.nodes + use.spare_subports == use.cages * use.mode.count);
          if (use.isl) CHECK(use.nodes == 0);
          on_unit += use.nodes;
        }
        // No port group gives more cages than the switch has.
        for (const PortGroup& g : sw.port_groups) {
          int cages = 0;
          for (const PortUse& use : unit.ports) cages += use.group == g.name ? use.cages : 0;
          CAPTURE(g.name, g.count);
          CHECK(cages <= g.count);
        }
        CHECK(on_unit == unit.nodes);
        placed += unit.nodes * unit.copies;
      }
      CHECK(placed == nodes);
    }
  }
}

TEST_CASE("capacity's C_max is one of the measured levels or 0", "[property]") {
  const std::uint64_t seed = property_seed();
  PROPERTY_SEED(seed);
  Draw d(seed);
  for (int i = 0; i < kCases; ++i) {
    Sweep sweep;
    sweep.config = "random";
    sweep.tp = 1 << d.small(0, 4);
    std::set<int> levels;
    const int count = d.small(1, 12);
    while (static_cast<int>(levels.size()) < count) levels.insert(d.small(1, 1024));
    for (const int c : levels) {
      SweepPoint p;
      p.concurrency = c;
      p.ttft = Seconds(d.log_uniform(0.01, 20.0));
      p.tps = TokenRate(d.log_uniform(1.0, 200.0));
      p.latency = Seconds(d.log_uniform(0.1, 600.0));
      sweep.points.push_back(p);
    }
    std::shuffle(sweep.points.begin(), sweep.points.end(),
                 std::mt19937_64(seed + static_cast<std::uint64_t>(i)));
    const SloSpec slo{Seconds(d.log_uniform(0.05, 10.0)), TokenRate(d.log_uniform(2.0, 100.0))};
    CAPTURE(i, count, slo.ttft.value(), slo.tps.tokens_per_second());

    const int c_max = static_cast<int>(max_load(sweep, slo));
    CAPTURE(c_max);
    CHECK((c_max == 0 || levels.count(c_max) == 1));
    for (const SweepPoint& p : sweep.points) {
      const bool meets = p.ttft <= slo.ttft && p.tps >= slo.tps;
      if (p.concurrency == c_max) CHECK(meets);
      if (p.concurrency > c_max) CHECK_FALSE(meets);  // C_max is the largest that meets both
    }
    const ConfigCapacity c = analyze_config(sweep, slo);
    CHECK(c.c_max == c_max);
    for (const double edge : {c.c_max_tight, c.c_max_loose}) {
      CHECK((edge == 0 || levels.count(static_cast<int>(edge)) == 1));
    }
    CHECK(c.c_max_tight <= c_max);
    CHECK(c_max <= c.c_max_loose);
    CHECK((c.fails_at == 0 ||
           (levels.count(static_cast<int>(c.fails_at)) == 1 && c.fails_at > c_max)));
    if (c.users) CHECK(*c.users >= static_cast<double>(c_max));
  }
}

TEST_CASE("quantities parse back from the text they are formatted as", "[property]") {
  const std::uint64_t seed = property_seed();
  PROPERTY_SEED(seed);
  Draw d(seed);
  const InputLocation at = InputLocation::for_key("--property");
  struct Suffix {
    const char* text;
    double factor;
  };
  const std::vector<Suffix> rates{{"b/s", 1.0},  {"kb/s", 1e3}, {"Mb/s", 1e6}, {"G", 1e9},
                                  {"Gbps", 1e9}, {"T", 1e12},   {"B/s", 8.0},  {"MB/s", 8e6},
                                  {"GB/s", 8e9}, {"TB/s", 8e12}};
  const std::vector<Suffix> durations{{"ns", 1e-9}, {"us", 1e-6},  {"ms", 1e-3},
                                      {"s", 1.0},   {"min", 60.0}, {"h", 3600.0}};
  const std::vector<Suffix> sizes{{"B", 1.0},         {"kB", 1e3},          {"MB", 1e6},
                                  {"GB", 1e9},        {"TB", 1e12},         {"KiB", 1024.0},
                                  {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  for (int i = 0; i < kCases; ++i) {
    // Shortest text that reads back as the same double, with any unit.
    const double value = d.log_uniform(1.0, 1e3);
    const Suffix& rate = d.pick(rates);
    const Suffix& duration = d.pick(durations);
    const Suffix& size = d.pick(sizes);
    const std::string rate_text = fmt::format("{}{}", value, rate.text);
    const std::string duration_text = fmt::format("{}{}", value, duration.text);
    const std::string size_text = fmt::format("{}{}", value, size.text);
    const std::string percent_text = fmt::format("{}%", value / 1000.0);
    CAPTURE(i, rate_text, duration_text, size_text, percent_text);
    CHECK(parse_bit_rate(rate_text, at).bits_per_second() == value * rate.factor);
    CHECK(parse_duration(duration_text, at).value() == value * duration.factor);
    CHECK(parse_bytes(size_text, at).count() == value * size.factor);
    CHECK(parse_percent(percent_text, at) == value / 1000.0 / 100.0);

    // The catalogs' rate labels ("400G", "2.5G", "1.6T") keep 6 digits.
    const BitRate r(d.log_uniform(1.0, 1e16));
    const std::string label = rate_label(r);
    CAPTURE(r.bits_per_second(), label);
    CHECK_THAT(parse_bit_rate(label, at).bits_per_second(), WithinRel(r.bits_per_second(), 5e-6));
    const BreakoutMode mode{d.small(1, 8), BitRate(d.log_uniform(1e6, 1e12))};
    const BreakoutMode back = parse_breakout_mode(mode.name(), at);
    CAPTURE(mode.name());
    CHECK(back.count == mode.count);
    CHECK(back.name() == mode.name());

    // Token counts and prompt mixes are whole numbers: exact both ways.
    const TokenCount tokens = d.log_integer(1, 1 << 26);
    const long long requests = d.log_integer(1, 1000);
    const TokenCount kilo = d.log_integer(1, 1 << 14);
    const std::string prompt_text = fmt::format("{}x{}k", requests, kilo);
    CAPTURE(tokens, prompt_text);
    CHECK(parse_tokens(fmt::format("{}", tokens), at) == tokens);
    CHECK(parse_tokens(fmt::format("{}k", kilo), at) == kilo * 1024);
    if (requests * kilo * 1024 <= kMaxTokens) {
      const PromptSpec p = parse_prompt(prompt_text, at);
      CHECK(p.requests == requests);
      CHECK(p.tokens_each == kilo * 1024);
      CHECK(p.total_tokens() == requests * kilo * 1024);
    } else {
      CHECK_THROWS_AS(parse_prompt(prompt_text, at), InputError);  // past 128M in all
    }

    // The parsers' inverse: plain numbers with a unit, read back to 6 digits,
    // over the whole range the parsers accept.
    const BitRate any_rate(d.log_uniform(kMinBitsPerSecond, kMaxBitsPerSecond));
    const Seconds any_time(d.log_uniform(kMinSeconds, kMaxSeconds));
    const Bytes any_size(d.log_uniform(kMinByteCount, kMaxByteCount));
    const std::string rate_out = format_bit_rate(any_rate);
    const std::string time_out = format_duration(any_time);
    const std::string size_out = format_bytes(any_size);
    CAPTURE(rate_out, time_out, size_out);
    for (const std::string& out : {rate_out, time_out, size_out}) {
      CHECK(out.find('e') == std::string::npos);
    }
    CHECK_THAT(parse_bit_rate(rate_out, at).bits_per_second(),
               WithinRel(any_rate.bits_per_second(), 1e-5));
    CHECK_THAT(parse_duration(time_out, at).value(), WithinRel(any_time.value(), 1e-5));
    CHECK_THAT(parse_bytes(size_out, at).count(), WithinRel(any_size.count(), 1e-5));
  }
}
