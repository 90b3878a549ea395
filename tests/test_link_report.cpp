// tpnet link's use case (tpnet/usecase/link_report.hpp): one all-reduce's
// price on its profile and in NCCL's model, a PCIe link's rates, the presets,
// and the requests it refuses naming their fields. The fabric link itself is
// tested in test_link.cpp.

#include <string>
#include <vector>

#include "catch.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/usecase/link_report.hpp"

using namespace tpnet;

namespace {

AllReduceAsk ten_kib_over(int ranks, int nodes) {
  AllReduceAsk ask;
  ask.size = Bytes(10240.0);
  ask.link = parse_link("200G", InputLocation::for_key("link"));
  ask.ranks = ranks;
  ask.nodes = nodes;
  return ask;
}

std::string error_key(const LinkRequest& request) {
  try {
    (void)run_link(request);
  } catch (const InputError& e) {
    return e.where().key;
  }
  return "accepted";
}

}  // namespace

TEST_CASE("link: 10 KiB over 2 ranks at 200G is NCCL's ring LL, 17.4 us", "[link-report]") {
  LinkRequest request;
  request.allreduce = ten_kib_over(2, 0);
  const LinkReport report = run_link(request);
  REQUIRE(report.allreduce);
  const AllReducePrice& price = *report.allreduce;
  CHECK(price.nodes == 2);  // one rank per node when not given
  CHECK(price.nccl.chosen.algorithm == CollectiveAlgorithm::ring);
  CHECK(price.nccl.chosen.protocol == NcclProtocol::ll);
  // 16.6 us of latency + 10240 B at 12.5 GB/s (docs/formulas.md s.20)
  CHECK_THAT(price.nccl.chosen.time.value(), WithinRel(16.6e-6 + 10240.0 / 12.5e9, 1e-9));
  CHECK(price.fabric.name ==
        nominal_fabric(price.link, CollectiveSettings{}).name);  // no profile asked: nominal

  const std::vector<std::string> answer = link_answer(report);
  REQUIRE(answer.size() == 2);
  CHECK_THAT(answer[0], StartsWith("One 10240 B all-reduce over 2 ranks at 200G takes "));
  CHECK(answer[1] == "NCCL's own model picks ring with LL: 17.4 us.");
  const Document doc = link_document(request, report);
  CHECK(doc.answer == answer);
  CHECK(doc.fields.front().key == "estimate");
}

TEST_CASE("link: a profile picked for the link gives way to nominal when ranks share nodes",
          "[link-report]") {
  LinkRequest request;
  request.allreduce = ten_kib_over(8, 4);
  FabricProfile measured = nominal_fabric(request.allreduce->link, CollectiveSettings{});
  measured.name = "measured-one-gpu-a-node";
  request.allreduce->fabric = measured;
  request.allreduce->fabric_picked_for_link = true;
  CHECK(run_link(request).allreduce->fabric.name != "measured-one-gpu-a-node");
  request.allreduce->fabric_picked_for_link = false;  // asked for by name: used as asked
  CHECK(run_link(request).allreduce->fabric.name == "measured-one-gpu-a-node");
}

TEST_CASE("link: PCIe Gen5 x4 carries 128, 126 and 111 Gb/s", "[link-report]") {
  LinkRequest request;
  request.pcie_generation = 5;
  request.pcie_lanes = 4;
  const LinkReport report = run_link(request);
  REQUIRE(report.pcie);
  CHECK_THAT(report.pcie->rates.raw.bits_per_second(), WithinRel(128e9, 1e-9));
  CHECK_THAT(report.pcie->rates.usable.bits_per_second(),
             WithinRel(128e9 * 128 / 130 * 0.88, 1e-9));
  CHECK_THAT(link_answer(report).front(), StartsWith("PCIe Gen5 x4 carries 110.9 Gb/s usable"));
}

TEST_CASE("link: with nothing asked it lists the presets it was handed", "[link-report]") {
  LinkRequest request;
  request.presets = {{"200G", BitRate::gigabits_per_second(200.0), "a 200G port"}};
  const LinkReport report = run_link(request);
  CHECK(report.presets.size() == 1);
  CHECK(link_answer(report) ==
        std::vector<std::string>{"Link presets: 200G (200 Gb/s); any rate also works."});
  const Document doc = link_document(request, report);
  // The hint names request fields, which the CLI turns into its flags.
  CHECK_THAT(doc.fields.front().text, ContainsSubstring("`nccl.size`"));
}

TEST_CASE("link: a request that mixes questions or gives half a PCIe link names the field",
          "[link-report][bad-input]") {
  LinkRequest mixed;
  mixed.allreduce = ten_kib_over(2, 0);
  mixed.pcie_generation = 5;
  CHECK(error_key(mixed) == "nccl.size");
  LinkRequest no_lanes;
  no_lanes.pcie_generation = 5;
  CHECK(error_key(no_lanes) == "pcie.lanes");
  LinkRequest no_generation;
  no_generation.pcie_lanes = 4;
  CHECK(error_key(no_generation) == "pcie.generation");
}
