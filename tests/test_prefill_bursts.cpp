// The 200G and one-half profiles at prefill sizes from the GLM-5.3 study's
// own bursts, and the range a prediction carries from the spread of its
// profiles' measurements (docs/formulas.md s.29, docs/prediction.md s.2).

#include <string>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/traffic/collective.hpp"
#include "tpnet/usecase/predict.hpp"

using namespace tpnet;
using Catch::Matchers::WithinRel;
using tpnet::test::builtin_profile;
using tpnet::test::glm_engine;

namespace {

/// The rate the RDMA port counters would show for one all-reduce of `block`
/// on 8 ranks: its sent bytes over its time, times `counted` (headers).
double counted_gbps(const FabricProfile& p, double block, double counted) {
  const double sent = block * allreduce_sent_factor(8, CollectiveAlgorithm::ring);
  const double t = fabric_allreduce(p, Bytes(block), 8, CollectiveAlgorithm::ring).time.value();
  return sent * 8.0 * counted / t / 1e9;
}

constexpr double kOneK = 1024.0 * 6144 * 2;         // a 1K prompt's one step
constexpr double kSingle = 2048.0 * 6144 * 2;       // a single prompt's 2,048-token steps
constexpr double kFourPrompts = 4096.0 * 6144 * 2;  // four prompts: two 2,048 chunks a step

}  // namespace

TEST_CASE("GLM-5.3 TP8: the 200G profile gives back the study's prefill bursts at 1 ms",
          "[golden]") {
  // DOMAIN.md s.6: single 8K-64K prompts about 150-180 Gb/s, four long
  // prompts near 200, a 1K prompt about 100, counted with headers (x 1.06,
  // the middle of 1.05-1.07).
  const FabricProfile& p = builtin_profile("dgx-spark-200g-switch");
  CHECK_THAT(counted_gbps(p, kOneK, 1.06), WithinRel(100.0, 1e-9));
  CHECK_THAT(counted_gbps(p, kSingle, 1.06), WithinRel(165.0, 1e-9));
  CHECK_THAT(counted_gbps(p, kFourPrompts, 1.06), WithinRel(200.0, 1e-9));
  // The 1 GiB nccl-tests row above them stays what it was.
  CHECK_THAT(builtin_seconds_per_byte(p, Bytes(1073741824.0)) * 19.73e9, WithinRel(1.0, 1e-9));
}

TEST_CASE("GLM-5.3 TP8: one PCIe half holds the same bursts at 105-109 Gb/s, the 1K's at 100",
          "[golden]") {
  const FabricProfile& p = builtin_profile("dgx-spark-one-half-switch");
  // Where the shared fixed cost plus the half's RDMA rate (109.11 Gb/s) is
  // slower than a burst, the floor wins: the 1K's 100 Gb/s comes back as
  // that floor, and so does the fast end of 105-109.
  auto floor_gbps = [&](double block, double counted) {
    const double sent = block * allreduce_sent_factor(8, CollectiveAlgorithm::ring);
    const double t =
        shared_allreduce_latency(p.small, Bytes(block), 8).value() + sent * 8.0 / 109.11e9;
    return sent * 8.0 * counted / t / 1e9;
  };
  CHECK(floor_gbps(kOneK, 1.06) < 100.0);
  CHECK_THAT(counted_gbps(p, kOneK, 1.06), WithinRel(floor_gbps(kOneK, 1.06), 1e-9));
  CHECK_THAT(counted_gbps(p, kSingle, 1.06), WithinRel(107.0, 1e-9));
  CHECK_THAT(counted_gbps(p, kFourPrompts, 1.06), WithinRel(107.0, 1e-9));
  // The slow and fast ends: the stated range at the most and fewest counted bytes.
  CHECK_THAT(counted_gbps(fabric_at_end(p, FabricEnd::slowest), kSingle, 1.07),
             WithinRel(105.0, 1e-9));
  CHECK(floor_gbps(kSingle, 1.05) < 109.0);
  CHECK_THAT(counted_gbps(fabric_at_end(p, FabricEnd::fastest), kSingle, 1.05),
             WithinRel(floor_gbps(kSingle, 1.05), 1e-9));
  // The direct one-half run's 16 MiB row lies between the bursts and gives way.
  for (const auto& pt : p.curve.points) CHECK(pt.size.count() != 16777216.0);
}

TEST_CASE("the 200G profile's ends at a single prompt's block are 150 and 180 Gb/s counted",
          "[golden]") {
  const FabricProfile& p = builtin_profile("dgx-spark-200g-switch");
  CHECK(has_spread(p));
  CHECK_THAT(counted_gbps(fabric_at_end(p, FabricEnd::slowest), kSingle, 1.07),
             WithinRel(150.0, 1e-9));
  CHECK_THAT(counted_gbps(fabric_at_end(p, FabricEnd::fastest), kSingle, 1.05),
             WithinRel(180.0, 1e-9));
  // One NCCL run's point has one figure: no spread there.
  const Bytes gib(4294967296.0);
  CHECK(builtin_seconds_per_byte(fabric_at_end(p, FabricEnd::slowest), gib) ==
        builtin_seconds_per_byte(fabric_at_end(p, FabricEnd::fastest), gib));
  // The burst provenance is printed with the profile.
  CHECK(p.provenance.back().find("GLM-5.3 study") != std::string::npos);
}

TEST_CASE("extra_range takes the crossed ends of the two links and the central value") {
  const FabricProfile& from = builtin_profile("dgx-spark-200g-switch");
  const FabricProfile& to = builtin_profile("dgx-spark-one-half-switch");
  int calls = 0;
  const ExtraRange r =
      extra_range(from, to, Seconds(5.0), [&](const FabricProfile& f, const FabricProfile& t) {
        ++calls;
        // from slow + to fast gives the least, from fast + to slow the most.
        if (f.end == FabricEnd::slowest && t.end == FabricEnd::fastest) return Seconds(4.0);
        if (f.end == FabricEnd::fastest && t.end == FabricEnd::slowest) return Seconds(7.0);
        FAIL("an end combination the range does not take");
        return Seconds(0.0);
      });
  CHECK(calls == 2);
  CHECK(r.low.value() == 4.0);
  CHECK(r.high.value() == 7.0);
  CHECK(range_text(r) == "+4.00 to +7.00 s");
  // Profiles without a spread (nominal) are not rerun: the range is the value.
  const FabricProfile n = nominal_fabric(from.link, CollectiveSettings{});
  calls = 0;
  const ExtraRange flat =
      extra_range(n, nominal_fabric(to.link, CollectiveSettings{}), Seconds(5.0),
                  [&](const FabricProfile&, const FabricProfile&) {
                    ++calls;
                    return Seconds(0.0);
                  });
  CHECK(calls == 0);
  CHECK(flat.low.value() == 5.0);
  CHECK(flat.high.value() == 5.0);
}
