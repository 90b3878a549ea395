// `vllm serve` command lines read as engine settings: the real ones in
// tests/data/vllm-serve (SOURCES there), the shell forms they are written in,
// and what --vllm-args does to a tpnet command.

#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "cli_runner.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/io/vllm_serve.hpp"

using namespace tpnet;
using tpnet::test::run_tpnet;

namespace {

const std::string kDir = std::string(TPNET_SOURCE_DIR) + "/tests/data/vllm-serve/";

std::string slurp(const std::string& name) {
  std::ifstream in(kDir + name, std::ios::binary);
  REQUIRE(in);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// The value a field was set to, or "(unset)".
std::string value_of(const VllmServeCommand& c, const std::string& field) {
  for (const auto& s : c.settings) {
    if (s.field == field) return s.value;
  }
  return "(unset)";
}

bool ignores(const VllmServeCommand& c, const std::string& flag) {
  for (const auto& i : c.ignored) {
    if (i.vllm_flag.rfind(flag, 0) == 0) return true;
  }
  return false;
}

std::string error_of(const std::string& text) {
  try {
    (void)parse_vllm_serve(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a TP2 speculative-decoding serve script: TP, utilization and 3 draft tokens",
          "[vllm-serve][corpus]") {
  const auto c = parse_vllm_serve(slurp("southfreebird-llama3.1-8b-speculative-config.sh"));
  CHECK(c.model == "meta-llama/Meta-Llama-3.1-8B-Instruct");
  CHECK(value_of(c, "layout.tp") == "2");
  CHECK(value_of(c, "memory.gpu_memory_utilization") == "0.97");
  // From the JSON of the command's --speculative-config; the commented-out
  // alternatives after it are not read.
  CHECK(value_of(c, "engine.num_speculative_tokens") == "3");
  CHECK(c.settings.size() == 3);
  for (const char* flag : {"--served-model-name", "--trust-remote-code", "--disable-log-requests",
                           "--enable-auto-tool-choice", "--tool-call-parser", "--seed"}) {
    CAPTURE(flag);
    CHECK(ignores(c, flag));
  }
}

TEST_CASE("a script with environment, a comment and $MODEL: the variable is not expanded",
          "[vllm-serve][corpus]") {
  const auto c = parse_vllm_serve(slurp("kika-qwen3-0.6b-env-and-variable.sh"));
  CHECK(c.model == "$MODEL");
  CHECK(value_of(c, "layout.tp") == "1");
  CHECK(value_of(c, "memory.max_model_len") == "32768");
  CHECK(value_of(c, "memory.kv_cache_dtype") == "fp8");
  CHECK(value_of(c, "engine.max_num_batched_tokens") == "8192");
  CHECK(value_of(c, "memory.gpu_memory_utilization") == "0.85");
  CHECK(ignores(c, "--reasoning-parser qwen3"));
  CHECK(ignores(c, "--language-model-only"));
  CHECK(ignores(c, "--port 8000"));
}

TEST_CASE("nohup vllm serve ... > log 2>&1 &: redirections are not arguments",
          "[vllm-serve][corpus]") {
  const auto c = parse_vllm_serve(slurp("jyngjeon-qwen2.5-14b-nohup-redirect.sh"));
  CHECK(c.model == "Qwen/Qwen2.5-14B-Instruct");
  CHECK(value_of(c, "layout.tp") == "4");
  CHECK(value_of(c, "memory.max_model_len") == "16384");
  CHECK(value_of(c, "engine.activation_bytes") == "(unset)");  // bfloat16: tpnet's 2 bytes
  for (const auto& i : c.ignored) CHECK(i.vllm_flag.find("log") == std::string::npos);
}

TEST_CASE("the model after --host's value, and underscores for dashes", "[vllm-serve][corpus]") {
  const auto c = parse_vllm_serve(slurp("knu-4090x4-qwen2.5-72b-awq-underscores.sh"));
  CHECK(c.model == "Qwen/Qwen2.5-72B-Instruct-AWQ");
  CHECK(value_of(c, "layout.tp") == "4");
  CHECK(value_of(c, "memory.gpu_memory_utilization") == "0.95");
  CHECK(value_of(c, "memory.max_model_len") == "8192");
  CHECK(value_of(c, "engine.num_speculative_tokens") == "16");
  CHECK(ignores(c, "--speculative-model Qwen/Qwen2.5-14B-Instruct-AWQ"));
}

TEST_CASE("NVIDIA's two-Spark 405B playbook: the vllm line of the block, TP2, one sequence",
          "[vllm-serve][corpus]") {
  const auto c = parse_vllm_serve(slurp("dgx-spark-playbook-405b-awq-tp2.sh"));
  CHECK(c.model == "hugging-quants/Meta-Llama-3.1-405B-Instruct-AWQ-INT4");
  CHECK(value_of(c, "layout.tp") == "2");
  CHECK(value_of(c, "memory.max_model_len") == "256");
  CHECK(value_of(c, "memory.gpu_memory_utilization") == "1.0");
  CHECK(value_of(c, "engine.max_num_seqs") == "1");
  CHECK(value_of(c, "engine.max_num_batched_tokens") == "256");
  CHECK(c.ignored.empty());
}

TEST_CASE("vLLM's short flags, = values, expert parallelism and quantization names",
          "[vllm-serve]") {
  const auto c = parse_vllm_serve(
      "python -m vllm.entrypoints.openai.api_server --model=nvidia/DeepSeek-V3.1-NVFP4 -tp 4 "
      "-dp 2 --enable-expert-parallel -q modelopt_fp4 --kv-cache-dtype=fp8_e5m2 --enforce-eager "
      "--long-prefill-token-threshold 2048 --dtype float32");
  CHECK(c.model == "nvidia/DeepSeek-V3.1-NVFP4");
  CHECK(value_of(c, "layout.tp") == "4");
  CHECK(value_of(c, "layout.ep") == "8");  // TP x DP
  // and as vLLM names them, for the commands that run DP ranks (predict)
  CHECK(value_of(c, "layout.data_parallel_size") == "2");
  CHECK(value_of(c, "layout.enable_expert_parallel").empty());
  CHECK(value_of(c, "model.quantization") == "nvfp4");
  CHECK(value_of(c, "memory.kv_cache_dtype") == "fp8");
  CHECK(value_of(c, "memory.enforce_eager").empty());
  CHECK(value_of(c, "engine.long_prefill_token_threshold") == "2048");
  CHECK(value_of(c, "engine.activation_bytes") == "4");
  CHECK(ignores(c, "--data-parallel-size 2"));
  // A method tpnet cannot price is noted; the checkpoint's files say the precision.
  const auto awq = parse_vllm_serve("vllm serve m --quantization awq");
  CHECK(value_of(awq, "model.quantization") == "(unset)");
  CHECK(ignores(awq, "--quantization awq"));
}

TEST_CASE("vllm serve command lines vLLM would refuse are refused, naming the flag",
          "[vllm-serve][bad-input]") {
  CHECK_THAT(error_of(""), ContainsSubstring("vllm_args: is empty"));
  CHECK_THAT(error_of("vllm serve m --port '8000"), ContainsSubstring("unclosed single quote"));
  CHECK_THAT(error_of("vllm serve m --tensor-parallel-size"),
             ContainsSubstring("--tensor-parallel-size needs a value"));
  CHECK_THAT(error_of("vllm serve m --tensor-parallel-size eight"),
             ContainsSubstring("--tensor-parallel-size eight: 'eight' must be a whole number"));
  CHECK_THAT(error_of("vllm serve m -tp 2 --tensor-parallel-size 4"),
             ContainsSubstring("set one setting twice"));
  CHECK_THAT(error_of("vllm serve m n"), ContainsSubstring("the model is already 'm'"));
  CHECK_THAT(error_of("vllm serve m --kv-cache-dtype int2"),
             ContainsSubstring("'int2' is not a KV-cache dtype"));
  CHECK_THAT(error_of("vllm serve m --speculative-config '{bad'"),
             ContainsSubstring("--speculative-config: is not valid JSON"));
  CHECK_THAT(error_of("vllm serve m --dtype int8"), ContainsSubstring("is not a dtype vLLM takes"));
  // One flag twice with one value is what vLLM takes too.
  CHECK(error_of("vllm serve m -tp 2 --tensor_parallel_size 2") == "(no error)");
}

TEST_CASE("tpnet penalty --vllm-args takes the serve command's settings", "[vllm-serve][cli]") {
  const std::string serve =
      "vllm serve zai-org/GLM-5.3-FP8 --tensor-parallel-size 8 --max-num-batched-tokens 2048 "
      "--trust-remote-code";
  const auto with =
      run_tpnet({"penalty", "--model", "glm-5.3", "--vllm-args", serve, "--format", "json"});
  const auto flags = run_tpnet(
      {"penalty", "--model", "glm-5.3", "--tp", "8", "--chunk", "2048", "--format", "json"});
  REQUIRE(with.exit_code == 0);
  CHECK(with.out == flags.out);  // the same answer as the flags
  CHECK_THAT(with.err, ContainsSubstring("tpnet: note: --vllm-args: its model "
                                         "'zai-org/GLM-5.3-FP8' is not read; --model is used"));
  CHECK_THAT(with.err, ContainsSubstring("ignores --trust-remote-code"));

  // A flag given wins, and says so.
  const auto mine = run_tpnet({"penalty", "--model", "glm-5.3", "--chunk", "4096", "--vllm-args",
                               serve, "--format", "json"});
  const auto plain = run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--format", "json"});
  CHECK(mine.out == plain.out);
  CHECK_THAT(mine.err, ContainsSubstring("--chunk is given, so its --max-num-batched-tokens 2048 "
                                         "is not used"));
  // A setting the command has no flag for is noted.
  const auto seqs =
      run_tpnet({"penalty", "--model", "glm-5.3", "--vllm-args", serve + " --max-model-len 32k"});
  CHECK(seqs.exit_code == 0);
  CHECK_THAT(seqs.err, ContainsSubstring("--max-model-len 32k is not used by tpnet penalty"));
}

TEST_CASE("tpnet --vllm-args reads a local model path and fetches nothing", "[vllm-serve][cli]") {
  const std::string local = std::string(TPNET_SOURCE_DIR) + "/tests/data/hf/Qwen__Qwen2.5-72B";
  const auto read =
      run_tpnet({"memory", "--vllm-args", "vllm serve " + local + " -tp 4 --max-model-len 8192",
                 "--format", "json"});
  const auto direct = run_tpnet(
      {"memory", "--model", local, "--tp", "4", "--max-model-len", "8192", "--format", "json"});
  REQUIRE(read.exit_code == 0);
  CHECK(read.out == direct.out);

  const auto remote = run_tpnet({"memory", "--vllm-args", "vllm serve Qwen/Qwen2.5-72B -tp 4"});
  CHECK(remote.exit_code == 2);
  CHECK_THAT(remote.err, ContainsSubstring("tpnet: error: --vllm-args: names the model "
                                           "'Qwen/Qwen2.5-72B', which is not a local path, and "
                                           "tpnet fetches nothing: give --model"));
  const auto bad = run_tpnet({"memory", "--model", "glm-5.3", "--vllm-args", "vllm serve m -tp x"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, ContainsSubstring("tpnet: error: --vllm-args: --tensor-parallel-size x:"));
}

TEST_CASE(
    "an unquoted --speculative-config JSON (gpustack's Qwen3.5 recipe) still sets its "
    "draft tokens",
    "[vllm-serve][corpus]") {
  // The shell strips the JSON's quotes: {method:mtp,num_speculative_tokens:1}.
  const auto c = parse_vllm_serve(slurp("gpustack-qwen3.5-35b-a3b-h200-mtp-unquoted-json.sh"));
  CHECK(c.model == "Qwen/Qwen3.5-35B-A3B-FP8");
  CHECK(value_of(c, "engine.num_speculative_tokens") == "1");
  CHECK(value_of(c, "memory.max_model_len") == "32768");
  // Written with spaces and no quotes, the JSON arrives in pieces: they are joined.
  const auto spaced = parse_vllm_serve(
      R"(vllm serve m --speculative-config {"method": "mtp", "num_speculative_tokens": 3} -tp 2)");
  CHECK(value_of(spaced, "engine.num_speculative_tokens") == "3");
  CHECK(value_of(spaced, "layout.tp") == "2");
  // Quoted, as vLLM's docs write it: unchanged.
  CHECK(
      value_of(
          parse_vllm_serve(
              R"(vllm serve m --speculative-config '{"method":"mtp","num_speculative_tokens":2}')"),
          "engine.num_speculative_tokens") == "2");
  // Unreadable JSON is still refused, naming the flag.
  CHECK_THAT(error_of("vllm serve m --speculative-config {method:mtp,num_speculative_tokens"),
             ContainsSubstring("--speculative-config: is not valid JSON"));
}

TEST_CASE("vLLM's --all2all-backend is read into the engine's backend", "[vllm-serve]") {
  const auto c = parse_vllm_serve(
      "vllm serve deepseek-ai/DeepSeek-V3 --data-parallel-size 8 --enable-expert-parallel "
      "--all2all-backend DeepEP_Low_Latency");
  CHECK(value_of(c, "engine.all2all_backend") == "deepep_low_latency");
}
