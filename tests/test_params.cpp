// The parameter estimate (docs/formulas.md s.8): each formula on shapes small
// enough to count by hand, then every catalog model against its published
// totals. Tolerances are per model and say why; each is tight enough that a
// missing part (an LM head, the shared experts, the MLA projections) fails it.

#include <algorithm>
#include <cmath>

#include "catch.hpp"
#include "model_fixtures.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/model/params.hpp"

using namespace tpnet;
using namespace tpnet::test;
using tpnet::test::tiny_dense;

namespace {

ParamEstimate of(const std::string& name) { return estimate_params(builtin_model(name)); }

/// One attention layer's weights in tiny_dense's width (64).
double attention(const AttentionSpec& a) {
  MixerSpec mixer;
  mixer.attention = a;
  return mixer_params(64, mixer);
}

/// tiny_dense's layers: one dense, then two MoE of 8 experts of 32, top-2,
/// one shared of 48.
ModelArch tiny_moe() {
  ModelArch m = tiny_dense();
  LayerSpec moe = m.layers.at(0);
  moe.ffn.kind = FfnKind::moe;
  moe.ffn.width = 0;
  moe.ffn.moe = MoeSpec{8, 2, 1, 32, 48, 0};
  m.layers = LayerPlan();
  m.layers.append(tiny_dense().layers.at(0));
  m.layers.append(moe, 2);
  return m;
}

}  // namespace

TEST_CASE("a dense GQA model counts q, k, v, o, a gated FFN and untied embeddings", "[params]") {
  const ModelArch m = tiny_dense();
  const ParamEstimate e = estimate_params(m);
  REQUIRE(e.complete());
  // q and o: 64 x 8 x 16 each; k and v: 64 x 2 x 16 each.
  CHECK(attention(attention_of(m)) == 2 * 64 * 128 + 2 * 64 * 32);
  CHECK(e.total.attention == 2 * (2 * 64 * 128 + 2 * 64 * 32));
  CHECK(e.total.dense_ffn == 2 * 3 * 64 * 128);
  CHECK(e.total.embedding == 100 * 64);
  CHECK(e.total.lm_head == 100 * 64);
  CHECK(e.total_params() == 2 * (20480 + 24576) + 2 * 6400);
  // A token reads the head but only one row of the embedding table.
  CHECK(e.active_params() == e.total_params() - 6400);
  CHECK(e.mtp == 0.0);
}

TEST_CASE("each layer's attention counts its own heads, gate and value width", "[params]") {
  // MHA of 8 heads of 8 in 64: q, k, v, o each 64 x 64.
  CHECK(attention(gqa(8, 8, 8)) == 4.0 * 64 * 64);
  // Qwen3.5's output gate: q_proj twice as wide, K and V unchanged.
  AttentionSpec gated = gqa(8, 2, 16);
  gated.output_gate = true;
  CHECK(attention(gated) == attention(gqa(8, 2, 16)) + 64 * 8 * 16);
  // MiMo's narrower values: v and o at v_head_dim.
  AttentionSpec narrow_v = gqa(8, 2, 16);
  narrow_v.v_head_dim = 8;
  CHECK(attention(narrow_v) == 64 * 8 * 16 + 64 * 2 * 16 + 64 * 2 * 8 + 8 * 8 * 64);
  // Gemma 4's K = V: no v_proj; and a layer that borrows K and V: q and o only.
  AttentionSpec k_is_v = gqa(8, 2, 16);
  k_is_v.shared_kv = true;
  CHECK(attention(k_is_v) == attention(gqa(8, 2, 16)) - 64 * 2 * 16);
  AttentionSpec borrowed = gqa(8, 2, 16);
  borrowed.borrowed_kv = true;
  CHECK(attention(borrowed) == 2 * 64 * 128);
}

TEST_CASE("tied embeddings count the table once in the total, as the head in active", "[params]") {
  ModelArch m = tiny_dense();
  m.tie_word_embeddings = true;
  const ParamEstimate e = estimate_params(m);
  CHECK(e.total.lm_head == 0.0);
  CHECK(e.total.embedding == 6400);
  CHECK(e.active.lm_head == 6400);
  CHECK(e.active_params() == e.total_params());
}

TEST_CASE("MoE layers count routed, shared and router, and active scales routed by top-k / E",
          "[params]") {
  ModelArch m = tiny_moe();
  const ParamEstimate e = estimate_params(m);
  REQUIRE(e.complete());
  CHECK(e.total.dense_ffn == 1 * 3 * 64 * 128);
  CHECK(e.total.routed_experts == 2 * 8 * 3 * 64 * 32);
  CHECK(e.active.routed_experts == 2 * 2 * 3 * 64 * 32);
  CHECK(e.total.shared_experts == 2 * 3 * 64 * 48);
  CHECK(e.active.shared_experts == e.total.shared_experts);
  CHECK(e.total.router == 2 * 64 * 8);
  SECTION("a shared expert without its own width takes the routed experts'") {
    m = with_layers(m, [](LayerSpec& l) { l.ffn.moe.shared_expert_intermediate_size = 0; });
    CHECK(estimate_params(m).total.shared_experts == 2 * 3 * 64 * 32);
  }
  SECTION("a latent width puts the routed experts behind a down and an up projection") {
    m = with_layers(m, [](LayerSpec& l) { l.ffn.moe.latent_size = 16; });
    const FfnParams f = ffn_params(64, m.layers.at(1).ffn);
    CHECK(f.routed == 8 * 3 * 16 * 32);
    CHECK(f.routed_active == 2 * 3 * 16 * 32);
    // The projections are a part of their own: every token reads them whole.
    CHECK(f.latent == 2 * 64 * 16);
    const ParamEstimate latent = estimate_params(m);
    CHECK(latent.total.latent_projections == 2 * (2 * 64 * 16));
    CHECK(latent.active.latent_projections == latent.total.latent_projections);
    CHECK(f.shared == 3 * 64 * 48);  // the shared expert stays at the hidden width
    CHECK(f.router == 64 * 8);
  }
  SECTION("an MTP layer is one MoE decoder layer plus the 2h x h projection") {
    m.mtp_layers = 1;
    const ParamEstimate with = estimate_params(m);
    const double layer = attention(attention_of(m)) + 8 * 3 * 64 * 32 + 3 * 64 * 48 + 64 * 8;
    CHECK(with.mtp == layer + 2 * 64 * 64);
    CHECK(with.total_params() == e.total_params());  // apart from the total
    CHECK(with.total_with_mtp() == e.total_params() + with.mtp);
    CHECK(with.mtp_active == with.mtp - 6 * 3 * 64 * 32);
  }
}

TEST_CASE("MLA counts the low-rank q and kv projections and the output", "[params]") {
  AttentionSpec a = gqa(8, 8, 12);
  a.latent = true;
  a.mla = MlaSpec{16, 24, 4, 8, 10};  // kv_lora 16, q_lora 24, rope 4, nope 8, v 10
  const double q = 64 * 24 + 24 * 8 * (8 + 4);
  const double kv = 64 * (16 + 4) + 16 * 8 * (8 + 10);
  const double o = 8 * 10 * 64;
  CHECK(attention(a) == q + kv + o);
  SECTION("without q compression the query projection is direct") {
    a.mla.q_lora_rank = 0;
    CHECK(attention(a) == 64 * 8 * 12 + kv + o);
  }
  SECTION("the DSA indexer reads the q latent") {
    a.indexer = SparseIndexer{2048, 4, 6};
    CHECK(attention(a) == q + kv + o + 24 * 4 * 6 + 64 * 6 + 64 * 4);
  }
  SECTION("Kimi K3's output gate adds g_proj, hidden -> heads x v") {
    a.output_gate = true;
    CHECK(attention(a) == q + kv + o + 64 * 8 * 10);
  }
  SECTION("MLA without its shapes is reported missing, not guessed") {
    const ModelArch m =
        with_layers(tiny_dense(), [](LayerSpec& l) { l.mixer.attention.latent = true; });
    const ParamEstimate e = estimate_params(m);
    CHECK_FALSE(e.complete());
    CHECK(e.missing == std::vector<std::string>{"mla"});
  }
}

TEST_CASE("Gated DeltaNet layers replace attention in a hybrid model", "[params]") {
  MixerSpec deltanet;
  deltanet.kind = Mixer::linear_attention;
  deltanet.linear = LinearAttentionSpec{LinearKind::gated_deltanet, 2, 4, 8, 8, 4, 0};
  // qkvz: 64 x (2x16 + 2x32); beta/alpha: 64 x 8; conv: (2x16 + 32) x 4; out: 32 x 64.
  const double linear = 64 * 96 + 64 * 8 + 64 * 4 + 32 * 64;
  CHECK(mixer_params(64, deltanet) == linear);
  ModelArch m = tiny_dense();
  LayerSpec layer = m.layers.at(0);
  layer.mixer = deltanet;
  m.layers = LayerPlan();
  m.layers.append(layer, 3);
  m.layers.append(tiny_dense().layers.at(0));
  CHECK(estimate_params(m).total.attention == 3 * linear + attention(attention_of(m)));
  m = with_layers(m, [](LayerSpec& l) { l.mixer.linear.value_heads = 0; });
  CHECK(estimate_params(m).missing == std::vector<std::string>{"linear_attention"});
}

TEST_CASE(
    "Kimi Delta Attention's gates: low rank, or a full-rank output gate with "
    "use_full_rank_gate",
    "[params]") {
  MixerSpec kda;
  kda.kind = Mixer::linear_attention;
  kda.linear = LinearAttentionSpec{LinearKind::kimi_delta, 2, 2, 8, 8, 4, 8};
  // q, k, v 64 x 48; beta 64 x 2; gates f and g 2 x (64 x 8 + 8 x 16); conv 48 x 4; o 16 x 64.
  CHECK(mixer_params(64, kda) == 64 * 48 + 64 * 2 + 2 * (64 * 8 + 8 * 16) + 48 * 4 + 16 * 64);
  // Kimi K3: the output gate g is one 64 x 16 projection, the decay gate f stays low rank.
  kda.linear.full_rank_output_gate = true;
  CHECK(mixer_params(64, kda) == 64 * 48 + 64 * 2 + (64 * 8 + 8 * 16) + 64 * 16 + 48 * 4 + 16 * 64);
  // Lightning attention: q, k, v, the output gate and out_proj, no convolution.
  MixerSpec lightning;
  lightning.kind = Mixer::linear_attention;
  lightning.linear = LinearAttentionSpec{LinearKind::lightning, 2, 2, 8, 8, 0, 0};
  CHECK(mixer_params(64, lightning) == 64 * 48 + 64 * 16 + 16 * 64);
}

TEST_CASE("missing shapes are named and their parts count 0", "[params]") {
  const ModelArch m = with_layers(tiny_moe(), [](LayerSpec& l) {
    l.ffn.width = 0;
    l.ffn.moe.expert_intermediate_size = 0;
  });
  const ParamEstimate e = estimate_params(m);
  CHECK(e.missing == std::vector<std::string>{"intermediate_size", "moe.expert_intermediate_size"});
  CHECK(e.total.dense_ffn == 0.0);
  CHECK(e.total.routed_experts == 0.0);
}

TEST_CASE("the estimate reads shapes, never the stated total", "[params]") {
  ModelArch m = builtin_model("llama-3.1-70b");
  const double before = estimate_params(m).total_params();
  m.total_params = 1.0;
  m.active_params = 1.0;
  CHECK(estimate_params(m).total_params() == before);
}

// ---------------------------------------------------------------- published totals
// Published figures: model cards (and DeepSeek-V3's technical report). Where a
// config is exact and the card prints three or more figures, the tolerance is
// 0.5%: norms and biases (left out) are < 0.1%, rounding the rest.

TEST_CASE("Llama-3.1 8B, 70B and 405B estimates match 8.03B, 70.6B and 405.9B",
          "[params][golden]") {
  // Exact configs, cards print 3-4 figures.
  CHECK_THAT(of("llama-3.1-8b").total_params(), WithinRel(8.03e9, 0.005));
  CHECK_THAT(of("llama-3.1-70b").total_params(), WithinRel(70.6e9, 0.005));
  CHECK_THAT(of("llama-3.1-405b").total_params(), WithinRel(405.9e9, 0.005));
  // Dense: active is the total less the embedding table (one row is read).
  const ParamEstimate e = of("llama-3.1-70b");
  CHECK(e.active_params() == e.total_params() - e.total.embedding);
  // The tolerance can fail: leaving out the untied LM head (1.05B) misses by 1.5%.
  ModelArch tied = builtin_model("llama-3.1-70b");
  tied.tie_word_embeddings = true;
  CHECK_FALSE(WithinRel(70.6e9, 0.005).match(estimate_params(tied).total_params()));
}

TEST_CASE("Qwen3-32B is 32.8B and Qwen3-235B-A22B is 235B with 22B active", "[params][golden]") {
  CHECK_THAT(of("qwen3-32b").total_params(), WithinRel(32.8e9, 0.005));
  const ParamEstimate e = of("qwen3-235b-a22b");
  CHECK_THAT(e.total_params(), WithinRel(235e9, 0.005));
  // "22B" has two figures (+-2.3%); tpnet's active (head in, table out) is 21.6B.
  CHECK_THAT(e.active_params(), WithinRel(22e9, 0.03));
}

TEST_CASE("Qwen3-Next-80B-A3B is 80B with about 3B active", "[params][golden]") {
  const ParamEstimate e = of("qwen3-next-80b-a3b");
  // "80B" has two figures (+-0.6%); the gated attention's output gates (0.1B) included.
  CHECK_THAT(e.total_params(), WithinRel(80e9, 0.015));
  // "3B" is one figure. Without the LM head, as Qwen appears to count, 3.25B
  // (+8.4%, of which the output gates are 0.1B); with it, as tpnet counts
  // what a token reads, 3.56B.
  CHECK_THAT(e.active_params() - e.active.lm_head, WithinRel(3e9, 0.09));
  CHECK_THAT(e.active_params(), WithinRel(3e9, 0.16));
  CHECK(e.total.attention > 0.0);
}

TEST_CASE("DeepSeek-V3 is 671B with 37B active, 685B with its MTP module", "[params][golden]") {
  const ModelArch m = builtin_model("deepseek-v3");
  const ParamEstimate e = estimate_params(m);
  REQUIRE(e.complete());
  // Exact config; the report prints 671B (+-0.07%).
  CHECK_THAT(e.total_params(), WithinRel(671e9, 0.005));
  // "37B" has two figures (+-1.4%): 36.6B here.
  CHECK_THAT(e.active_params(), WithinRel(37e9, 0.02));
  // The 685B checkpoint also stores the MTP module's own copies of the
  // embedding and head (2 x 0.93B), which the estimate shares with the model.
  CHECK_THAT(e.total_with_mtp(), WithinRel(685e9, 0.005));
  const double copies = 2.0 * static_cast<double>(m.vocab_size * m.hidden_size);
  CHECK_THAT(e.total_with_mtp() + copies, WithinRel(685e9, 0.002));
}

TEST_CASE("DeepSeek-V3.2-Exp adds the DSA indexer to DeepSeek-V3", "[params][golden]") {
  const ParamEstimate v3 = of("deepseek-v3");
  const ParamEstimate v32 = of("deepseek-v3.2-exp");
  // 61 layers x (1536 x 64 x 128 + 7168 x 128 + 7168 x 64) = 0.85B
  CHECK(v32.total_params() - v3.total_params() ==
        61.0 * (1536 * 64 * 128 + 7168 * 128 + 7168 * 64));
  CHECK_THAT(v32.total_params(), WithinRel(671e9, 0.005));
  CHECK_THAT(v32.active_params(), WithinRel(37e9, 0.02));
}

TEST_CASE("GLM-4.5 is 355B with 32B active and GLM-4.5-Air 106B with 12B", "[params][golden]") {
  const ParamEstimate glm = of("glm-4.5");
  // "355B" may or may not count the MTP layer: 352.8B without, 356.8B with.
  CHECK_THAT(glm.total_params(), WithinRel(355e9, 0.01));
  CHECK_THAT(glm.total_with_mtp(), WithinRel(355e9, 0.01));
  // GLM counts active weights without the embedding and head: 32.08B.
  CHECK_THAT(glm.active_params() - glm.active.lm_head, WithinRel(32e9, 0.01));
  CHECK_THAT(glm.active_params(), WithinRel(32e9, 0.03));
  const ParamEstimate air = of("glm-4.5-air");
  CHECK_THAT(air.total_params(), WithinRel(106e9, 0.01));
  // "12B" has two figures (+-4%): 12.18B without the head, 12.80B with it.
  CHECK_THAT(air.active_params() - air.active.lm_head, WithinRel(12e9, 0.02));
  CHECK_THAT(air.active_params(), WithinRel(12e9, 0.07));
}

TEST_CASE("gpt-oss-120b is 117B with 5.1B active", "[params][golden]") {
  const ParamEstimate e = of("gpt-oss-120b");
  // The card's breakdown: 116.83B total, 5.13B active; biases and sinks left out.
  CHECK_THAT(e.total_params(), WithinRel(117e9, 0.005));
  CHECK_THAT(e.active_params(), WithinRel(5.1e9, 0.01));
  // Its table: MLP 114.71B, attention 0.96B, embedding + unembedding 1.16B.
  CHECK_THAT(e.total.routed_experts + e.total.router, WithinRel(114.71e9, 0.001));
  CHECK_THAT(e.total.attention, WithinRel(0.96e9, 0.01));
  CHECK_THAT(e.total.embedding + e.total.lm_head, WithinRel(1.16e9, 0.01));
}

TEST_CASE("Kimi-K2 is 1.04T with 32B active", "[params][golden]") {
  const ParamEstimate e = of("kimi-k2");
  // The card says 1T; 1.04T is the finer figure quoted; the shapes give 1.026T.
  CHECK_THAT(e.total_params(), WithinRel(1.04e12, 0.02));
  CHECK_THAT(e.active_params(), WithinRel(32e9, 0.02));
  CHECK(e.mtp == 0.0);
}

TEST_CASE("MiniMax-M2 is 230B with 10B active", "[params][golden]") {
  const ParamEstimate e = of("minimax-m2");
  // "230B" has two or three figures; q/k norms are left out.
  CHECK_THAT(e.total_params(), WithinRel(230e9, 0.01));
  // "10B" has one or two figures (+-5%): 10.4B with the head, 9.8B without.
  CHECK_THAT(e.active_params(), WithinRel(10e9, 0.05));
}

TEST_CASE("every complete catalog estimate lands within 2% of the stated total",
          "[params][catalog]") {
  for (const auto& name : builtin_model_names()) {
    const ModelArch m = builtin_model(name);
    const ParamEstimate e = estimate_params(m);
    if (!e.complete()) continue;
    INFO(name);
    // A stated total may count the MTP layers as a card does (glm-5.3's 753B
    // = 743.6B + 10.0B; qwen3.6-27b's 27B = 26.90B + 0.42B and its vision tower).
    const double gap = std::min(std::abs(e.total_params() / m.total_params - 1.0),
                                std::abs(e.total_with_mtp() / m.total_params - 1.0));
    // deepseek-v4.1-flash's report states no widths: its assumed V4-family
    // experts give 712B, 724B with the MTP layer, against the stated 763B (-5.2%).
    CHECK(gap <= (name == "deepseek-v4.1-flash" ? 0.055 : 0.02));
  }
}
