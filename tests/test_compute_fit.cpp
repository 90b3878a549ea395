// The compute fit (tpnet/sim/compute_fit.hpp, docs/prediction.md): a
// non-negative least squares, the prefill coefficients recovered from TTFTs
// the model made itself, and a decode measurement no weight read allows.

#include <cmath>
#include <string>
#include <vector>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/sim/compute_fit.hpp"
#include "tpnet/usecase/predict.hpp"

using namespace tpnet;
using tpnet::test::all_at_once;
using tpnet::test::glm53;
using tpnet::test::glm_engine;
using tpnet::test::preset;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;

}  // namespace

TEST_CASE("non-negative least squares recovers a solution and clamps at zero") {
  // b = 2 x0 + 3 x1 exactly.
  const std::vector<double> a{1, 0, 0, 1, 1, 1, 2, 1};
  const std::vector<double> b{2, 3, 5, 7};
  const auto x = nonnegative_least_squares(a, 4, 2, b);
  CHECK_THAT(x[0], WithinRel(2.0, 1e-9));
  CHECK_THAT(x[1], WithinRel(3.0, 1e-9));
  // The unconstrained answer has x1 < 0: the constrained one sets it to 0.
  const std::vector<double> a2{1, 1, 1, 2, 1, 3};
  const std::vector<double> b2{3, 2, 1};
  const auto y = nonnegative_least_squares(a2, 3, 2, b2);
  CHECK(y[1] == 0.0);
  CHECK_THAT(y[0], WithinRel(2.0, 1e-9));
}

TEST_CASE("the prefill fit recovers coefficients from TTFTs made by the model itself") {
  const ModelArch model = glm53();
  const EngineConfig engine = glm_engine();
  const FabricProfile fabric = default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark");
  PrefillComputeModel truth;
  truth.per_step = Seconds(0.2);
  truth.seconds_per_gemm_flop = 3e-14;
  truth.seconds_per_mixer_flop = 5e-15;
  PredictRequest req;
  req.model = model;
  req.engine = engine;
  req.links = {ProfiledLink{preset("200G"), fabric}};
  req.compute = GivenCompute{truth, "given", {}};
  req.memory_bandwidth = BitRate::gigabytes_per_second(273.0);
  req.accepted_tokens = 2.0;
  for (const TokenCount p : {1024, 8192, 32768, 65536}) {
    req.scenarios.push_back(all_at_once(std::to_string(p), 1, p, 2));
  }
  const PredictReport made = run_predict(req);
  std::vector<PrefillScenario> rows;
  for (const auto& s : made.scenarios) {
    rows.push_back(
        PrefillScenario{s.name, PromptSpec{1, s.prompt_tokens}, s.links[0].first_token[0]});
  }
  const PrefillFit fit = fit_prefill_compute(model, engine, scheduler_settings(engine, 2.0), fabric,
                                             0.0, rows, "SYNTHETIC");
  CHECK_THAT(fit.model.per_step.value(), WithinRel(0.2, 1e-6));
  CHECK_THAT(fit.model.seconds_per_gemm_flop, WithinRel(3e-14, 1e-6));
  CHECK_THAT(fit.model.seconds_per_mixer_flop, WithinRel(5e-15, 1e-6));
  for (const auto& row : fit.rows) CHECK(std::abs(row.residual_pct) < 1e-6);
  // Two rows fit two coefficients, with a warning.
  const std::vector<PrefillScenario> two(rows.begin(), rows.begin() + 2);
  const PrefillFit small = fit_prefill_compute(model, engine, scheduler_settings(engine, 2.0),
                                               fabric, 0.0, two, "SYNTHETIC");
  CHECK(small.coefficients_fitted.size() == 2);
  CHECK(small.warnings.size() == 1);
  // A TTFT shorter than its communication is refused, naming the row.
  std::vector<PrefillScenario> bad{PrefillScenario{"tiny", PromptSpec{1, 65536}, Seconds(0.5)}};
  CHECK_THROWS_WITH(fit_prefill_compute(model, engine, scheduler_settings(engine, 2.0), fabric, 0.0,
                                        bad, "SYNTHETIC"),
                    ContainsSubstring("row tiny"));
}

TEST_CASE("a measured ITL faster than reading the weights is refused") {
  const ModelArch model = load_hf_config(kSource + "/tests/data/hf/nvidia__Qwen3.6-27B-NVFP4");
  EngineConfig engine;
  engine.tensor_parallel_size = 1;
  CHECK_THROWS_WITH(
      fit_decode_efficiency(model, engine, nominal_fabric(preset("200G"), CollectiveSettings{}),
                            BitRate::gigabytes_per_second(273.0), 1.0,
                            {DecodeMeasurement{1, Seconds::milliseconds(20.0), "--decode-itl"}}),
      ContainsSubstring("faster than reading the weights"));
}
