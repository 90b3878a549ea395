// What of a calibration a use case may use (tpnet/usecase/calibration_use.hpp,
// docs/formulas.md s.19): the warnings when it was measured elsewhere, and
// the compute it drops then.

#include <memory>
#include <string>

#include "calibration_fixtures.hpp"
#include "catch.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/calibration_use.hpp"

using namespace tpnet;
using tpnet::test::full_calibration;

TEST_CASE("check_calibration warns on another TP, link, NCCL version or backend, and drops compute",
          "[calibration]") {
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 16;
  Calibration c = full_calibration();
  c.origin = "cal.yaml";
  c.allreduce->ranks = 8;
  c.allreduce->complete = true;
  c.provenance.backend = "mpi";
  CalibrationAsk request;
  request.tps = {16};
  request.from = {parse_link("100G", InputLocation::for_key("--from"))};
  auto input = [&] { return CalibrationInput{std::make_shared<const Calibration>(c), "2.21.5"}; };
  const CalibrationInput given = input();
  const CalibrationUse use = check_calibration(given, model, engine, request);
  CHECK(use.allreduce == &*given.file->allreduce);
  CHECK(use.compute == nullptr);
  std::string all;
  for (const auto& w : use.warnings) all += w + "\n";
  CHECK_THAT(all, ContainsSubstring("cal.yaml: the all-reduce sweep ran on 8 ranks, not TP16"));
  CHECK_THAT(all, ContainsSubstring("measured on 200G (200 Gb/s), not on 100G"));
  CHECK_THAT(all, ContainsSubstring("measured with NCCL 2.28.3, not the 2.21.5 asked"));
  CHECK_THAT(all, ContainsSubstring("MPI backend"));
  CHECK_THAT(all, ContainsSubstring("compute section is not used for the network share: it was "
                                    "measured at TP8, not TP16"));
  // compare projects compute over layouts instead.
  request.project_compute = true;
  const CalibrationUse projected = check_calibration(given, model, engine, request);
  CHECK(projected.compute == &*given.file->compute);
  // The same TP, link and version: nothing to say but the backend.
  engine.tensor_parallel_size = 8;
  c.allreduce->ranks = 8;
  c.provenance.backend = "nccl";
  request = CalibrationAsk{{8}, {parse_link("200G", InputLocation::for_key("--from"))}, false};
  const CalibrationInput same{std::make_shared<const Calibration>(c), "2.28.3"};
  const CalibrationUse clean = check_calibration(same, model, engine, request);
  CHECK(clean.warnings.empty());
  CHECK(clean.compute == &*same.file->compute);
  // No sweep: refused.
  c.allreduce.reset();
  CHECK_THROWS_WITH(check_calibration(CalibrationInput{std::make_shared<const Calibration>(c), ""},
                                      model, engine, request),
                    ContainsSubstring("cal.yaml: allreduce: has no allreduce section"));
}
