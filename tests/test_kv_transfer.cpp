// One request's KV cache handed from prefill to decode
// (tpnet/traffic/kv_transfer.hpp, docs/formulas.md s.32), worked by hand.

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/kv_cache.hpp"
#include "tpnet/traffic/kv_transfer.hpp"

using namespace tpnet;
using namespace tpnet::test;

TEST_CASE("an MLA cache goes whole to every decode rank, in whole blocks", "[kv-transfer]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  // 61 layers x (kv_lora_rank 512 + rope 64) x 2 bytes, on every rank
  const double per_token = 61 * (512 + 64) * 2.0;
  REQUIRE(kv_bytes_per_token(v3, 4, 2).count() == per_token);
  const KvTransfer t = kv_transfer(v3, 2, 4, 1000, KvTransferSettings{16, 2});
  CHECK(t.blocks == 63);  // 1,000 tokens in 16-token blocks
  CHECK(t.block_tokens == 1008);
  CHECK(t.per_decode_rank.count() == 1008 * per_token);
  CHECK(t.total.count() == 4 * 1008 * per_token);
  // two prefill ranks serve four decode ranks the whole latent each
  CHECK(t.per_prefill_rank.count() == 2 * 1008 * per_token);
  CHECK(t.descriptors_per_decode_rank == 63LL * 61);
}

TEST_CASE("a GQA cache is split by heads: each prefill rank sends its heads once",
          "[kv-transfer]") {
  const ModelArch llama = builtin_model("llama-3.1-70b");
  // 80 layers, K and V of one of 8 KV heads at TP8: 80 x 2 x 128 x 2 bytes
  const double per_token_tp8 = 80 * 2 * 128 * 2.0;
  const KvTransfer t = kv_transfer(llama, 4, 8, 16, KvTransferSettings{16, 2});
  CHECK(t.blocks == 1);
  CHECK(t.per_decode_rank.count() == 16 * per_token_tp8);
  CHECK(t.total.count() == 8 * 16 * per_token_tp8);
  CHECK(t.per_prefill_rank.count() == 2 * 16 * per_token_tp8);  // two heads a prefill rank
  // an FP8 cache halves it
  CHECK(kv_transfer(llama, 4, 8, 16, KvTransferSettings{16, 1}).total.count() ==
        8 * 16 * per_token_tp8 / 2);
}

TEST_CASE("a KV hand-off with no ranks, no prompt or no block size is refused naming the field",
          "[kv-transfer]") {
  const ModelArch v3 = builtin_model("deepseek-v3");
  CHECK_THROWS_WITH(kv_transfer(v3, 0, 1, 10, {}), Catch::Contains("at least 1"));
  try {
    (void)kv_transfer(v3, 1, 1, 10, KvTransferSettings{0, 2});
    FAIL("a block of 0 tokens was accepted");
  } catch (const InputError& e) {
    CHECK(e.where().key == "engine.block_size");
  }
  try {
    (void)kv_transfer(v3, 1, 1, 0, {});
    FAIL("an empty prompt was accepted");
  } catch (const InputError& e) {
    CHECK(e.where().key == "workload.prompt_tokens");
  }
}
