// calibration.yaml (tpnet/io/calibration_yaml.hpp, docs/calibration.md): the
// round trip keeps every value exactly, and bad input names file, line and key.

#include <algorithm>
#include <string>

#include "calibration_fixtures.hpp"
#include "catch.hpp"
#include "tpnet/io/calibration_yaml.hpp"

using namespace tpnet;
using tpnet::test::full_calibration;
using tpnet::test::replaced;

namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_calibration_yaml(text, "cal.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("calibration.yaml round trip: every value reads back exactly", "[calibration][yaml]") {
  const Calibration c = full_calibration();
  const std::string text = write_calibration_yaml(c);
  const Calibration r = parse_calibration_yaml(text, "cal.yaml");
  CHECK(r.origin == "cal.yaml");
  CHECK(r.provenance.date == c.provenance.date);
  CHECK(r.provenance.tool == c.provenance.tool);
  CHECK(r.provenance.hosts == c.provenance.hosts);
  CHECK(r.provenance.nccl_version == c.provenance.nccl_version);
  CHECK(r.provenance.backend == c.provenance.backend);
  CHECK(r.provenance.env == c.provenance.env);
  CHECK(r.provenance.note == c.provenance.note);
  REQUIRE(r.allreduce);
  const auto& a = *r.allreduce;
  const auto& e = *c.allreduce;
  CHECK(a.source == e.source);
  CHECK(a.ranks == e.ranks);
  CHECK(a.link == e.link);
  CHECK(a.link_rate == e.link_rate);
  CHECK(a.dtype == e.dtype);
  CHECK(a.complete == e.complete);
  CHECK(a.alpha == e.alpha);
  CHECK(a.beta == e.beta);
  CHECK(a.step_latency == e.step_latency);
  CHECK(a.rms_relative_error == e.rms_relative_error);
  CHECK(a.max_relative_error == e.max_relative_error);
  CHECK(a.min_size == e.min_size);
  CHECK(a.max_size == e.max_size);
  CHECK(a.points == e.points);
  REQUIRE(a.curve.size() == e.curve.size());
  for (std::size_t i = 0; i < a.curve.size(); ++i) {
    CHECK(a.curve[i].size == e.curve[i].size);
    CHECK(a.curve[i].time == e.curve[i].time);
    CHECK(a.curve[i].algbw == e.curve[i].algbw);
    CHECK(a.curve[i].busbw == e.curve[i].busbw);
  }
  REQUIRE(r.compute);
  CHECK(r.compute->model == "glm-5.3");
  CHECK(r.compute->tp == 8);
  CHECK(r.compute->chunk_tokens == 4096);
  CHECK(r.compute->precision == "nvfp4");
  CHECK(r.compute->device == "NVIDIA GB10");
  CHECK(r.compute->compute_capability == "12.1");
  CHECK(r.compute->gemms == 11);
  CHECK(r.compute->forward_time == c.compute->forward_time);
  CHECK(r.compute->per_prompt_token == c.compute->per_prompt_token);
  REQUIRE(r.traffic);
  CHECK(r.traffic->phase == "prefill");
  CHECK(r.traffic->devices == 2);
  CHECK(r.traffic->prompt_tokens == 8192);
  CHECK(r.traffic->xmit_bytes == c.traffic->xmit_bytes);
  CHECK(r.traffic->measured_per_token == c.traffic->measured_per_token);
  CHECK(r.traffic->formula_per_token == c.traffic->formula_per_token);
  CHECK(r.traffic->ratio == c.traffic->ratio);
  // Written again, the text is the same.
  CHECK(write_calibration_yaml(r) == text);
}

TEST_CASE("calibration.yaml bad input names the file, line and key", "[calibration][yaml]") {
  const std::string good = write_calibration_yaml(full_calibration());
  REQUIRE(error_of(good) == "(no error)");
  CHECK_THAT(error_of(replaced(good, "tpnet_calibration: 1", "tpnet_calibration: 2")),
             ContainsSubstring("cal.yaml:3: tpnet_calibration: is '2'; this tpnet reads "
                               "calibration schema version 1"));
  CHECK_THAT(error_of(replaced(good, "tpnet_calibration: 1\n", "")),
             ContainsSubstring("tpnet_calibration: has no 'tpnet_calibration: 1' line"));
  CHECK_THAT(error_of(good + "extra: 1\n"),
             ContainsSubstring("extra: unknown key; allowed keys are tpnet_calibration, "
                               "provenance, allreduce, alltoall, compute, traffic"));
  CHECK_THAT(error_of(replaced(good, "  ranks: 4", "  ranks: 4\n  rnaks: 5")),
             ContainsSubstring("allreduce.rnaks: unknown key"));
  CHECK_THAT(error_of(replaced(good, "time_s: 0.0004,", "time_s: -0.0004,")),
             ContainsSubstring("allreduce.curve[1].time_s: is -0.0004; must be positive"));
  CHECK_THAT(error_of(replaced(good, "{size_bytes: 1000000,", "{size_bytes: 0,")),
             ContainsSubstring("allreduce.curve[0].size_bytes: is 0; a size of 0"));
  CHECK_THAT(error_of(replaced(good, "{size_bytes: 4000000,", "{size_bytes: 1000000,")),
             ContainsSubstring("curve sizes must be strictly increasing"));
  CHECK_THAT(error_of(replaced(good, "  ranks: 4", "  ranks: 1")),
             ContainsSubstring("allreduce.ranks: 1 is out of range; allowed 2 to"));
  CHECK_THAT(error_of(replaced(good, "    beta_bps: 120000000000\n", "")),
             ContainsSubstring("allreduce.fit.beta_bps: required key is missing"));
  CHECK_THAT(error_of(replaced(good, "  per_prompt_token_s:", "  per_prompt_token_s: -1\n  x:")),
             ContainsSubstring("compute.x: unknown key"));
  CHECK_THAT(error_of(replaced(good, "  phase: \"prefill\"", "  phase: \"decode\"")),
             ContainsSubstring("traffic.phase: is 'decode'; allowed all, prefill"));
  // Line numbers: the negative time sits on the curve's second line.
  const std::string negative = replaced(good, "time_s: 0.0004,", "time_s: -0.0004,");
  const std::string before = negative.substr(0, negative.find("-0.0004"));
  const auto line = 1 + std::count(before.begin(), before.end(), '\n');
  CHECK_THAT(error_of(negative), ContainsSubstring("cal.yaml:" + std::to_string(line) + ":"));
  // Sections: provenance is required, and at least one measurement.
  CHECK_THAT(error_of("tpnet_calibration: 1\nprovenance:\n  date: \"2026-01-01\"\n"),
             ContainsSubstring("cal.yaml: has no measurement"));
  CHECK_THAT(error_of("tpnet_calibration: 1\n"),
             ContainsSubstring("provenance: required section is missing"));
  CHECK_THAT(error_of("tpnet_calibration: 1\nprovenance: [1]\n"),
             ContainsSubstring("cal.yaml:2: provenance: expected a mapping"));
  CHECK_THAT(error_of("tpnet_calibration: [1\n"), ContainsSubstring("not valid YAML"));
}

TEST_CASE("calibration.yaml keeps how the experts were timed and the skewed figure",
          "[calibration][yaml]") {
  Calibration c = full_calibration();
  // Written before grouped timing: neither key, and none is written back.
  const std::string old_text = write_calibration_yaml(c);
  CHECK(old_text.find("experts:") == std::string::npos);
  const Calibration old_read = parse_calibration_yaml(old_text, "cal.yaml");
  CHECK(old_read.compute->experts.empty());
  CHECK_FALSE(old_read.compute->skewed_per_prompt_token.has_value());

  c.compute->experts = "grouped";
  c.compute->skewed_per_prompt_token = c.compute->per_prompt_token * 1.25;
  const std::string text = write_calibration_yaml(c);
  CHECK_THAT(text, ContainsSubstring("  experts: \"grouped\"\n"));
  const Calibration r = parse_calibration_yaml(text, "cal.yaml");
  CHECK(r.compute->experts == "grouped");
  REQUIRE(r.compute->skewed_per_prompt_token.has_value());
  CHECK(*r.compute->skewed_per_prompt_token == *c.compute->skewed_per_prompt_token);
  CHECK(write_calibration_yaml(r) == text);

  CHECK_THAT(error_of(replaced(text, "experts: \"grouped\"", "experts: \"fused\"")),
             ContainsSubstring("compute.experts: is 'fused'; allowed grouped, separate, none"));
  const std::string skewed_line = text.substr(text.find("  skewed_per_prompt_token_s:"));
  CHECK_THAT(error_of(replaced(text, skewed_line.substr(0, skewed_line.find('\n')),
                               "  skewed_per_prompt_token_s: 0")),
             ContainsSubstring("compute.skewed_per_prompt_token_s: is 0; must be positive"));
}

TEST_CASE("calibration.yaml keeps an all-to-all fit, alone or beside the rest",
          "[calibration][yaml]") {
  Calibration c = full_calibration();
  AllToAllCalibration a;
  a.source = "a2a.txt";
  a.ranks = 8;
  a.link = "200G";
  a.alpha = Seconds(31.5e-6);
  a.rate = BitRate(171.25e9);
  a.rms_relative_error = 0.0125;
  a.max_relative_error = 0.03;
  a.min_size = Bytes(1024.0);
  a.max_size = Bytes(1073741824.0);
  a.points = 21;
  c.alltoall = a;
  const Calibration r = parse_calibration_yaml(write_calibration_yaml(c), "cal.yaml");
  REQUIRE(r.alltoall);
  CHECK(r.alltoall->source == "a2a.txt");
  CHECK(r.alltoall->ranks == 8);
  CHECK(r.alltoall->link == "200G");
  CHECK(r.alltoall->alpha.value() == 31.5e-6);
  CHECK(r.alltoall->rate.bits_per_second() == 171.25e9);
  CHECK(r.alltoall->rms_relative_error == 0.0125);
  CHECK(r.alltoall->max_relative_error == 0.03);
  CHECK(r.alltoall->min_size.count() == 1024.0);
  CHECK(r.alltoall->max_size.count() == 1073741824.0);
  CHECK(r.alltoall->points == 21);
  REQUIRE(r.allreduce);

  Calibration alone;
  alone.provenance = c.provenance;
  alone.alltoall = a;
  const Calibration back = parse_calibration_yaml(write_calibration_yaml(alone), "cal.yaml");
  CHECK(back.alltoall);
  CHECK_FALSE(back.allreduce);
  const std::string wrong =
      "tpnet_calibration: 1\nprovenance: {date: x}\nalltoall:\n  ranks: 4\n"
      "  fit: {alpha_s: 0.00001, rate_bps: 1e11, speed: 3}\n";
  CHECK_THROWS_WITH(parse_calibration_yaml(wrong, "cal.yaml"), ContainsSubstring("speed"));
}
