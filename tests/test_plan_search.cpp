#include "catch.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/io/switch_catalog.hpp"
#include "tpnet/io/workload_yaml.hpp"
#include "tpnet/usecase/plan_search.hpp"

using namespace tpnet;

namespace {

PlanSearchRequest sixteen_sparks() {
  PlanSearchRequest in;
  in.nodes = 16;
  in.speeds = {parse_link("100G", InputLocation::for_key("--speeds")),
               parse_link("200G", InputLocation::for_key("--speeds"))};
  in.workload = resolve_workload("rag");
  in.node = builtin_node("dgx-spark");
  in.fabric_catalog = builtin_fabric_profiles();
  in.model = builtin_model("glm-5.3");
  for (const auto& name : builtin_switch_names()) in.switches.push_back(builtin_switch(name));
  return in;
}

}  // namespace

TEST_CASE("GLM-5.3 on 16 Sparks: two TP8 instances on one CRS804 at 100G, ahead of one TP16",
          "[plan][golden]") {
  PlanSearchRequest in = sixteen_sparks();
  in.baseline = TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192}, {}};
  const PlanSearchReport report = search_plans(in);
  REQUIRE(report.options.size() == 9);  // TP2-TP16 at two speeds, TP1 once (it sends nothing)
  const PlanOption& best = report.options.front();
  CHECK(best.usable);
  CHECK(best.instances == 2);
  CHECK(best.tp == 8);
  CHECK(best.speed.name == "100G");
  REQUIRE(best.fabric);
  CHECK(best.fabric->switches == 1);
  CHECK(best.fabric->plan->switch_name == "crs804");
  const PlanOption& tp16 = report.options[1];
  CHECK(tp16.tp == 16);
  CHECK(tp16.speed.name == "100G");
  // TP16's share of TTFT roughly doubles TP8's (docs/background.md s.5): 31.1% against 17.4%.
  CHECK_THAT(*tp16.worst_ttft_increase / *best.worst_ttft_increase, WithinAbs(1.8, 0.05));
  CHECK_THAT(tp16.reason, ContainsSubstring("TP16 loses 1.8x the share of TTFT that TP8 loses"));
  CHECK_THAT(best.reason, ContainsSubstring("2 instances keep serving if one fails"));
}

TEST_CASE("layouts that do not fit in memory are listed but never recommended", "[plan]") {
  const PlanSearchReport report = search_plans(sixteen_sparks());
  for (const auto& r : report.options) {
    if (r.tp < 8) {
      CHECK_FALSE(r.fits_memory);
      CHECK_FALSE(r.usable);
      CHECK(r.rank > 4);
      CHECK_THAT(r.reason, ContainsSubstring("does not fit"));
    }
  }
}

TEST_CASE("a TTFT budget rules out the slower link", "[plan]") {
  PlanSearchRequest in = sixteen_sparks();
  in.ttft_budget = Seconds(1.0);
  const PlanSearchReport report = search_plans(in);
  const PlanOption& best = report.options.front();
  CHECK(best.speed.name == "200G");
  CHECK(best.tp == 8);
  for (const auto& r : report.options) {
    if (r.speed.name == "100G" && r.fits_memory) CHECK_FALSE(r.within_budget);
  }
}

TEST_CASE("two nodes need no switch: one direct cable", "[plan]") {
  PlanSearchRequest in = sixteen_sparks();
  in.nodes = 2;
  in.model = builtin_model("llama-3.1-70b");
  const PlanSearchReport report = search_plans(in);
  const PlanOption& best = report.options.front();
  REQUIRE(best.fabric);
  CHECK(best.fabric->switches == 0);
  CHECK_THAT(best.fabric->description, ContainsSubstring("direct cable"));
}

TEST_CASE("plan inputs out of range are refused naming the flag", "[plan][bad-input]") {
  PlanSearchRequest in = sixteen_sparks();
  in.nodes = 0;
  CHECK_THROWS_AS(search_plans(in), InputError);
  in = sixteen_sparks();
  in.speeds.clear();
  CHECK_THROWS_AS(search_plans(in), InputError);
  CHECK_THROWS_AS(resolve_workload("podcasts"), InputError);
}

namespace {

PlanSearchRequest sparks(int nodes, const std::string& model,
                         const std::vector<std::string>& speeds) {
  PlanSearchRequest in = sixteen_sparks();
  in.nodes = nodes;
  in.model = builtin_model(model);
  in.speeds.clear();
  for (const auto& s : speeds) in.speeds.push_back(parse_link(s, InputLocation::for_key("speeds")));
  return in;
}

const PlanOption* find_option(const PlanSearchReport& report, int tp, const std::string& speed,
                              FabricTopology topology) {
  for (const auto& r : report.options) {
    if (r.tp == tp && r.speed.name == speed && r.fabric && r.fabric->topology == topology) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

// Issue 28: a model that fits one node was told to buy a cable (a switch)
// for TP1 replicas, which exchange nothing.
TEST_CASE("a model that fits one Spark: TP1 replicas buy no fabric at 1, 2 and 4 nodes",
          "[plan_search][fabric]") {
  for (const int nodes : {1, 2, 4}) {
    CAPTURE(nodes);
    const PlanSearchReport report = search_plans(sparks(nodes, "qwen3.6-27b", {"100G", "200G"}));
    const PlanOption& best = report.options.front();
    CHECK(best.usable);
    CHECK(best.tp == 1);
    CHECK(best.instances == nodes);
    REQUIRE(best.fabric);
    CHECK(best.fabric->topology == FabricTopology::none);
    CHECK(best.fabric->switches == 0);
    CHECK_FALSE(best.fabric->profile);
    CHECK_THAT(best.reason, ContainsSubstring("no fabric to buy"));
    CHECK(best.worst_predicted_extra_ttft.value_or(Seconds(1.0)).value() == 0.0);
    int tp1_rows = 0;
    for (const auto& r : report.options) tp1_rows += r.tp == 1 ? 1 : 0;
    CHECK(tp1_rows == 1);  // not one per speed: a TP1 replica uses no link
  }
}

// Issue 28: at two nodes the plan bought a direct cable but the TTFT was
// priced on the switch profile.
TEST_CASE("two Sparks for a model that needs two: a direct cable, priced on the direct profiles",
          "[plan_search][fabric]") {
  const PlanSearchReport report =
      search_plans(sparks(2, "llama-3.1-70b", {"emulated-100G", "200G"}));
  const PlanOption& best = report.options.front();
  CHECK(best.usable);
  CHECK(best.tp == 2);
  REQUIRE(best.fabric);
  CHECK(best.fabric->topology == FabricTopology::direct);
  const PlanOption* at_200 = find_option(report, 2, "200G", FabricTopology::direct);
  const PlanOption* at_half = find_option(report, 2, "emulated-100G", FabricTopology::direct);
  REQUIRE(at_200);
  REQUIRE(at_half);
  REQUIRE(at_200->fabric->profile);
  REQUIRE(at_half->fabric->profile);
  CHECK(at_200->fabric->profile->name == "dgx-spark-200g-direct");
  CHECK(at_half->fabric->profile->name == "dgx-spark-one-half-direct");
  // TP1 does not fit: only TP2 layouts are usable, and none buys a switch.
  for (const auto& r : report.options) {
    if (r.tp == 1) CHECK_FALSE(r.fits_memory);
    if (r.fabric) CHECK(r.fabric->switches == 0);
  }
  REQUIRE(at_half->worst_predicted_extra_ttft);
  CHECK(at_half->worst_predicted_extra_ttft->value() > 0.0);
}

// Issue 30 item 3: plan --nodes 4 weighs a ring against a switch in TTFT.
TEST_CASE("four Sparks: a ring and a switch side by side, each priced on its own profile",
          "[plan_search][fabric]") {
  const PlanSearchReport report = search_plans(sparks(4, "llama-3.1-70b", {"100G", "200G"}));
  REQUIRE(report.reference_profile);
  CHECK(report.reference_profile->name == "dgx-spark-200g-switch");
  const PlanOption* ring = find_option(report, 4, "200G", FabricTopology::ring);
  const PlanOption* sw = find_option(report, 4, "200G", FabricTopology::switched);
  REQUIRE(ring);
  REQUIRE(sw);
  CHECK(ring->fabric->switches == 0);
  CHECK(sw->fabric->switches == 1);
  REQUIRE(ring->fabric->profile);
  CHECK(ring->fabric->profile->name == "dgx-spark-200g-ring");
  CHECK(sw->fabric->profile->name == "dgx-spark-200g-switch");
  // Both cables run at 200G, so the nominal bound sees no difference ...
  CHECK(ring->worst_extra_ttft.value() == 0.0);
  CHECK(sw->worst_extra_ttft.value() == 0.0);
  // ... but the ring sends on one RDMA device: predicted, it loses TTFT.
  REQUIRE(ring->worst_predicted_extra_ttft);
  REQUIRE(sw->worst_predicted_extra_ttft);
  CHECK(sw->worst_predicted_extra_ttft->value() == 0.0);
  CHECK(ring->worst_predicted_extra_ttft->value() > 0.1);
  CHECK_THAT(ring->reason, ContainsSubstring("ring-only NCCL"));
  CHECK_THAT(ring->reason, ContainsSubstring("on dgx-spark-200g-ring"));
  bool needs_subnet_routing = false;
  for (const auto& note : ring->fabric->notes) {
    needs_subnet_routing |= note == "NCCL: NCCL_IB_SUBNET_AWARE_ROUTING=1";
  }
  CHECK(needs_subnet_routing);
  // A ring runs its cables at the port's rate: none is offered at 100G.
  CHECK(find_option(report, 4, "100G", FabricTopology::ring) == nullptr);
  CHECK(find_option(report, 4, "100G", FabricTopology::switched) != nullptr);
  // Two TP2 pairs of neighbours each talk over their own cable: no ring-only NCCL.
  const PlanOption* pairs = find_option(report, 2, "200G", FabricTopology::ring);
  REQUIRE(pairs);
  CHECK_THAT(pairs->reason, ContainsSubstring("subnet-aware routing"));
}

TEST_CASE("a TTFT budget holds a ring to what it is predicted to give, not its cables' rate",
          "[plan_search][fabric]") {
  PlanSearchRequest in = sparks(4, "llama-3.1-70b", {"200G"});
  in.ttft_budget = Seconds(0.05);
  const PlanSearchReport report = search_plans(in);
  const PlanOption* ring = find_option(report, 4, "200G", FabricTopology::ring);
  const PlanOption* sw = find_option(report, 4, "200G", FabricTopology::switched);
  REQUIRE(ring);
  REQUIRE(sw);
  CHECK_FALSE(ring->within_budget);
  CHECK(sw->within_budget);
}

TEST_CASE("plan's fabric choice and the one priced_profile gives agree", "[plan_search][fabric]") {
  const PlanSearchRequest in = sparks(2, "llama-3.1-70b", {"200G"});
  const auto fabrics = fabrics_for_layout(in, 2, in.speeds.front());
  REQUIRE(fabrics.size() == 1);
  CHECK(fabrics.front().topology == FabricTopology::direct);
  CHECK(fabrics.front().profile->name == priced_profile(in.fabric_catalog, FabricTopology::direct,
                                                        in.speeds.front(), in.collective, in.node)
                                             .name);
  CHECK(fabrics_for_layout(in, 1, in.speeds.front()).front().topology == FabricTopology::none);
}

// What report prices its penalty, decode and predict on: the fabric plan bought.
TEST_CASE("the profiles report prices on follow the fabric the plan bought",
          "[plan_search][fabric]") {
  const PlanSearchRequest in = sparks(2, "llama-3.1-70b", {"emulated-100G", "200G"});
  const PlanSearchReport report = search_plans(in);
  const PlanOption& best = report.options.front();
  REQUIRE(best.fabric);
  const auto profiles = priced_profiles(in, *best.fabric, in.speeds);
  REQUIRE(profiles.size() == 2);
  CHECK(profiles[0].name == "dgx-spark-one-half-direct");
  CHECK(profiles[1].name == "dgx-spark-200g-direct");
  const PlanSearchRequest four = sparks(4, "llama-3.1-70b", {"200G"});
  const PlanSearchReport ring_report = search_plans(four);
  const PlanOption* ring = find_option(ring_report, 4, "200G", FabricTopology::ring);
  REQUIRE(ring);
  CHECK(priced_profiles(four, *ring->fabric, four.speeds).front().name == "dgx-spark-200g-ring");
}

TEST_CASE("plan refuses a baseline measured at another speed than the fastest it considers",
          "[plan][bad-input]") {
  PlanSearchRequest in = sixteen_sparks();
  in.baseline = TtftBaseline{ParallelLayout{8, 1, 1}, Seconds(6.36), PromptSpec{1, 8192},
                             Link{"100G", BitRate::gigabits_per_second(100), {}}};
  CHECK_THROWS_WITH(search_plans(in),
                    ContainsSubstring("baseline.link: a baseline measured at 100G cannot be "
                                      "projected") &&
                        ContainsSubstring("the fastest speed considered, 200G"));
  // Measured at that speed, or with the link left empty, it is the reference's.
  in.baseline->link = Link{"200G", BitRate::gigabits_per_second(200), {}};
  CHECK(search_plans(in).baseline->link.name == "200G");
  in.baseline->link = Link{};
  CHECK(search_plans(in).baseline->link.name == "200G");
}

TEST_CASE("plan's answer says what to buy, what it costs and the extra TTFT, then the options",
          "[plan]") {
  const PlanSearchRequest in = sixteen_sparks();
  const PlanSearchReport report = search_plans(in);
  const std::vector<std::string> answer = plan_answer(report);
  REQUIRE(answer.size() >= 2);
  CHECK_THAT(answer.front(), StartsWith("Buy 1 x crs804 and run 2 x TP8 at 100G per node."));
  CHECK_THAT(answer.back(), StartsWith("Extra TTFT against 200G: at most +4.43 s a request"));
  const Document doc = plan_document(in, report);
  CHECK(doc.answer == answer);
  CHECK(doc.title == "tpnet plan: glm-5.3 on 16 x dgx-spark (rag workload: 8k, 4x8k)");
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  CHECK(keys.front() == "model");
  CHECK(std::find(keys.begin(), keys.end(), "recommendation") != keys.end());
  const auto options = std::find(keys.begin(), keys.end(), "options");
  REQUIRE(options != keys.end());
  CHECK(doc.fields[static_cast<std::size_t>(options - keys.begin())].records.size() ==
        report.options.size());
}

TEST_CASE("a plan where nothing is usable says why the best layout is not", "[plan]") {
  PlanSearchRequest in = sixteen_sparks();
  in.nodes = 2;
  const std::vector<std::string> answer = plan_answer(search_plans(in));
  REQUIRE(answer.size() == 1);
  CHECK_THAT(answer.front(), StartsWith("No layout is usable; the best, "));
}
