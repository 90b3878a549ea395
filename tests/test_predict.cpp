// Fabric profiles' measured curves and tpnet predict's validation against
// the studies (docs/prediction.md): the numbers reported there are asserted
// here, within the tolerances. The compute fit, the fabric catalog
// and the trace reader have test files of their own names.

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/fabric/fabric_profile.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/calibration_yaml.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/fabric_catalog.hpp"
#include "tpnet/io/hf_config.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/model_yaml.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/measured/traffic_windows.hpp"
#include "tpnet/sim/decode_floor.hpp"
#include "tpnet/sim/prefill_communication.hpp"
#include "tpnet/traffic/bytes_per_token.hpp"
#include "tpnet/traffic/collective.hpp"
#include "tpnet/usecase/compare.hpp"
#include "tpnet/usecase/decode.hpp"
#include "tpnet/usecase/penalty.hpp"
#include "tpnet/usecase/predict.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

using namespace tpnet;
using tpnet::test::all_at_once;
using tpnet::test::builtin_profile;
using tpnet::test::glm53;
using tpnet::test::glm_engine;
using tpnet::test::preset;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;

}  // namespace

TEST_CASE("a built-in profile gives back its measured all-reduce times") {
  const FabricProfile& p = builtin_profile("dgx-spark-200g-switch");
  auto us = [&](double bytes, int ranks) {
    return fabric_allreduce(p, Bytes(bytes), ranks, CollectiveAlgorithm::ring).time.value() * 1e6;
  };
  CHECK_THAT(us(8192, 2), WithinRel(35.15, 1e-9));
  CHECK_THAT(us(65536, 2), WithinRel(67.93, 1e-9));
  CHECK_THAT(us(32768, 4), WithinRel(58.5, 1e-9));
  CHECK_THAT(us(1048576, 4), WithinRel(908.4, 1e-9));
  // Between sizes: between the measured times.
  CHECK(us(10240, 2) > 31.67);
  CHECK(us(10240, 2) < 35.15);
  // The all_gather run's 1 GiB row, an all-reduce of the same bytes sent per
  // rank: at its size nothing but the bytes is left.
  const double gib = 1073741824.0;
  const double bus = 19.73e9;
  CHECK_THAT(us(gib, 2), WithinRel(gib / bus * 1e6, 1e-9));
  // Eight ranks: the four-rank table plus six more ring steps at the cost of
  // a step between the two- and four-rank tables (8 KiB: (51.3 - 35.15) / 4).
  const double excess2 = 35.15 - 8192.0 / bus * 1e6;
  const double excess4 = 51.3 - 1.5 * 8192.0 / bus * 1e6;
  CHECK_THAT(
      us(8192, 8),
      WithinRel(excess4 + (excess4 - excess2) / 4.0 * 8.0 + 1.75 * 8192.0 / bus * 1e6, 1e-9));
  CHECK(us(8192, 1) == 0.0);
  // Beyond the measured rank counts larger blocks never take less time (the
  // two-rank table itself is not monotone: 8 KiB took 35.15 us, 16 KiB 31.67),
  // but for a dip of at most 3% above 1 MiB: the four-rank table's slow 1 MiB
  // (908 us) fades out by the study's 50.3 MB bursts faster than bytes grow
  // (docs/prediction.md s.4).
  for (const int ranks : {4, 8, 16}) {
    double previous = 0.0;
    for (double size = 1024.0; size < 4e9; size *= 1.5) {
      const double t = us(size, ranks);
      CHECK(t >= (size > 1048576.0 ? 0.97 : 1.0) * previous);
      previous = t;
    }
  }
}

TEST_CASE("one PCIe half's profile gives back the measured one-half all-reduce curve") {
  // microscaler/cylon-local-infra: 2 ranks, one RDMA device, busbw = algbw.
  const FabricProfile& p = builtin_profile("dgx-spark-one-half-direct");
  const double floor = 111.86e9 / 8.0;  // the path's own ib_write_bw, in bytes/s
  for (const auto& point : p.curve.points) {
    INFO(point.size.count());
    const double measured = point.size.count() / point.bus_bandwidth.bytes_per_second();
    const double priced =
        fabric_allreduce(p, point.size, 2, CollectiveAlgorithm::ring).time.value();
    const double fixed = shared_allreduce_latency(p.small, point.size, 2).value();
    if ((measured - fixed) / point.size.count() >= 1.0 / floor) {
      CHECK_THAT(priced, WithinRel(measured, 1e-9));
    } else {
      // The measurement beat the path's RDMA rate once the fixed cost is out:
      // its bytes go at that rate instead, a little slower than measured.
      CHECK(priced > measured);
      CHECK_THAT(priced, WithinRel(fixed + point.size.count() / floor, 1e-9));
    }
  }
  // Size dependence: a 22 MB transfer (GLM-5.3's 1K prompt at TP8) moves at
  // the curve's rate there (between the 4 and 16 MiB rows), not the 1 GiB one.
  const double block = 12.58e6;
  const double per_byte = builtin_seconds_per_byte(p, Bytes(block));
  CHECK(1.0 / per_byte < 1.0 / builtin_seconds_per_byte(p, Bytes(1073741824.0)));
  CHECK(1.0 / per_byte > 13.22e9);
  CHECK(1.0 / per_byte < floor);
}

TEST_CASE("a slower built-in profile never makes an all-reduce faster") {
  // The small-size tables were measured on 200G ports: their bytes come out
  // at that fabric's bus bandwidth, so every profile shares one fixed cost
  // and a slower profile adds only byte time.
  const FabricProfile& fast = builtin_profile("dgx-spark-200g-switch");
  for (const auto& slow : builtin_fabric_profiles()) {
    INFO(slow.name);
    // A ring's patched NCCL has its own measured fixed cost (formulas.md s.28).
    if (slow.topology == FabricTopology::ring) continue;
    for (const auto& table : slow.small) {
      CHECK(table.measured_on == "switch-both-halves");
      CHECK(table.measured_bus_bandwidth.bytes_per_second() == 19.73e9);
    }
    if (slow.for_link != "emulated-100G") continue;
    for (const int ranks : {2, 4, 8, 16}) {
      if (slow.max_ranks > 0 && ranks > slow.max_ranks) continue;  // a direct cable joins two
      for (double size = 1024.0; size < 4e9; size *= 1.5) {
        INFO(ranks << " ranks, " << size << " B");
        const auto f = fabric_allreduce(fast, Bytes(size), ranks, CollectiveAlgorithm::ring);
        const auto s = fabric_allreduce(slow, Bytes(size), ranks, CollectiveAlgorithm::ring);
        CHECK(s.latency.value() == f.latency.value());  // one fixed cost
        CHECK(s.time.value() > f.time.value());
      }
    }
  }
  // At a measured size and rank count the slower profile is the measurement
  // plus the extra byte time at each curve's rate there.
  const FabricProfile& half = builtin_profile("dgx-spark-one-half-switch");
  const double extra_us =
      8192.0 *
      (builtin_seconds_per_byte(half, Bytes(8192)) - builtin_seconds_per_byte(fast, Bytes(8192))) *
      1e6;
  CHECK_THAT(fabric_allreduce(half, Bytes(8192), 2, CollectiveAlgorithm::ring).time.value() * 1e6,
             WithinRel(35.15 + extra_us, 1e-9));
}

TEST_CASE("a nominal profile is the link's NCCL model, a calibration its measured curve") {
  const Link link = preset("200G");
  const AllReduceTraffic traffic = allreduce_traffic(Bytes(61440), 8, CollectiveAlgorithm::ring);
  CHECK_THAT(fabric_allreduce(nominal_fabric(link, CollectiveSettings{}), Bytes(61440), 8,
                              CollectiveAlgorithm::ring)
                 .time.value(),
             WithinRel(allreduce_time(traffic, link, CollectiveSettings{}).value(), 1e-9));
  const std::string path =
      kSource + "/examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml";
  const auto file = std::make_shared<const Calibration>(load_calibration_yaml(path));
  const FabricProfile measured =
      resolve_fabric(path, preset("100G"), CollectiveSettings{}, "dgx-spark", file);
  CHECK(measured.source == FabricSource::calibration);
  CHECK_THAT(fabric_allreduce(measured, Bytes(88e6), 8, CollectiveAlgorithm::ring).time.value(),
             WithinRel(calibrated_allreduce_time(*file->allreduce, Bytes(88e6), 8,
                                                 BitRate::gigabits_per_second(100.0))
                           .value(),
                       1e-12));
}

TEST_CASE("GLM-5.3: the four-request last first tokens from the single-request rows, within 10%") {
  PredictRequest req;
  req.model = glm53();
  req.engine = glm_engine();
  req.links = {ProfiledLink{preset("200G"),
                            default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark")}};
  req.baseline = load_baseline_csv(kSource + "/examples/data/glm53_tp8_200g.csv");
  req.baseline_origin = "glm53_tp8_200g.csv";
  req.memory_bandwidth = BitRate::gigabytes_per_second(273.0);
  req.accepted_tokens = 2.5;
  req.scenarios = {all_at_once("P4", 4, 8192, 1024), all_at_once("P6", 4, 16384, 1024)};
  const PredictReport r = run_predict(req);
  CHECK(r.fit.rows.size() == 4);  // P1, P2, P3, P5: the four-request rows are not fitted
  const double p4 = r.scenarios[0].links[0].last_first_token.value();
  const double p6 = r.scenarios[1].links[0].last_first_token.value();
  INFO("P4 " << p4 << " s (measured 23.00), P6 " << p6 << " s (measured 45.82)");
  CHECK(std::abs(p4 / 23.00 - 1.0) < 0.10);
  CHECK(std::abs(p6 / 45.82 - 1.0) < 0.10);
  // The pairs: two requests finish their prompts together, then the other two.
  const auto& first = r.scenarios[1].links[0].first_token;
  CHECK_THAT(first[0].value(), WithinRel(first[1].value(), 1e-9));
  CHECK(first[2].value() > 1.9 * first[0].value());
  CHECK(r.scenarios[1].most_prefills_in_a_step == 2);
  CHECK(r.scenarios[1].links[0].schedule.mixed_steps > 0);
}

TEST_CASE("GLM-5.3: each single-request TTFT from a fit on the other three (leave one out)") {
  // docs/prediction.md s.3: measured as it is. The three long prompts land
  // within 10%; the 1K prompt, below every row the fit keeps, is the miss.
  const auto rows = load_baseline_csv(kSource + "/examples/data/glm53_tp8_200g.csv");
  std::vector<PrefillScenario> singles;
  for (const auto& row : rows) {
    if (row.prompt.requests == 1) singles.push_back(row);
  }
  REQUIRE(singles.size() == 4);
  for (std::size_t out = 0; out < singles.size(); ++out) {
    PredictRequest req;
    req.model = glm53();
    req.engine = glm_engine();
    req.links = {ProfiledLink{preset("200G"),
                              default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark")}};
    for (std::size_t i = 0; i < singles.size(); ++i) {
      if (i != out) req.baseline.push_back(singles[i]);
    }
    req.baseline_origin = "glm53_tp8_200g.csv less " + singles[out].name;
    req.memory_bandwidth = BitRate::gigabytes_per_second(273.0);
    req.accepted_tokens = 2.5;
    req.scenarios = {all_at_once(singles[out].name, 1, singles[out].prompt.tokens_each, 1024)};
    const PredictReport r = run_predict(req);
    CHECK(r.fit.rows.size() == 3);
    const double predicted = r.scenarios[0].links[0].last_first_token.value();
    const double measured = singles[out].baseline_ttft->value();
    INFO(singles[out].name << ": predicted " << predicted << " s, measured " << measured << " s");
    if (singles[out].prompt.tokens_each >= 8192) {
      CHECK(std::abs(predicted / measured - 1.0) < 0.10);
    } else {
      // P1 (1,024 tokens): +47% on this commit; the fixed cost per step the
      // three long rows leave is extrapolated to one short step.
      CHECK(predicted > measured);
      CHECK(predicted / measured - 1.0 < 0.60);
    }
  }
}

TEST_CASE("Qwen3.6-27B: TP2 and TP4 decode ITL from the TP1 ITL, within 15%") {
  const ModelArch model = load_hf_config(kSource + "/tests/data/hf/nvidia__Qwen3.6-27B-NVFP4");
  for (const auto& [tp, measured_ms] : {std::pair{2, 43.48}, std::pair{4, 29.14}}) {
    PredictRequest req;
    req.model = model;
    req.engine.tensor_parallel_size = tp;
    req.engine.max_num_batched_tokens = 8192;
    req.links = {ProfiledLink{preset("200G"),
                              default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark")}};
    req.compute =
        GivenCompute{PrefillComputeModel{Seconds(0.0), 1e-14, 0.0, std::nullopt}, "given", {}};
    req.decode_measurements = {DecodeMeasurement{1, Seconds::milliseconds(77.97), "TP1"}};
    req.memory_bandwidth = BitRate::gigabytes_per_second(273.0);
    req.scenarios = {all_at_once("c1", 1, 128, 128)};
    const PredictReport r = run_predict(req);
    const double itl_ms = 1e3 / r.scenarios[0].links[0].decode_tokens_per_s;
    INFO("TP" << tp << ": " << itl_ms << " ms (measured " << measured_ms << ")");
    CHECK(std::abs(itl_ms / measured_ms - 1.0) < 0.15);
  }
}

TEST_CASE("the predicted traffic reads back through tpnet traffic's reader with every byte") {
  PredictRequest req;
  req.model = glm53();
  req.engine = glm_engine();
  req.links = {ProfiledLink{preset("200G"),
                            default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark")}};
  req.compute =
      GivenCompute{PrefillComputeModel{Seconds(0.2), 3e-14, 5e-15, std::nullopt}, "given", {}};
  req.memory_bandwidth = BitRate::gigabytes_per_second(273.0);
  req.accepted_tokens = 2.0;
  req.keep_steps = true;
  req.scenarios = {all_at_once("2x4k", 2, 4096, 16)};
  const PredictReport r = run_predict(req);
  const PredictLink& run = r.scenarios[0].links[0];
  const CounterSeries series = predicted_counters(run, Seconds::milliseconds(1.0), 0.0);
  const CounterSeries back = parse_counters_csv(counters_csv_text(series), "predicted.csv");
  REQUIRE(back.devices.size() == 2);  // both halves of the port
  double xmit = 0.0;
  for (const auto& d : back.devices) xmit += d.samples.back().xmit.count();
  // Each device's counter rounds down to 4-byte words.
  CHECK_THAT(xmit, WithinAbs(run.sent_per_node.count(), 8.0));
  // At 1 ms the bursts reach near the profile's rate; averaged over 100 ms they do not.
  const TrafficWindows w = traffic_windows(
      traffic_intervals(back), {Seconds::milliseconds(1.0), Seconds::milliseconds(100.0)});
  // The profile's fastest point: the study's four-prompt bursts at 50.3 MB
  // run faster than the nccl-tests rows at 1-4 GiB.
  double rate = 0.0;
  for (const double spb : run.fabric.curve.seconds_per_byte) rate = std::max(rate, 8.0 / spb);
  CHECK(w.windows[0].xmit.peak.bits_per_second() > 0.8 * rate);
  CHECK(w.windows[0].xmit.peak.bits_per_second() <= 1.0001 * rate);
  CHECK(w.windows[1].xmit.peak.bits_per_second() < w.windows[0].xmit.peak.bits_per_second());
}

TEST_CASE("penalty's predicted extra is predict's extra last first token, one answer") {
  const ModelArch model = glm53();
  const EngineConfig engine = glm_engine();
  const Link from = preset("200G");
  const Link to = preset("emulated-100G");
  PenaltyRequest p;
  p.model = model;
  p.engine = engine;
  p.from = ProfiledLink{from, default_fabric(from, CollectiveSettings{}, "dgx-spark")};
  p.to = ProfiledLink{to, default_fabric(to, CollectiveSettings{}, "dgx-spark")};
  p.scenarios = {PrefillScenario{"4x16k", PromptSpec{4, 16384}, {}, 1024}};
  p.accepted_tokens = 2.5;
  const PenaltyReport pr = run_penalty(p);
  REQUIRE(pr.scenarios[0].predicted_extra);

  PredictRequest q;
  q.model = model;
  q.engine = engine;
  q.links = {p.from, p.to};
  q.compute =
      GivenCompute{PrefillComputeModel{Seconds(0.2), 3e-14, 5e-15, std::nullopt}, "given", {}};
  q.memory_bandwidth = BitRate::gigabytes_per_second(273.0);
  q.accepted_tokens = 2.5;
  q.scenarios = {all_at_once("4x16k", 4, 16384, 1024)};
  const PredictReport r = run_predict(q);
  CHECK_THAT(pr.scenarios[0].predicted_extra->value(),
             WithinRel(r.scenarios[0].extra_last_first_token->value(), 1e-9));
  // The achieved-rate bound holds the prediction.
  CHECK(pr.scenarios[0].predicted_extra->value() <= pr.scenarios[0].achieved_bound->value());
}

TEST_CASE("the predicted extra never exceeds its bound at the achieved rates, for every pair") {
  const ModelArch model = glm53();
  EngineConfig engine = glm_engine();
  const std::string cal_path =
      kSource + "/examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml";
  const auto cal = std::make_shared<const Calibration>(load_calibration_yaml(cal_path));
  const std::vector<std::string> links{"200G", "emulated-100G", "100G"};
  for (const auto& from_name : links) {
    for (const auto& to_name : links) {
      const Link from = preset(from_name);
      const Link to = preset(to_name);
      std::vector<FabricProfile> froms{
          default_fabric(from, CollectiveSettings{}, "dgx-spark"),
          nominal_fabric(from, CollectiveSettings{}),
          resolve_fabric(cal_path, from, CollectiveSettings{}, "dgx-spark", cal)};
      std::vector<FabricProfile> tos{default_fabric(to, CollectiveSettings{}, "dgx-spark"),
                                     nominal_fabric(to, CollectiveSettings{})};
      for (const auto& p : builtin_fabric_profiles()) {
        if (p.for_link == from_name)
          froms.push_back(resolve_fabric(p.name, from, CollectiveSettings{}, "dgx-spark"));
        if (p.for_link == to_name)
          tos.push_back(resolve_fabric(p.name, to, CollectiveSettings{}, "dgx-spark"));
      }
      for (const auto& f : froms) {
        for (const auto& t : tos) {
          for (const int tp : {2, 8}) {
            // A direct cable's or a ring's profile refuses more ranks than it joins.
            if ((f.max_ranks > 0 && tp > f.max_ranks) || (t.max_ranks > 0 && tp > t.max_ranks)) {
              continue;
            }
            engine.tensor_parallel_size = tp;
            for (const auto& scenario : study_scenarios()) {
              INFO(from_name << " -> " << to_name << ", " << f.name << " -> " << t.name << ", TP"
                             << tp << ", " << scenario.name);
              const PrefillCommunication c =
                  prefill_communication(model, engine, f, t, scenario.prompt, 1024, 2.5);
              CHECK(c.extra.value() <= c.bound.value() + 1e-12);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("decode's fabric estimate prices one forward as predict prices a decode step") {
  DecodeRequest d;
  d.model = glm53();
  d.engine = glm_engine();
  d.from = ProfiledLink{preset("200G"),
                        default_fabric(preset("200G"), CollectiveSettings{}, "dgx-spark")};
  d.to = ProfiledLink{preset("100G"),
                      default_fabric(preset("100G"), CollectiveSettings{}, "dgx-spark")};
  d.requests = 2;
  d.node = builtin_node("dgx-spark");
  const DecodeReport r = run_decode(d);
  REQUIRE(r.fabric);
  const Bytes block = activation_block(d.model, d.engine, 10);
  const int n = allreduces_per_forward(d.model, d.engine);
  const double expected =
      fabric_allreduce(*d.from.fabric, block, 8, CollectiveAlgorithm::ring).time.value() * n +
      fabric_allgather(*d.from.fabric, logits_gather_bytes(d.model, d.engine, 8, 10), 8).value();
  CHECK_THAT(r.fabric->comm_from.value(), WithinRel(expected, 1e-12));
  // The profiles share one fixed cost (100G, unmeasured, takes the node's),
  // so what 100G adds is byte time alone, at the rates the profiles give
  // decode's small blocks (200G's curve below its smallest point, the 1K
  // prompt's burst, the nominal 100 for 100G): less than the nominal bound,
  // never a saving.
  const double profile_rates =
      1.0 / 100e9 - builtin_seconds_per_byte(*d.from.fabric, Bytes(8192)) / 8.0;
  const double nominal_rates = 1.0 / 100e9 - 1.0 / 200e9;
  CHECK(r.fabric->added.value() > 0.0);
  CHECK(r.fabric->added.value() < r.max_added_per_forward.value());
  CHECK_THAT(r.fabric->added.value(),
             WithinRel(r.max_added_per_forward.value() * profile_rates / nominal_rates, 0.02));
}

TEST_CASE("compare's predicted extra for a TP row is penalty's for the same scenario") {
  const ModelArch model = glm53();
  EngineConfig engine = glm_engine();
  const Link from = preset("200G");
  const Link to = preset("100G");
  const FabricProfile f = default_fabric(from, CollectiveSettings{}, "dgx-spark");
  const FabricProfile t = default_fabric(to, CollectiveSettings{}, "dgx-spark");
  CompareRequest c;
  c.model = model;
  c.engine = engine;
  c.layouts = {ParallelLayout{8, 1, 1}, ParallelLayout{8, 2, 1}};
  c.from = {ProfiledLink{from, f}};
  c.to = {ProfiledLink{to, t}};
  c.prompts = {PrefillScenario{"4x16k", PromptSpec{4, 16384}, {}}};
  c.node = builtin_node("dgx-spark");
  const CompareReport report = run_compare(c);
  std::vector<std::optional<Seconds>> predicted;
  std::vector<std::optional<Seconds>> bounds;
  for_each_compare_row(report, [&](const CompareRow& row) {
    predicted.push_back(row.predicted_extra);
    bounds.push_back(row.achieved_bound);
  });
  REQUIRE(predicted.size() == 2);
  REQUIRE(predicted[0]);
  REQUIRE(bounds[0]);
  CHECK_FALSE(predicted[1]);  // PP2 is not predicted
  CHECK_FALSE(bounds[1]);

  PenaltyRequest p;
  p.model = model;
  p.engine = engine;
  p.from = c.from.front();
  p.to = c.to.front();
  p.scenarios = c.prompts;
  const PenaltyReport pr = run_penalty(p);
  CHECK_THAT(predicted[0]->value(), WithinRel(pr.scenarios[0].predicted_extra->value(), 1e-12));
  CHECK_THAT(bounds[0]->value(), WithinRel(pr.scenarios[0].achieved_bound->value(), 1e-12));
}

TEST_CASE(
    "predict's document: the answer first, the settings, a table per link, the caller's notes") {
  PredictRequest req;
  req.model = glm53();
  req.engine = glm_engine();
  for (const char* name : {"200G", "emulated-100G"}) {
    req.links.push_back(ProfiledLink{
        preset(name), default_fabric(preset(name), CollectiveSettings{}, "dgx-spark")});
  }
  req.baseline = load_baseline_csv(kSource + "/examples/data/glm53_tp8_200g.csv");
  req.baseline_origin = "glm53_tp8_200g.csv";
  req.memory_bandwidth = BitRate::gigabytes_per_second(273.0);
  req.scenarios = {all_at_once("P4", 4, 8192, 1024)};
  req.notes = {"a default the caller chose"};
  const PredictReport r = run_predict(req);
  const Document doc = predict_document(req, r);
  CHECK(doc.answer == predict_answer(r));
  CHECK(doc.title ==
        "tpnet predict: glm-5.3 at TP8 (ring all-reduce); vLLM's scheduler step by "
        "step at 200G, emulated-100G");
  std::vector<std::string> keys;
  for (const Field& f : doc.fields) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"model", "tp", "chunk_tokens",
                                         "long_prefill_token_threshold", "max_num_seqs",
                                         "spec_tokens", "overlap_pct", "fabrics", "fit", "decode",
                                         "at_200G", "at_emulated-100G", "scenarios", "notes"});
  CHECK(doc.fields.back().texts.back() == "a default the caller chose");
  CHECK(doc.warnings == r.warnings);
}
