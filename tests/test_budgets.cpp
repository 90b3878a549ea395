// Budgets and their verdicts (tpnet/usecase/budgets.hpp, docs/formulas.md
// s.11): a value within a budget is at most its limit; scenario budgets go
// under the scenario, link budgets under the link; a budget without a value
// is not checked.

#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/usecase/budgets.hpp"

using namespace tpnet;

namespace {

Budgets all_four() {
  Budgets b;
  b.max_extra_ttft = Seconds(1.0);
  b.max_extra_ttft_per_1k = Seconds(0.2);
  b.max_ttft_increase = 0.20;
  b.max_decode_slowdown = 0.10;
  return b;
}

}  // namespace

TEST_CASE("each budget set and valued gives one verdict, in s.11's order", "[gate]") {
  BudgetValues v;
  v.extra_ttft = Seconds(1.0);  // equal to the limit: within
  v.ttft_increase = 0.25;       // above 20%
  v.extra_per_1k = Seconds(0.135);
  v.decode_slowdown = 0.07;
  std::vector<Verdict> out;
  append_verdicts(all_four(), v, "P2", "TP8 200G->100G", out);
  REQUIRE(out.size() == 4);
  CHECK(out[0].budget == "max_extra_ttft");
  CHECK(out[0].subject == "P2");
  CHECK(out[0].within);
  CHECK(out[0].unit == VerdictUnit::seconds);
  CHECK(out[1].budget == "max_ttft_increase");
  CHECK(out[1].subject == "P2");
  CHECK_FALSE(out[1].within);
  CHECK(out[1].value == 0.25);
  CHECK(out[1].limit == 0.20);
  CHECK(out[1].unit == VerdictUnit::fraction);
  CHECK(out[2].budget == "max_extra_ttft_per_1k_tokens");
  CHECK(out[2].subject == "TP8 200G->100G");
  CHECK(out[3].budget == "max_decode_slowdown");
  CHECK(out[3].within);
  CHECK_FALSE(all_within(out));
  CHECK_FALSE(within_budgets(all_four(), v));
  v.ttft_increase = 0.2;
  CHECK(within_budgets(all_four(), v));
}

TEST_CASE("a budget without a value, or a value without a budget, gives no verdict", "[gate]") {
  BudgetValues v;
  v.extra_ttft = Seconds(5.0);  // far over max_extra_ttft, but that budget is not set
  v.extra_per_1k = Seconds(0.1);
  Budgets b;
  b.max_extra_ttft_per_1k = Seconds(0.2);
  b.max_ttft_increase = 0.2;  // set, but nothing measured to check it against
  CHECK(b.any());
  std::vector<Verdict> out{Verdict{"memory_fit", "TP8", 1.0, 2.0, VerdictUnit::bytes, true}};
  append_verdicts(b, v, "P1", "link", out);
  REQUIRE(out.size() == 2);  // appended after what was there
  CHECK(out[1].budget == "max_extra_ttft_per_1k_tokens");
  CHECK(all_within(out));
  CHECK(within_budgets(b, v));
  CHECK_FALSE(Budgets{}.any());
  CHECK(all_within({}));
}
