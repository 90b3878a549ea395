#include "catch.hpp"
#include "golden.hpp"
#include "tpnet/analysis/bytes_per_token.hpp"
#include "tpnet/analysis/compare.hpp"
#include "tpnet/analysis/decode.hpp"
#include "tpnet/model/model_catalog.hpp"

using namespace tpnet;
using tpnet::test::prints_as;

namespace {

Link link(const char* name) { return parse_link(name, InputLocation::for_key("--link")); }

CompareSpec tp_grid() {
  CompareSpec spec;
  for (int tp : {2, 4, 8, 16}) spec.layouts.push_back(ParallelLayout{tp, 1, 1});
  spec.from = {link("200G")};
  spec.to = {link("100G")};
  spec.prompts = {PrefillScenario{"8k", PromptSpec{1, 8192}, {}}};
  spec.reference = ParallelLayout{8, 1, 1};
  return spec;
}

}  // namespace

TEST_CASE("compare over TP2-TP16 gives the per-node ratios 0.57/0.86/1/1.07 and compute 4/2/1/0.5",
          "[compare][golden]") {
  const auto layouts = summarize_layouts(builtin_model("glm-5.3"), EngineConfig{}, tp_grid());
  const double bytes[] = {0.57, 0.86, 1.00, 1.07};
  const double compute[] = {4.0, 2.0, 1.0, 0.5};
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(prints_as(layouts[i].bytes_ratio, bytes[i], 2));
    CHECK(layouts[i].compute_ratio == compute[i]);
  }
}

TEST_CASE("GLM-5.3 fits in DGX Spark memory from TP8, not at TP2 or TP4", "[compare]") {
  const auto layouts = summarize_layouts(builtin_model("glm-5.3"), EngineConfig{}, tp_grid());
  CHECK_FALSE(layouts[0].fits_memory);
  CHECK_FALSE(layouts[1].fits_memory);
  CHECK(layouts[2].fits_memory);
  CHECK(layouts[3].fits_memory);
}

TEST_CASE("projection from one TP8 baseline: the same TP reproduces the measured share",
          "[compare][golden]") {
  CompareSpec spec = tp_grid();
  spec.baseline =
      TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}, link("200G")};
  const auto layouts = summarize_layouts(builtin_model("glm-5.3"), EngineConfig{}, spec);
  std::vector<double> projected;
  for_each_compare_row(spec, layouts,
                       [&](const CompareRow& r) { projected.push_back(*r.projected_increase); });
  REQUIRE(projected.size() == 4);
  const double comm8 = 8192 * 3376128.0 * 8 / 200e9;
  CHECK_THAT(projected[2], WithinRel(comm8 / 6.36, 1e-12));  // 17.4%
  // DOMAIN.md s.4: compute_N = compute_b x 8/N, comm_N = comm_b x f(N)/f(8)
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
  CompareSpec spec = tp_grid();
  spec.layouts = {ParallelLayout{8, 1, 1}};
  const auto layouts = summarize_layouts(builtin_model("glm-5.3"), engine, spec);
  double slowdown = 0.0;
  for_each_compare_row(spec, layouts, [&](const CompareRow& r) { slowdown = r.decode_slowdown; });
  const DecodeReport decode =
      analyze_decode(builtin_model("glm-5.3"), engine, link("200G"), link("100G"), DecodeInputs{});
  CHECK_THAT(slowdown, WithinRel(decode.max_added_share, 1e-12));
  CHECK(prints_as(slowdown * 100, 7.0, 1));  // 0.72 ms of the 10.3 ms floor
  CHECK(layouts.front().decode_forward_bytes.count() == decode.forward_sent.count());
  CHECK(layouts.front().prefill_forward_bytes.count() == 4096 * 3376128.0);
  CHECK(layouts.front().prefill_messages == 157 * 14);
  CHECK(layouts.front().decode_messages == 157 * 14 + 7);
}

TEST_CASE("a baseline shorter than its own network time is refused", "[compare][bad-input]") {
  CompareSpec spec = tp_grid();
  spec.baseline =
      TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(0.5), PromptSpec{1, 8192}, link("200G")};
  CHECK_THROWS_AS(summarize_layouts(builtin_model("glm-5.3"), EngineConfig{}, spec), InputError);
}

TEST_CASE("grids are counted before they are built and huge ones refused with the count",
          "[compare][bad-input]") {
  CompareSpec spec = tp_grid();
  CHECK(compare_row_count(spec) == 4);
  spec.prompts.assign(30000000, spec.prompts.front());
  try {
    (void)compare_row_count(spec);
    FAIL("accepted 120,000,000 rows");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("120000000 rows"));
  }
  spec.prompts.clear();
  CHECK_THROWS_AS(compare_row_count(spec), InputError);
}

TEST_CASE("budgets mark rows and verdicts", "[compare][gate]") {
  CompareSpec spec = tp_grid();
  spec.budgets.max_extra_ttft = Seconds(1.15);
  const auto layouts = summarize_layouts(builtin_model("glm-5.3"), EngineConfig{}, spec);
  std::vector<bool> within;
  std::vector<Verdict> verdicts;
  for_each_compare_row(spec, layouts, [&](const CompareRow& r) {
    within.push_back(r.within_budget);
    row_verdicts(r, spec.budgets, true, verdicts);
  });
  CHECK(within == std::vector<bool>{true, true, true, false});  // TP16: +1.19 s
  REQUIRE(verdicts.size() == 4);
  CHECK(verdicts[3].subject == "TP16 200G->100G 8k");
  CHECK_FALSE(all_within(verdicts));
}
