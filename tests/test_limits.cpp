// Arithmetic limits (docs/hardening.md): counts multiply in checked 64-bit
// integers, inputs past the limits are refused with the limit in the
// message, and extreme but valid link rates and times print finite numbers.

#include <filesystem>
#include <functional>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/io/baseline_csv.hpp"
#include "tpnet/io/calibration_yaml.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/gemm_csv.hpp"
#include "tpnet/io/text_file.hpp"

using namespace tpnet;
using tpnet::test::expect_bad_input;
using tpnet::test::run_tpnet;
using tpnet::test::write_temp;

namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// Text a user should never see: NaN, infinity, or a number in exponent form
/// where the format promises fixed decimals.
void expect_plain_numbers(const std::string& output, bool exponents_allowed) {
  INFO(output);
  static const std::regex kNotFinite(R"((^|[^A-Za-z])-?(nan|inf|infinity)([^A-Za-z]|$))",
                                     std::regex::icase);
  static const std::regex kExponent(R"([0-9]e[+-]?[0-9])");
  CHECK_FALSE(std::regex_search(output, kNotFinite));
  if (!exponents_allowed) CHECK_FALSE(std::regex_search(output, kExponent));
}

}  // namespace

TEST_CASE("token counts stop at 128M and prompt mixes at 128M tokens in all", "[limits]") {
  const auto at = InputLocation::for_key("--prompt");
  CHECK(parse_tokens("128M", at) == kMaxTokens);
  CHECK(parse_tokens("134217728", at) == 134217728);
  CHECK_THAT(message_of([&] { (void)parse_tokens("1000000000", at); }),
             ContainsSubstring("from 1 to 128M (134,217,728)"));
  CHECK_THROWS_AS(parse_tokens("134217729", at), InputError);

  const PromptSpec full = parse_prompt("8x16M", at);
  CHECK(full.total_tokens() == kMaxTokens);
  CHECK_THAT(message_of([&] { (void)parse_prompt("1000x1M", at); }),
             ContainsSubstring("asks for 1048576000 prompt tokens in all; a prompt mix may hold "
                               "at most 128M"));
  CHECK_THAT(message_of([&] { (void)parse_prompt("1000000x128M", at); }),
             ContainsSubstring("at most 128M"));
  CHECK_THROWS_AS(parse_prompt("1000001x1", at), InputError);

  // Built by hand past the parser's limits, the product still does not wrap.
  const PromptSpec huge{1LL << 40, 1LL << 30};
  CHECK_THROWS_AS(huge.total_tokens(), InputError);
}

TEST_CASE("rates, durations and byte sizes past the limits are refused with the range",
          "[limits]") {
  const auto at = InputLocation::for_key("--link");
  CHECK(parse_bit_rate("1b/s", at).bits_per_second() == 1.0);
  CHECK(parse_bit_rate("10000T", at).bits_per_second() == 1e16);
  CHECK_THAT(message_of([&] { (void)parse_bit_rate("0.5b/s", at); }),
             ContainsSubstring("--link: '0.5b/s' is outside the link rates tpnet computes with: "
                               "1 b/s to 10 Pb/s (10000T)"));
  CHECK_THROWS_AS(parse_bit_rate("10001T", at), InputError);
  CHECK(parse_duration("1ns", at).value() == 1e-9);
  CHECK(parse_duration("0.001us", at).value() > 0.0);
  CHECK(parse_duration("100000h", at).value() == kMaxSeconds);
  CHECK_THAT(message_of([&] { (void)parse_duration("0.5ns", at); }),
             ContainsSubstring("1ns to 100000h (about 11 years)"));
  CHECK_THROWS_AS(parse_duration("100001h", at), InputError);
  CHECK(parse_bytes("1B", at).count() == 1.0);
  CHECK(parse_bytes("1000000TB", at).count() == kMaxByteCount);
  CHECK_THAT(message_of([&] { (void)parse_bytes("0.5B", at); }),
             ContainsSubstring("1B to 1000000TB (10^18 B)"));
  CHECK_THROWS_AS(parse_bytes("1000001TB", at), InputError);
}

TEST_CASE("measured files refuse times, rates and sizes past the limits, naming the cell",
          "[limits]") {
  // Each would otherwise turn into an infinite product later (bytes x 8 / rate,
  // median x count, the difference of two times).
  CHECK(message_of([] {
          (void)parse_baseline_csv("requests,prompt_tokens_each,ttft_s\n1,4096,1e300\n", "b.csv");
        }) == "b.csv:2: column ttft_s: is 1e+300; allowed 1e-09 to 3.6e+08 s (1 ns to 100,000 h)");
  CHECK(parse_baseline_csv("requests,prompt_tokens_each,ttft_s\n1,4096,3.6e8\n", "b.csv")
            .at(0)
            .baseline_ttft->value() == 3.6e8);

  const std::string gemm_header =
      "model,tp,chunk_tokens,precision,device,compute_capability,peak_tflops,gemm,m,n,k,count,"
      "median_s,tflops\n";
  const std::string gemm_lead = "glm-5.3,8,4096,nvfp4,GB10,12.1,";
  CHECK(message_of([&] {
          (void)parse_gemm_csv(gemm_header + gemm_lead + "0,qkv,1,1,1,75,1e300,1\n", "g.csv");
        }) ==
        "g.csv:2: column median_s: is 1e+300; allowed 1e-09 to 3.6e+08 s (1 ns to 100,000 h)");
  CHECK(message_of([&] {
          (void)parse_gemm_csv(gemm_header + gemm_lead + "0,qkv,1,1,1,1,0.001,1e7\n", "g.csv");
        }) == "g.csv:2: column tflops: is 1e+07; allowed 0 to 1e+06");
  CHECK(message_of([&] {
          (void)parse_gemm_csv(
              gemm_header + "glm-5.3,8,4096,nvfp4,GB10,12.1,1e9,qkv,1,1,1,1,0.001,1\n", "g.csv");
        }) == "g.csv:2: column peak_tflops: is 1e+09; allowed 0 (unknown) to 1e+06");

  CHECK(message_of([] {
          (void)parse_counters_csv(
              "time_s,device,port,port_xmit_data,port_rcv_data\n-1e300,d,1,0,0\n1,d,1,4,4\n",
              "c.csv");
        }) == "c.csv:2: column time_s: -1e300 s is outside -1e+12 to 1e+12 s");
  // Epoch timestamps are fine.
  CHECK(parse_counters_csv("time_s,device,port,port_xmit_data,port_rcv_data\n"
                           "1764000000.000,d,1,0,0\n1764000000.001,d,1,4,4\n",
                           "c.csv")
            .devices.at(0)
            .samples.size() == 2);
  CHECK(message_of([] {
          (void)parse_requests_csv("request_id,start_s,first_token_s,end_s\nr1,0,1,2e12\n",
                                   "r.csv");
        }) == "r.csv:2: column end_s: 2e12 s is outside -1e+12 to 1e+12 s");
}

TEST_CASE("calibration.yaml refuses measured values past the limits, naming the key", "[limits]") {
  const std::string text =
      read_text_file(std::string(TPNET_SOURCE_DIR) +
                     "/examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml");
  const Calibration valid = parse_calibration_yaml(text, "cal.yaml");
  REQUIRE(valid.allreduce.has_value());
  // The first `key: value` (block or flow style) with `key: replacement`.
  auto with = [&](const std::string& key, const std::string& replacement) {
    const std::size_t at = text.find(key + ": ");
    REQUIRE(at != std::string::npos);
    const std::size_t end = text.find_first_of(",}\n", at);
    return text.substr(0, at) + key + ": " + replacement + text.substr(end);
  };
  auto error_with = [&](const std::string& key, const std::string& replacement) {
    const std::string changed = with(key, replacement);
    return message_of([&] { (void)parse_calibration_yaml(changed, "cal.yaml"); });
  };
  CHECK_THAT(error_with("link_bps", "1e300"),
             Catch::Matchers::EndsWith("link_bps: is 1e+300; allowed 1 to 1e+16"));
  CHECK_THAT(error_with("beta_bps", "0.5"),
             Catch::Matchers::EndsWith("fit.beta_bps: is 0.5; allowed 1 to 1e+16"));
  CHECK_THAT(error_with("time_s", "1e300"),
             Catch::Matchers::EndsWith("time_s: is 1e+300; allowed 1e-09 to 3.6e+08"));
  CHECK_THAT(error_with("busbw_bps", "-1"),
             Catch::Matchers::EndsWith("busbw_bps: is -1; must not be negative"));
  CHECK_THAT(error_with("forward_s", "0"),
             Catch::Matchers::EndsWith("forward_s: is 0; must be positive"));
  CHECK_THAT(error_with("rms_relative_error", "1e10"),
             Catch::Matchers::EndsWith("rms_relative_error: is 1e+10; allowed 0 to 1e+09"));
}

TEST_CASE("quantities print as plain numbers with a unit, never an exponent", "[limits]") {
  CHECK(format_bit_rate(BitRate(200e9)) == "200 Gb/s");
  CHECK(format_bit_rate(BitRate(109.07e9)) == "109.07 Gb/s");
  CHECK(format_bit_rate(BitRate(1.0)) == "1 b/s");
  CHECK(format_bit_rate(BitRate(1e16)) == "10000 Tb/s");
  CHECK(format_bit_rate(BitRate(0.0)) == "0 b/s");
  CHECK(format_duration(Seconds(6.6e-6)) == "6.6 us");
  CHECK(format_duration(Seconds(1e-9)) == "1 ns");
  CHECK(format_duration(Seconds(0.0135)) == "13.5 ms");
  CHECK(format_duration(Seconds(45.0)) == "45 s");
  CHECK(format_duration(Seconds(87660.0 * 3600.0)) == "87660 h");
  CHECK(format_duration(Seconds(-0.135)) == "-135 ms");
  CHECK(format_bytes(Bytes(3376128.0)) == "3.37613 MB");
  CHECK(format_bytes(Bytes(4096.0)) == "4.096 kB");
  CHECK(format_bytes(Bytes(1e18)) == "1000000 TB");
  CHECK(format_bytes(Bytes(3376128.0), 3) == "3.38 MB");
}

TEST_CASE("tpnet refuses rates, times and sizes past the limits instead of failing inside",
          "[limits][cli]") {
  // Each of these once ended in exit 3 (a non-finite number) or a wrapped count.
  expect_bad_input(run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--link", "1e-300b/s"}),
                   "--link:");
  expect_bad_input(run_tpnet({"bytes", "--model", "glm-5.3", "--tp", "8", "--overhead", "1e300h"}),
                   "--overhead: '1e300h' is outside the durations tpnet computes with");
  expect_bad_input(
      run_tpnet({"memory", "--model", "glm-5.3", "--tp", "8", "--kv-bytes-per-token", "1e-300B"}),
      "--kv-bytes-per-token: '1e-300B' is outside the byte sizes");
}

TEST_CASE("tpnet refuses a 10^9-token prompt and a 10^6-layer model with the limit",
          "[limits][cli]") {
  expect_bad_input(
      run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--prompt", "1000000000"}),
      "--prompt: '1000000000' must be a whole number of tokens from 1 to 128M");
  expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--prompt", "1000x1M"}),
                   "at most 128M (134,217,728)");
  expect_bad_input(run_tpnet({"compare", "--model", "glm-5.3", "--prompt", "8x1000000k"}),
                   "--prompt:");

  const auto deep = write_temp("tpnet_deep_model.yaml",
                               "name: deep\nhidden_size: 8192\nnum_layers: 1000000\n"
                               "vocab_size: 128256\nnum_attention_heads: 64\n"
                               "total_params: 70B\nbits_per_weight: 16\n");
  const auto r = run_tpnet({"bytes", "--model", deep.string(), "--tp", "8"});
  expect_bad_input(r, "num_layers");
  CHECK_THAT(r.err, ContainsSubstring("100000"));
  std::filesystem::remove(deep);
}

TEST_CASE("link rates from 1 b/s to 10 Pb/s and times from 1 ns to years print finite numbers",
          "[limits][cli]") {
  const std::vector<std::vector<std::string>> runs{
      {"bytes", "--model", "glm-5.3", "--tp", "8", "--link", "1b/s", "--overhead", "1ns"},
      {"bytes", "--model", "glm-5.3", "--tp", "8", "--link", "10000T", "--overhead", "87660h"},
      {"penalty", "--model", "glm-5.3", "--tp", "8", "--from", "10000T", "--to", "1b/s", "--prompt",
       "1,128M,8x16M"},
      {"penalty", "--model", "llama-3.1-8b", "--tp", "2", "--from", "1b/s", "--to", "10000T"},
      {"decode", "--model", "glm-5.3", "--tp", "8", "--from", "10000T", "--to", "1b/s"},
      {"decode", "--model", "glm-5.3", "--tp", "8", "--from", "1b/s", "--to", "10000T",
       "--base-latency", "1ns", "--step-latency", "87660h"},
      {"compare", "--model", "glm-5.3", "--tp", "2,16", "--from", "10000T", "--to", "1b/s,1Mb/s",
       "--prompt", "1,128M"},
      {"link", "--pcie-gen", "1", "--lanes", "1"},
  };
  for (const auto& args : runs) {
    std::string command;
    for (const auto& a : args) command += a + " ";
    for (const std::string format : {"table", "json", "csv", "markdown"}) {
      std::vector<std::string> with_format = args;
      with_format.insert(with_format.end(), {"--format", format});
      CAPTURE(command, format);
      const auto r = run_tpnet(with_format);
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK_FALSE(r.out.empty());
      // JSON and CSV print values in base units, in %g style for very large
      // or small ones (docs/json.md, "Numbers"); tables use fixed decimals.
      expect_plain_numbers(r.out, format == "json" || format == "csv");
      expect_plain_numbers(r.err, true);
    }
  }
}
