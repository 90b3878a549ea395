// The fields several answers show alike, keyed the same in every command's
// JSON: a link with its latency model, a fabric profile, a model at its TP,
// an extra's range, NCCL's candidates, how a calibration was applied.

#include <memory>
#include <string>
#include <vector>

#include "calibration_fixtures.hpp"
#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/usecase/shared_fields.hpp"

using namespace tpnet;
using tpnet::test::glm_engine;

namespace {

const Field* find(const Record& record, const std::string& key) {
  for (const Field& f : record) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a model is described by its name, TP and all-reduce algorithm") {
  CHECK(describe(resolve_model("glm-5.3"), glm_engine()) == "glm-5.3 at TP8 (ring all-reduce)");
}

TEST_CASE("a range cell rounds first, so a tiny negative extra is +0.00") {
  CHECK(range_cell(ExtraRange{Seconds(-0.001), Seconds(8.486)}) == "+0.00..+8.49");
  CHECK(range_cell(ExtraRange{Seconds(-1.5), Seconds(-0.25)}) == "-1.50..-0.25");
}

TEST_CASE("a link's record says its latency model: NCCL's settings, or the override's") {
  const Link link = parse_link("200G", InputLocation::for_key("link"));
  CollectiveSettings settings;
  const Field nccl = link_record("from", "from", link, settings);
  CHECK(nccl.json_only);
  const Record& fields = nccl.records.front();
  REQUIRE(find(fields, "link_bps") != nullptr);
  CHECK(find(fields, "link_bps")->number == 200e9);
  CHECK(find(fields, "latency_model")->text == "nccl");
  CHECK(find(fields, "nccl_channels") != nullptr);
  CHECK(find(fields, "base_latency_s") == nullptr);
  settings.latency_override = StepLatency{Seconds::microseconds(5.0), Seconds::microseconds(2.0)};
  const Field overridden = link_record("to", "to", link, settings);
  const Record& alpha = overridden.records.front();
  CHECK(find(alpha, "latency_model")->text == "user override");
  CHECK_THAT(find(alpha, "base_latency_s")->number, Catch::Matchers::WithinRel(5e-6, 1e-12));
  CHECK(find(alpha, "nccl_channels") == nullptr);
  CHECK_THAT(link_summary("from", link, settings).text, Catch::Matchers::Contains("user override"));
}

TEST_CASE("a fabric profile's provenance is in tables only when asked, in JSON always") {
  const Link link = parse_link("200G", InputLocation::for_key("link"));
  const FabricProfile& profile = tpnet::test::builtin_profile("dgx-spark-200g-switch");
  const Record quiet = fabric_fields(link, profile);
  REQUIRE(find(quiet, "provenance") != nullptr);
  CHECK(find(quiet, "provenance")->json_only);
  CHECK_FALSE(find(fabric_fields(link, profile, true), "provenance")->json_only);
  CHECK(find(quiet, "fabric")->text == "dgx-spark-200g-switch");
  CHECK(find(quiet, "rate_bps")->number > 100e9);
}

TEST_CASE("a calibration's record says its sweep's fit, and compute only when it is used") {
  Calibration c = tpnet::test::full_calibration();
  c.origin = "cal.yaml";
  const CalibrationInput input{std::make_shared<const Calibration>(c), ""};
  CalibrationAsk ask;
  ask.tps = {glm_engine().tensor_parallel_size};  // the compute section's TP
  ask.from = {parse_link(c.allreduce->link, InputLocation::for_key("link"))};
  CalibrationUse use = check_calibration(input, resolve_model("glm-5.3"), glm_engine(), ask);
  REQUIRE(use.compute != nullptr);
  const Field used = calibration_record(use);
  CHECK(used.key == "calibration");
  const Record& fields = used.records.front();
  std::vector<std::string> keys;
  for (const Field& f : fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{
                    "source", "date", "nccl_version", "backend", "hosts", "ranks", "link",
                    "link_bps", "alpha_s", "step_latency_s", "beta_bps", "rms_relative_error_pct",
                    "compute_used", "compute_per_prompt_token_s", "compute_precision", "notes"});
  CHECK(find(fields, "source")->text == "cal.yaml");
  CHECK(find(fields, "compute_used")->flag);
  CHECK(find(fields, "hosts")->json_only);
  use.compute = nullptr;  // decode asks nothing of compute
  const Field without = calibration_record(use);
  const Record& unused = without.records.front();
  CHECK_FALSE(find(unused, "compute_used")->flag);
  CHECK(find(unused, "compute_per_prompt_token_s") == nullptr);
  CHECK(unused.back().key == "notes");
}
