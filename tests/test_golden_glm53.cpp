// Every number of docs/background.md sections 1-4, reproduced to its printed precision.

#include "catch.hpp"
#include "golden.hpp"
#include "study_fixtures.hpp"
#include "tpnet/fabric/allreduce_time.hpp"
#include "tpnet/fabric/node.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/tpnet.hpp"
#include "tpnet/traffic/transfer_time.hpp"
#include "tpnet/usecase/bytes_report.hpp"
#include "tpnet/workload/prefill_scenario.hpp"

using namespace tpnet;
using tpnet::test::glm53;
using tpnet::test::preset;
using tpnet::test::prints_as;
using tpnet::test::tp8;

namespace {

DecodeInputs spark_decode() { return DecodeInputs{1, builtin_node("dgx-spark").memory_bandwidth}; }

/// background's decode example: GLM-5.3 at TP8, one request with 4 MTP
/// drafts, 200G -> 100G on a DGX Spark (docs/formulas.md s.6).
DecodeReport glm53_tp8_decode_with_4_drafts() {
  EngineConfig engine = tp8();
  engine.num_speculative_tokens = 4;
  return analyze_decode(glm53(), engine, preset("200G"), preset("100G"), spark_decode());
}

}  // namespace

// ---------------------------------------------------------------- s.1

TEST_CASE("PCIe Gen5 x4 carries 126 Gb/s after line coding and about 111 Gb/s usable", "[golden]") {
  const PcieLinkRates r = pcie_link_rates(PcieSpec{});
  CHECK(r.raw.bits_per_second() == 128e9);
  CHECK(prints_as(r.after_coding.bits_per_second() / 1e9, 126, 0));
  CHECK(prints_as(r.usable.bits_per_second() / 1e9, 111, 0));
}

TEST_CASE("the emulated 100G link carries 109 Gb/s, about 9% more than a real 100G cable",
          "[golden]") {
  const Link emulated = preset("emulated-100G");
  CHECK(emulated.rate.bits_per_second() == 109e9);
  CHECK(prints_as((emulated.rate / preset("100G").rate - 1.0) * 100.0, 9, 0));
}

// ---------------------------------------------------------------- s.2

TEST_CASE("GLM-5.3 block for a 4,096-token chunk is 50.3 MB", "[golden]") {
  CHECK(prints_as(activation_block(glm53(), tp8(), 4096).count() / 1e6, 50.3, 1));
}

TEST_CASE("GLM-5.3 TP8 sends 88.1 MB per node per all-reduce in 14 steps of 6.3 MB", "[golden]") {
  const AllReduceTraffic traffic =
      allreduce_traffic(activation_block(glm53(), tp8(), 4096), 8, CollectiveAlgorithm::ring);
  CHECK(prints_as(traffic.sent_per_node.count() / 1e6, 88.1, 1));
  CHECK(traffic.steps == 14);
  CHECK(prints_as(traffic.segment.count() / 1e6, 6.3, 1));
}

TEST_CASE("GLM-5.3 runs 157 all-reduces per forward", "[golden]") {
  CHECK(allreduces_per_forward(glm53(), tp8()) == 157);
}

TEST_CASE("GLM-5.3 TP8 sends 3.38 MB per prompt token", "[golden]") {
  const Bytes per_token = bytes_per_prompt_token(glm53(), tp8());
  CHECK(per_token.count() == 3376128.0);  // 157 x 6144 x 2 x 1.75, exact
  CHECK(prints_as(per_token.count() / 1e6, 3.38, 2));
}

TEST_CASE("GLM-5.3 TP8 all-reduce takes 3.5 ms at 200 Gb/s and 7.0 ms at 100 Gb/s", "[golden]") {
  const AllReduceTraffic traffic =
      allreduce_traffic(activation_block(glm53(), tp8(), 4096), 8, CollectiveAlgorithm::ring);
  CHECK(prints_as(allreduce_transfer_time(traffic, preset("200G").rate).value() * 1e3, 3.5, 1));
  CHECK(prints_as(allreduce_transfer_time(traffic, preset("100G").rate).value() * 1e3, 7.0, 1));
}

TEST_CASE("a 200 Gb/s link moves 2.5 MB in 100 us", "[golden]") {
  const BytesReport r = analyze_bytes(glm53(), tp8(), preset("200G"), CollectiveSettings{},
                                      Seconds::microseconds(100));
  CHECK(prints_as(r.bytes_in_fixed_overhead.count() / 1e6, 2.5, 1));
  CHECK(r.chunk_regime == CommRegime::bandwidth_bound);
}

TEST_CASE("the measured 3.54-3.60 MB per token is 5-7% above the formula", "[golden]") {
  const double formula = bytes_per_prompt_token(glm53(), tp8()).count();
  CHECK(prints_as((3.54e6 / formula - 1.0) * 100.0, 5, 0));
  CHECK(prints_as((3.60e6 / formula - 1.0) * 100.0, 7, 0));
}

TEST_CASE("per-node bytes against TP8 are 0.57, 0.86, 1 and 1.07 x with compute 4, 2, 1, 0.5 x",
          "[golden]") {
  const BytesReport r = analyze_bytes(glm53(), tp8(), preset("200G"), CollectiveSettings{},
                                      Seconds::microseconds(100));
  REQUIRE(r.tp_scaling.size() == 4);
  const double bytes[] = {0.57, 0.86, 1.00, 1.07};
  const double compute[] = {4.0, 2.0, 1.0, 0.5};
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("TP" << r.tp_scaling[i].tp);
    CHECK(prints_as(r.tp_scaling[i].bytes_vs_reference, bytes[i], 2));
    CHECK(r.tp_scaling[i].compute_vs_reference == compute[i]);
  }
}

// ---------------------------------------------------------------- s.3

TEST_CASE("GLM-5.3 TP8 decode with 4 drafts: 61 KB block, 108 KB sent, 4.3/8.6 us", "[golden]") {
  const DecodeReport r = glm53_tp8_decode_with_4_drafts();
  CHECK(r.tokens_per_forward == 5);
  CHECK(prints_as(r.allreduce.block.count() / 1e3, 61, 0));
  CHECK(prints_as(r.allreduce.sent_per_node.count() / 1e3, 108, 0));
  CHECK(prints_as(r.transfer_from.value() * 1e6, 4.3, 1));
  CHECK(prints_as(r.transfer_to.value() * 1e6, 8.6, 1));
  CHECK(r.regime == CommRegime::latency_bound);
}

TEST_CASE("GLM-5.3 TP8 decode sends about 18 MB per forward with the logits", "[golden]") {
  const DecodeReport r = glm53_tp8_decode_with_4_drafts();
  CHECK(prints_as(r.forward_sent.count() / 1e6, 18, 0));
  CHECK(r.logits_sent.count() > 0.0);
}

TEST_CASE("GLM-5.3 TP8 reads 2.8 GB of active weights per node, a 10.3 ms floor", "[golden]") {
  const DecodeReport r = glm53_tp8_decode_with_4_drafts();
  CHECK(prints_as(r.weight_bytes_per_node.count() / 1e9, 2.8, 1));
  CHECK(prints_as(r.weight_read_floor.value() * 1e3, 10.3, 1));
}

TEST_CASE("GLM-5.3 TP8 decode traffic peaks near 14 Gb/s and halving the link adds at most 0.72 ms",
          "[golden]") {
  const DecodeReport r = glm53_tp8_decode_with_4_drafts();
  CHECK(prints_as(r.traffic_ceiling.bits_per_second() / 1e9, 14, 0));
  CHECK(prints_as(r.max_added_per_forward.value() * 1e3, 0.72, 2));
}

TEST_CASE("GLM-5.3 TP8 with 4 drafts decodes one request at most 454/426 tokens/s at 200G/100G",
          "[golden]") {
  const DecodeReport r = glm53_tp8_decode_with_4_drafts();
  // 5 tokens over the 10.302 ms floor plus 18,011,840 B at each rate
  // (docs/formulas.md s.6, "Decode speed per request").
  CHECK_THAT(r.request_tokens_per_s_bound_from, WithinRel(453.61, 1e-4));
  CHECK_THAT(r.request_tokens_per_s_bound_to, WithinRel(425.78, 1e-4));
  // ... plus NCCL's modelled 12.10 ms of fixed latency per forward.
  CHECK_THAT(r.request_tokens_per_s_with_latency_from, WithinRel(216.24, 1e-3));
  CHECK_THAT(r.request_tokens_per_s_with_latency_to, WithinRel(209.71, 1e-3));
  // The study measured 22.4 tokens/s for P1 at 200G (DOMAIN.md s.3): below both, as bounds must.
  CHECK(r.request_tokens_per_s_with_latency_from > 22.4);
}

TEST_CASE("a 1K prompt's all-reduces send only about 22 MB per node", "[golden]") {
  const auto report = analyze_penalty(glm53(), tp8(), preset("200G"), preset("100G"),
                                      {PrefillScenario{"P1", PromptSpec{1, 1024}, {}}});
  const double sent = report.scenarios.front().step_block.count() * 1.75;
  CHECK(prints_as(sent / 1e6, 22, 0));
  CHECK_FALSE(report.scenarios.front().notes.empty());
}

// ---------------------------------------------------------------- s.4

TEST_CASE("GLM-5.3 TP8 at 100G costs at most 0.135 s per 1,000 prompt tokens (0.11 s at 109G)",
          "[golden]") {
  const auto to100 = analyze_penalty(glm53(), tp8(), preset("200G"), preset("100G"), {});
  CHECK(prints_as(to100.extra_per_1k_tokens.value(), 0.135, 3));
  const auto to109 = analyze_penalty(glm53(), tp8(), preset("200G"), preset("emulated-100G"), {});
  CHECK(prints_as(to109.extra_per_1k_tokens.value(), 0.11, 2));
}

TEST_CASE("GLM-5.3 study P1-P6: prefill bytes and the 200->100 and 200->109 bounds", "[golden]") {
  struct Expected {
    const char* name;
    long long tokens;
    double gigabytes;
    double bound_100;
    double bound_109;
  };
  const Expected table[] = {
      {"P1", 1024, 3.5, 0.14, 0.12},    {"P2", 8192, 27.7, 1.11, 0.92},
      {"P3", 32768, 110.6, 4.43, 3.69}, {"P4", 32768, 110.6, 4.43, 3.69},
      {"P5", 65536, 221.3, 8.85, 7.39}, {"P6", 65536, 221.3, 8.85, 7.39},
  };
  const auto to100 =
      analyze_penalty(glm53(), tp8(), preset("200G"), preset("100G"), study_scenarios());
  const auto to109 =
      analyze_penalty(glm53(), tp8(), preset("200G"), preset("emulated-100G"), study_scenarios());
  REQUIRE(to100.scenarios.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    INFO(table[i].name);
    CHECK(to100.scenarios[i].scenario.name == table[i].name);
    CHECK(to100.scenarios[i].total_tokens == table[i].tokens);
    CHECK(
        prints_as(to100.scenarios[i].prefill_bytes_per_node.count() / 1e9, table[i].gigabytes, 1));
    CHECK(prints_as(to100.scenarios[i].nominal_bound.value(), table[i].bound_100, 2));
    CHECK(prints_as(to109.scenarios[i].nominal_bound.value(), table[i].bound_109, 2));
  }
}

TEST_CASE("for 200 -> 100 Gb/s the extra time equals the time to send the bytes at 200 Gb/s",
          "[golden]") {
  const auto r = analyze_penalty(glm53(), tp8(), preset("200G"), preset("100G"), study_scenarios());
  for (const auto& s : r.scenarios) {
    CHECK_THAT(s.nominal_bound.value(), WithinRel(s.comm_time_from.value(), 1e-12));
  }
}

TEST_CASE("the TTFT share bound: network share x (B_old/B_new - 1)", "[golden]") {
  PrefillScenario p2{"P2", PromptSpec{1, 8192}, Seconds(6.36)};
  const auto r = analyze_penalty(glm53(), tp8(), preset("200G"), preset("100G"), {p2});
  const auto& s = r.scenarios.front();
  REQUIRE(s.network_share);
  const double share = 8192 * 3376128.0 * 8 / 200e9 / 6.36;
  CHECK_THAT(*s.network_share, WithinRel(share, 1e-12));
  CHECK_THAT(*s.ttft_increase_bound, WithinRel(share * (200.0 / 100.0 - 1.0), 1e-12));
  CHECK_THAT(s.ttft_bound_at_to->value(), WithinRel(6.36 + s.nominal_bound.value(), 1e-12));
}

TEST_CASE("emulated 109G measurements convert to a real 100G cable by the same bound", "[golden]") {
  const Bytes measured = Bytes::gigabytes(27.7);
  const Seconds extra =
      extra_transfer_time(measured, preset("emulated-100G").rate, preset("100G").rate);
  CHECK_THAT(extra.value(), WithinRel(27.7e9 * 8 * (1 / 100e9 - 1 / 109e9), 1e-12));
  CHECK(extra.value() > 0.0);
}
