#include <string>
#include <vector>

#include "catch.hpp"
#include "golden.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/io/workload_yaml.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/usecase/compare.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/memory.hpp"
#include "tpnet/usecase/plan_search.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

using namespace tpnet;
using tpnet::test::prints_as;

namespace {

Link link(const char* name) { return parse_link(name, InputLocation::for_key("--link")); }

CompareRequest tp_grid(const char* model = "glm-5.3") {
  CompareRequest spec;
  spec.model = builtin_model(model);
  for (int tp : {2, 4, 8, 16}) spec.layouts.push_back(ParallelLayout{tp, 1, 1});
  spec.from = without_profiles({link("200G")});
  spec.to = without_profiles({link("100G")});
  spec.prompts = {PrefillScenario{"8k", PromptSpec{1, 8192}, {}}};
  spec.reference = ParallelLayout{8, 1, 1};
  spec.node = builtin_node("dgx-spark");
  return spec;
}

std::vector<LayoutSummary> summarize(const CompareRequest& spec) {
  return run_compare(spec).layouts;
}

}  // namespace

TEST_CASE("compare over TP2-TP16 gives the per-node ratios 0.57/0.86/1/1.07 and compute 4/2/1/0.5",
          "[compare][golden]") {
  const auto layouts = summarize(tp_grid());
  const double bytes[] = {0.57, 0.86, 1.00, 1.07};
  const double compute[] = {4.0, 2.0, 1.0, 0.5};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(prints_as(layouts[i].bytes_ratio, bytes[i], 2));
    CHECK(layouts[i].compute_ratio == compute[i]);
  }
}

TEST_CASE("GLM-5.3 fits in DGX Spark memory from TP8, not at TP2 or TP4", "[compare]") {
  const auto layouts = summarize(tp_grid());
  CHECK_FALSE(layouts[0].fits_memory());
  CHECK_FALSE(layouts[1].fits_memory());
  CHECK(layouts[2].fits_memory());
  CHECK(layouts[3].fits_memory());
  CHECK(layouts[0].memory.limit == MemoryLimit::weights);
  CHECK(layouts[2].memory.limit == MemoryLimit::none);
}

TEST_CASE("projection from one TP8 baseline: the same TP reproduces the measured share",
          "[compare][golden]") {
  CompareRequest spec = tp_grid();
  spec.projection =
      TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}, link("200G")};
  const CompareReport report = run_compare(spec);
  std::vector<double> projected;
  for_each_compare_row(report, [&](const CompareRow& r) {
    CHECK_FALSE(r.ttft_measured);
    projected.push_back(*r.ttft_increase);
  });
  REQUIRE(projected.size() == 4);
  const double comm8 = 8192 * 3376128.0 * 8 / 200e9;
  CHECK_THAT(projected[2], WithinRel(comm8 / 6.36, 1e-12));  // 17.4%
  // docs/background.md s.4: compute_N = compute_b x 8/N, comm_N = comm_b x f(N)/f(8)
  const double compute8 = 6.36 - comm8;
  const double comm16 = comm8 * 1.875 / 1.75;
  CHECK_THAT(projected[3], WithinRel(comm16 / (compute8 / 2 + comm16), 1e-12));
  CHECK(prints_as(projected[3] * 100, 31.1, 1));
  CHECK(projected[0] < projected[1]);  // more nodes, larger share
  CHECK(projected[1] < projected[2]);
}

TEST_CASE("compare's decode slowdown matches tpnet decode for GLM-5.3 TP8 with 4 drafts",
          "[compare][golden]") {
  EngineConfig engine;
  engine.num_speculative_tokens = 4;
  CompareRequest spec = tp_grid();
  spec.engine = engine;
  spec.layouts = {ParallelLayout{8, 1, 1}};
  const CompareReport report = run_compare(spec);
  const auto& layouts = report.layouts;
  double slowdown = 0.0;
  for_each_compare_row(report, [&](const CompareRow& r) { slowdown = r.decode_slowdown; });
  const DecodeReport decode =
      analyze_decode(builtin_model("glm-5.3"), engine, link("200G"), link("100G"),
                     DecodeInputs{1, builtin_node("dgx-spark").memory_bandwidth});
  CHECK_THAT(slowdown, WithinRel(decode.max_added_share, 1e-12));
  CHECK(prints_as(slowdown * 100, 7.0, 1));  // 0.72 ms of the 10.3 ms floor
  CHECK(layouts.front().decode_forward_bytes.count() == decode.forward_sent.count());
  CHECK(layouts.front().prefill_forward_bytes.count() == 4096 * 3376128.0);
  CHECK(layouts.front().prefill_messages == 157LL * 14);
  CHECK(layouts.front().decode_messages == 157 * 14 + 7);
}

TEST_CASE("a baseline shorter than its own network time is refused", "[compare][bad-input]") {
  CompareRequest spec = tp_grid();
  spec.projection =
      TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(0.5), PromptSpec{1, 8192}, link("200G")};
  try {
    (void)run_compare(spec);
    FAIL("accepted a TTFT shorter than its network time");
  } catch (const InputError& e) {
    CHECK(e.where().key == "projection.ttft");
  }
}

TEST_CASE("grids are counted before they are built and huge ones refused with the count",
          "[compare][bad-input]") {
  CompareRequest spec = tp_grid();
  CHECK(compare_row_count(spec) == 4);
  spec.prompts.assign(30000000, spec.prompts.front());
  try {
    (void)compare_row_count(spec);
    FAIL("accepted 120,000,000 rows");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("120000000 rows"));
  }
  spec.prompts.clear();  // no prompts: the study's six
  CHECK(compare_row_count(spec) == 24);
  spec.layouts.clear();
  CHECK_THROWS_AS(compare_row_count(spec), InputError);
}

TEST_CASE("budgets mark rows and verdicts", "[compare][gate]") {
  CompareRequest spec = tp_grid();
  spec.budgets.max_extra_ttft = Seconds(1.15);
  const CompareReport report = run_compare(spec);
  std::vector<bool> within;
  std::vector<Verdict> verdicts;
  for_each_compare_row(report, [&](const CompareRow& r) {
    within.push_back(r.within_budget);
    row_verdicts(r, spec.budgets, verdicts);
  });
  CHECK(within == std::vector<bool>{true, true, true, false});  // TP16: +1.19 s
  REQUIRE(verdicts.size() == 4);
  CHECK(verdicts[3].subject == "TP16 200G->100G 8k");
  CHECK_FALSE(all_within(verdicts));
}

TEST_CASE(
    "compare, memory and plan give one memory answer: deepseek-v3, llama-3.1-405b, glm-5.3, "
    "kimi-k2 at TP8 and qwen3-235b-a22b at TP4",
    "[compare][memory]") {
  const std::pair<const char*, int> cases[] = {{"deepseek-v3", 8},
                                               {"llama-3.1-405b", 8},
                                               {"glm-5.3", 8},
                                               {"qwen3-235b-a22b", 4},
                                               {"kimi-k2", 8}};
  for (const auto& [name, tp] : cases) {
    INFO(name << " TP" << tp);
    CompareRequest spec = tp_grid(name);
    spec.layouts = {ParallelLayout{tp, 1, 1}};
    spec.reference.reset();
    const LayoutSummary s = run_compare(spec).layouts.front();
    MemoryRequest memory;
    memory.layout = ParallelLayout{tp, 1, 1};
    memory.node = builtin_node("dgx-spark");
    const MemoryReport m = analyze_memory(builtin_model(name), memory);
    CHECK(s.weights_per_node() == m.weights_bytes);
    CHECK(s.fits_memory() == m.fits);
    CHECK(s.memory.fit_summary == m.fit_summary);

    PlanSearchRequest plan;
    plan.model = builtin_model(name);
    plan.nodes = tp;
    plan.speeds = {link("200G")};
    plan.workload = resolve_workload("rag");
    plan.node = builtin_node("dgx-spark");
    plan.switches = builtin_switches();
    const PlanSearchReport found = search_plans(plan);
    bool seen = false;
    for (const auto& option : found.options) {
      if (option.tp != tp) continue;
      seen = true;
      CHECK(option.memory.weights_bytes == m.weights_bytes);
      CHECK(option.fits_memory == m.fits);
    }
    CHECK(seen);
  }
}

TEST_CASE(
    "compare and plan carry the Engram placement and the autotune spike: DeepSeek-V4.1-Flash at "
    "TP4 fits only with its tables on disk",
    "[compare][memory]") {
  MemorySettings settings;
  settings.nccl_profile = NcclProfile::tuned;
  settings.autotune_spike = Bytes::gigabytes(10.0);
  for (const TablePlacement at : {TablePlacement::host, TablePlacement::disk}) {
    INFO(to_string(at));
    settings.engram_tables = at;
    CompareRequest spec = tp_grid("deepseek-v4.1-flash");
    spec.layouts = {ParallelLayout{4, 1, 1}};
    spec.reference.reset();
    spec.memory = settings;
    const LayoutSummary s = run_compare(spec).layouts.front();
    MemoryRequest memory;
    memory.layout = ParallelLayout{4, 1, 1};
    memory.node = builtin_node("dgx-spark");
    memory.settings = settings;
    const MemoryReport m = analyze_memory(builtin_model("deepseek-v4.1-flash"), memory);
    CHECK(s.memory.fixed_bytes == m.fixed_bytes);
    CHECK(s.memory.autotune_spike_bytes.count() == 10e9);
    CHECK(s.fits_memory() == (at == TablePlacement::disk));

    PlanSearchRequest plan;
    plan.model = builtin_model("deepseek-v4.1-flash");
    plan.nodes = 4;
    plan.speeds = {link("200G")};
    plan.workload = resolve_workload("rag");
    plan.node = builtin_node("dgx-spark");
    plan.switches = builtin_switches();
    plan.memory = settings;
    bool seen = false;
    for (const auto& option : search_plans(plan).options) {
      if (option.tp != 4) continue;
      seen = true;
      CHECK(option.memory.fixed_bytes == m.fixed_bytes);
      CHECK(option.fits_memory == m.fits);
    }
    CHECK(seen);
  }
}

TEST_CASE(
    "DeepSeek-V3 at TP8 does not fit on DGX Sparks because of NCCL's default buffers, and "
    "fits with the tuned pair",
    "[compare][memory]") {
  CompareRequest spec = tp_grid("deepseek-v3");
  spec.layouts = {ParallelLayout{8, 1, 1}};
  const CompareReport defaults = run_compare(spec);
  const MemoryReport& m = defaults.layouts.front().memory;
  CHECK_FALSE(m.fits);
  CHECK(m.limit == MemoryLimit::nccl_buffers);
  CHECK_THAT(m.fit_summary, ContainsSubstring("NCCL buffers 37.00 GB"));
  CHECK_THAT(m.fit_summary, ContainsSubstring("with the node's tuned NCCL buffers"));
  REQUIRE_FALSE(defaults.warnings.empty());
  CHECK_THAT(defaults.warnings.front(), ContainsSubstring("TP8 does not fit"));
  spec.memory.nccl_profile = NcclProfile::tuned;
  CHECK(run_compare(spec).layouts.front().fits_memory());
}

TEST_CASE("the reference layout: given, else the projection's, else TP8, else the first",
          "[compare]") {
  CompareRequest spec = tp_grid();
  spec.reference.reset();
  CHECK(reference_layout(spec).name() == "TP8");
  spec.projection =
      TtftBaseline{ParallelLayout{4, 1, 1}, Seconds(20.0), PromptSpec{1, 8192}, link("200G")};
  CHECK(reference_layout(spec).name() == "TP4");
  spec.projection->layout = ParallelLayout{1, 1, 1};  // one node: no network to compare with
  CHECK(reference_layout(spec).name() == "TP8");
  spec.layouts = {ParallelLayout{2, 1, 1}, ParallelLayout{4, 1, 1}};
  CHECK(reference_layout(spec).name() == "TP2");
  spec.reference = ParallelLayout{16, 1, 1};
  CHECK(reference_layout(spec).name() == "TP16");
}

TEST_CASE("compare warns once for each TP size the model's heads do not divide", "[compare]") {
  CompareRequest spec = tp_grid("glm-5.3");  // 64 heads
  spec.layouts = {ParallelLayout{8, 1, 1}, ParallelLayout{6, 1, 1}, ParallelLayout{6, 2, 1}};
  const CompareReport report = run_compare(spec);
  int tp6 = 0;
  for (const auto& w : report.warnings) tp6 += w.find("TP6 does not divide") != std::string::npos;
  CHECK(tp6 == 1);
}

// Issue 28: the chart's worst row per layout was computed in cli/charts.cpp.
TEST_CASE("worst_by_layout keeps each layout's worst prompt per link pair", "[compare]") {
  CompareRequest spec = tp_grid();
  spec.to = without_profiles({link("100G"), link("50G")});
  spec.prompts = {PrefillScenario{"1k", PromptSpec{1, 1024}, {}},
                  PrefillScenario{"8k", PromptSpec{1, 8192}, {}}};
  const CompareReport report = run_compare(spec);
  const WorstByLayout worst = worst_by_layout(report);
  CHECK_FALSE(worst.projected);  // no TTFT to project from: the bound per 1,000 tokens
  REQUIRE(worst.by_pair.size() == 2);
  // The same maximum, found by walking the rows here.
  for_each_compare_row(report, [&](const CompareRow& r) {
    const auto layout = static_cast<std::size_t>(r.layout - report.layouts.data());
    const std::size_t pair = r.to_index;
    REQUIRE(worst.by_pair[pair][layout]);
    CHECK(*worst.by_pair[pair][layout] >= r.extra_per_1k.value());
  });
  // The slower 50G link costs more than 100G at every layout.
  for (std::size_t l = 0; l < report.layouts.size(); ++l) {
    CHECK(*worst.by_pair[1][l] > *worst.by_pair[0][l]);
  }
  // With a measured TTFT the worst is the projected increase, a fraction.
  spec.projection =
      TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}, link("200G")};
  const WorstByLayout projected = worst_by_layout(run_compare(spec));
  CHECK(projected.projected);
  REQUIRE(projected.by_pair[0][2]);
  CHECK(*projected.by_pair[0][2] > 0.0);
  CHECK(*projected.by_pair[0][2] < 1.0);
}

TEST_CASE("a TTFT measured across nodes without its link is refused, not priced at infinity",
          "[compare][bad-input]") {
  const ModelArch model = builtin_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  const TtftBaseline no_link{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}, {}};
  CHECK_THROWS_WITH(
      compute_node_seconds_per_token(model, engine, no_link),
      ContainsSubstring("projection.ttft: a TTFT measured on 8 nodes needs the link"));
  // One node sends nothing: its TTFT is all compute and needs no link.
  const TtftBaseline one_node{ParallelLayout{1, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}, {}};
  CHECK(compute_node_seconds_per_token(model, engine, one_node).value() > 0.0);
}

TEST_CASE("compare's document: the grid in the title, the header fields, the baseline as written",
          "[compare]") {
  CompareRequest spec = tp_grid();
  spec.projection =
      TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}, link("200G")};
  const CompareReport report = run_compare(spec);
  const Document doc = compare_document(report, "8k");
  CHECK(doc.title == "tpnet compare: glm-5.3 over 4 layouts x 1 link pairs x 1 prompts");
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"model", "reference_layout", "node", "chunk_tokens",
                                         "row_count", "baseline"});
  CHECK(doc.fields[1].text == "TP8");
  CHECK(doc.fields[4].number == 4.0);
  CHECK(doc.fields[5].text == "TP8 8k at 200G: TTFT 6.36 s");
  // Unwritten, the baseline's prompt is its tokens; without a projection
  // there is no baseline field.
  CHECK(compare_document(report).fields[5].text == "TP8 8192 at 200G: TTFT 6.36 s");
  CHECK(compare_document(run_compare(tp_grid())).fields.size() == 5);
  CHECK(doc.warnings == report.warnings);
}

TEST_CASE("compare answers first: the layout that fits with the least TTFT cost, then its cost",
          "[compare]") {
  CompareRequest spec = tp_grid();
  spec.projection =
      TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}, link("200G")};
  const CompareReport report = run_compare(spec);
  std::vector<std::string> answer = compare_answer(report);
  REQUIRE(answer.size() == 3);
  // TP2 and TP4 do not fit; TP8 costs less than TP16 (a smaller network share).
  CHECK(answer[0] ==
        "Best layout: TP8 (8 nodes), which fits dgx-spark's memory and costs the least TTFT on "
        "the slower link.");
  // +1.11 s: 8,192 tokens x 3.38 MB at 100 Gb/s instead of 200 Gb/s.
  CHECK(answer[1] == "At 100G its TTFT rises at most +17.4% (8k, projected: +1.11 s at most).");
  CHECK_THAT(answer[2], StartsWith("Decode: 100G adds at most "));
  CHECK(compare_document(report).answer == answer);

  // A budget TP8 breaks leaves TP16 out too: no layout that fits holds it.
  spec.budgets.max_ttft_increase = 0.10;
  answer = compare_answer(run_compare(spec));
  REQUIRE_FALSE(answer.empty());
  CHECK(answer[0] ==
        "No layout that fits keeps every row within budget; of those that fit, TP8 (8 nodes) "
        "costs the least TTFT on the slower link.");

  // Without a TTFT to project from, the cost is the extra time per 1,000 prompt tokens.
  spec = tp_grid();
  spec.layouts = {ParallelLayout{2, 1, 1}};
  answer = compare_answer(run_compare(spec));
  REQUIRE(answer.size() == 3);
  CHECK_THAT(answer[0], StartsWith("No layout fits dgx-spark's memory; of all, TP2 (2 nodes)"));
  CHECK_THAT(answer[1], StartsWith("At 100G its prefill takes at most +"));
  CHECK_THAT(answer[1], ContainsSubstring("s more per 1,000 prompt tokens (8k: +"));
}
