// Decode over a slower link (tpnet/usecase/decode.hpp, docs/formulas.md s.6):
// what grows with the running requests and what does not, and the inputs
// refused. The one-request figures of background s.3 are reproduced in
// test_golden_glm53.cpp.

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"
#include "study_fixtures.hpp"
#include "tpnet/io/link_presets.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/node_catalog.hpp"
#include "tpnet/usecase/decode.hpp"

using namespace tpnet;
using tpnet::test::preset;

namespace {

EngineConfig tp8_with_4_drafts() {
  EngineConfig e;
  e.tensor_parallel_size = 8;
  e.num_speculative_tokens = 4;
  return e;
}

std::string refused_field(const DecodeInputs& inputs) {
  try {
    (void)analyze_decode(builtin_model("glm-5.3"), tp8_with_4_drafts(), preset("200G"),
                         preset("100G"), inputs);
  } catch (const InputError& e) {
    return e.where().key;
  }
  return "";
}

}  // namespace

TEST_CASE("two requests send twice one's bytes a forward and read the same weights", "[decode]") {
  const BitRate spark = BitRate::gigabytes_per_second(273);
  const DecodeReport r = analyze_decode(builtin_model("glm-5.3"), tp8_with_4_drafts(),
                                        preset("200G"), preset("100G"), DecodeInputs{2, spark});
  // 2 x (1 + 4) tokens; block 10 x 6,144 x 2 = 122,880 B; 157 all-reduces of 1.75 x it.
  CHECK(r.tokens_per_forward == 10);
  CHECK(r.allreduce.block.count() == 122880.0);
  CHECK(r.allreduces_per_forward == 157);
  const double allreduces = 157 * 1.75 * 122880.0;  // 33,761,280 B
  CHECK(r.allreduce_forward_bytes.count() == allreduces);
  // Logits: 10 x 129,280 x 2 x 7/8 = 2,262,400 B.
  CHECK(r.logits_sent.count() == 2262400.0);
  CHECK(r.forward_sent.count() == allreduces + 2262400.0);
  // The floor is the weights, not the tokens: 40e9 x 4.5 / 8 / 8 = 2.8125 GB at 273 GB/s.
  CHECK(r.weight_bytes_per_node.count() == 2.8125e9);
  CHECK_THAT(r.weight_read_floor.value(), WithinRel(2.8125e9 / 273e9, 1e-12));
  // Halving the link adds the forward's bytes at 200 Gb/s.
  CHECK_THAT(r.max_added_per_forward.value(),
             WithinRel((allreduces + 2262400.0) * 8 / 200e9, 1e-12));
  CHECK_THAT(r.max_added_share, WithinRel(r.max_added_per_forward / r.weight_read_floor, 1e-12));
  CHECK_THAT(r.traffic_ceiling.bits_per_second(),
             WithinRel((allreduces + 2262400.0) * 8 / r.weight_read_floor.value(), 1e-12));
  // Each request still gains 5 tokens a forward, now over a longer one.
  CHECK_THAT(
      r.request_tokens_per_s_bound_from,
      WithinRel(5.0 / (r.weight_read_floor.value() + r.forward_sent.count() * 8 / 200e9), 1e-12));
}

TEST_CASE("tpnet decode reads the node's memory bandwidth unless one is given", "[decode]") {
  DecodeRequest request;
  request.model = builtin_model("glm-5.3");
  request.engine = tp8_with_4_drafts();
  request.from = ProfiledLink{preset("200G"), std::nullopt};
  request.to = ProfiledLink{preset("100G"), std::nullopt};
  request.node = builtin_node("dgx-spark");
  const DecodeReport spark = run_decode(request);
  CHECK(spark.memory_bandwidth == request.node.memory_bandwidth);
  CHECK_FALSE(spark.fabric);  // no profiles asked: no fabric estimate
  request.memory_bandwidth = request.node.memory_bandwidth * 2.0;
  const DecodeReport twice = run_decode(request);
  CHECK_THAT(twice.weight_read_floor.value(),
             WithinRel(spark.weight_read_floor.value() / 2, 1e-12));
  CHECK(twice.forward_sent == spark.forward_sent);
}

TEST_CASE("decode refuses no requests and no memory bandwidth, naming the field",
          "[decode][bad-input]") {
  const BitRate spark = BitRate::gigabytes_per_second(273);
  CHECK(refused_field(DecodeInputs{1, spark}).empty());
  CHECK(refused_field(DecodeInputs{0, spark}) == "workload.decode_requests");
  CHECK(refused_field(DecodeInputs{1, BitRate(0.0)}) == "memory.memory_bandwidth");
}

TEST_CASE("decode's document: the forward's traffic, the floor, NCCL's pick, then the fabrics",
          "[decode]") {
  DecodeRequest request;
  request.model = builtin_model("glm-5.3");
  request.engine = tp8_with_4_drafts();
  request.from = ProfiledLink{preset("200G"), nominal_fabric(preset("200G"), CollectiveSettings{})};
  request.to = ProfiledLink{preset("100G"), nominal_fabric(preset("100G"), CollectiveSettings{})};
  request.requests = 2;
  request.node = builtin_node("dgx-spark");
  const DecodeReport r = run_decode(request);
  const Document doc = decode_document(request, r);
  CHECK(doc.title ==
        "tpnet decode: glm-5.3 at TP8 (ring all-reduce), 2 request(s) x 5 token(s) per forward, "
        "200G -> 100G");
  std::vector<std::string> keys;  // JSON's: the table-only summary lines have none
  for (const Field& f : doc.fields) {
    if (!f.table_only) keys.push_back(f.key);
  }
  CHECK(keys == std::vector<std::string>{"model",
                                         "tp",
                                         "algorithm",
                                         "from",
                                         "to",
                                         "requests",
                                         "tokens_per_forward",
                                         "allreduce_block_bytes",
                                         "allreduce_sent_bytes",
                                         "allreduce_steps",
                                         "allreduce_transfer_from_s",
                                         "allreduce_transfer_to_s",
                                         "allreduce_latency_s",
                                         "latency_model",
                                         "nccl_algorithm",
                                         "nccl_protocol",
                                         "nccl_time_s",
                                         "nccl_unpinned_algorithm",
                                         "nccl_unpinned_protocol",
                                         "nccl_unpinned_latency_s",
                                         "nccl_unpinned_time_s",
                                         "regime",
                                         "allreduces_per_forward",
                                         "allreduce_forward_bytes",
                                         "logits_sent_bytes",
                                         "forward_sent_bytes",
                                         "weight_bytes_per_node",
                                         "weight_read_floor_s",
                                         "traffic_ceiling_bps",
                                         "max_added_per_forward_s",
                                         "max_added_pct_of_floor",
                                         "gather_latency_s",
                                         "latency_per_forward_s",
                                         "nccl_candidates",
                                         "explanation",
                                         "fabric_forward_comm_from_s",
                                         "fabric_forward_comm_to_s",
                                         "fabric_added_per_forward_s",
                                         "fabric_added_pct_of_floor",
                                         "fabrics"});
  REQUIRE(r.fabric);
  CHECK(doc.fields.back().records.size() == 2);  // a profile a link
  const auto requests = std::find_if(doc.fields.begin(), doc.fields.end(),
                                     [](const Field& f) { return f.key == "requests"; });
  REQUIRE(requests != doc.fields.end());
  CHECK(requests->number == 2.0);
  CHECK(doc.warnings == r.warnings);
}
