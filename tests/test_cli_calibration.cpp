// tpnet calibration end to end (YAML on stdout, --out with a summary, every
// input kind, bad input), and --calibration on penalty, decode and compare:
// point keys present and finite, warnings on a TP or link mismatch.

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

namespace {
/// Text output with its wrapped lines joined again (a line break and the
/// hanging indent become one space), for checks of a phrase.
[[maybe_unused]] std::string unwrapped(const std::string& text) {
  std::string out;
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (text[at] == '\n' && at + 1 < text.size() && text[at + 1] == ' ') {
      while (at + 1 < text.size() && text[at + 1] == ' ') ++at;
      out += ' ';
    } else {
      out += text[at];
    }
  }
  return out;
}
}  // namespace

using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;
using tpnet::test::slurp;
using tpnet::test::write_temp;

namespace {

const std::string kSource = TPNET_SOURCE_DIR;
const std::string kSweep = kSource + "/examples/nccl-tests/all_reduce_perf_8ranks_synthetic.txt";
const std::string kGemm = kSource + "/examples/calibration/gemm_glm53_tp8_synthetic.csv";
const std::string kCalibration =
    kSource + "/examples/calibration/calibration_glm53_tp8_200g_synthetic.yaml";
const std::string kCounters = kSource + "/examples/traffic/counters_synthetic.csv";
const std::string kRequests = kSource + "/examples/traffic/requests_synthetic.csv";
const std::string kBaseline = kSource + "/examples/data/glm53_tp8_200g.csv";

bool finite_number(const YAML::Node& node) {
  return node && node.IsScalar() && std::isfinite(node.as<double>());
}

/// One all_reduce_perf row of a bf16 sweep, out-of-place and in-place alike.
std::string fmt_row(double size, double us, double algbw) {
  const double busbw = algbw * 1.5;
  char line[256];
  std::snprintf(line, sizeof line,
                "%12.0f  %12.0f  bfloat16     sum      -1  %8.2f  %6.2f  %6.2f      0  %8.2f  "
                "%6.2f  %6.2f      0\n",
                size, size / 2, us, algbw, busbw, us, algbw, busbw);
  return line;
}

}  // namespace

TEST_CASE("tpnet calibration prints calibration.yaml: fit, curve, provenance",
          "[cli][calibration]") {
  const auto r = run_tpnet({"calibration", "--nccl-tests", kSweep, "--link", "200G"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const YAML::Node y = YAML::Load(r.out);
  CHECK(y["tpnet_calibration"].as<int>() == 1);
  CHECK(y["provenance"]["nccl_version"].as<std::string>() == "2.21.5");
  CHECK(y["provenance"]["backend"].as<std::string>() == "nccl-tests");
  CHECK(y["provenance"]["hosts"].size() == 8);
  CHECK(y["provenance"]["hosts"][7].as<std::string>() == "spark-8");
  CHECK(y["allreduce"]["ranks"].as<int>() == 8);
  CHECK(y["allreduce"]["link_bps"].as<double>() == 200e9);
  CHECK_THAT(y["allreduce"]["fit"]["step_latency_s"].as<double>(), WithinRel(2.7e-6, 1e-3));
  CHECK_THAT(y["allreduce"]["fit"]["beta_bps"].as<double>(), WithinRel(196e9, 1e-3));
  CHECK(y["allreduce"]["curve"].size() == 28);
  CHECK(y["allreduce"]["curve"][27]["size_bytes"].as<double>() == 1073741824.0);
  CHECK_FALSE(y["compute"]);
}

TEST_CASE("tpnet calibration --out writes the file atomically and summarises it",
          "[cli][calibration]") {
  const auto out = std::filesystem::temp_directory_path() / "tpnet_cli_calibration.yaml";
  std::filesystem::remove(out);
  const YAML::Node j = json_of(run_tpnet({"calibration",
                                          "--nccl-tests",
                                          kSweep,
                                          "--gemm",
                                          kGemm,
                                          "--counters",
                                          kCounters,
                                          "--requests",
                                          kRequests,
                                          "--prompt-tokens",
                                          "8k",
                                          "--model",
                                          "glm-5.3",
                                          "--tp",
                                          "8",
                                          "--hosts",
                                          "a,b",
                                          "--env",
                                          "NCCL_IB_HCA=rocep1s0f0,roceP2p1s0f0",
                                          "--out",
                                          out.string(),
                                          "--format",
                                          "json"}));
  CHECK(j["out"].as<std::string>() == out.string());
  CHECK(j["hosts"].size() == 2);
  CHECK_THAT(j["allreduce"]["step_latency_s"].as<double>(), WithinRel(2.7e-6, 1e-3));
  CHECK(j["allreduce"]["rms_relative_error_pct"].as<double>() < 1.0);
  CHECK(j["allreduce"]["min_size_bytes"].as<double>() == 8.0);
  CHECK_THAT(j["compute"]["per_prompt_token_s"].as<double>(), WithinRel(0.6e-3, 1e-4));
  CHECK(j["compute"]["gemms"].as<int>() == 14);
  CHECK(j["traffic"]["phase"].as<std::string>() == "prefill");
  CHECK(j["traffic"]["formula_per_token_bytes"].as<double>() == 3376128.0);
  CHECK(finite_number(j["traffic"]["ratio"]));
  const YAML::Node y = YAML::Load(slurp(out));
  CHECK(y["provenance"]["env"]["NCCL_IB_HCA"].as<std::string>() == "rocep1s0f0,roceP2p1s0f0");
  CHECK(y["compute"]["model"].as<std::string>() == "glm-5.3");
  CHECK(y["traffic"]["prompt_tokens"].as<int>() == 8192);
  // No temporary file is left beside it.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(out.parent_path())) {
    files += entry.path().filename().string().find("tpnet_cli_calibration.yaml.tmp") !=
             std::string::npos;
  }
  CHECK(files == 0);
  std::filesystem::remove(out);
}

TEST_CASE("tpnet calibration --gemm reads grouped expert rows and says how experts were timed",
          "[cli][calibration]") {
  const std::string grouped =
      kSource + "/examples/calibration/gemm_glm53_tp8_grouped_synthetic.csv";
  const auto out = std::filesystem::temp_directory_path() / "tpnet_cli_calibration_grouped.yaml";
  std::filesystem::remove(out);
  const auto r = run_tpnet({"calibration", "--gemm", grouped, "--model", "glm-5.3", "--out",
                            out.string(), "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const YAML::Node j = json_of(r);
  // The forward: 12 plain GEMMs and the two grouped ones under uniform routing,
  // 50.925 ms per 4,096-token chunk; the skewed rows replace the uniform ones.
  CHECK(j["compute"]["experts"].as<std::string>() == "grouped");
  CHECK(j["compute"]["gemms"].as<int>() == 16);
  // The summary rounds; the file keeps every digit.
  CHECK_THAT(j["compute"]["forward_s"].as<double>(), WithinRel(0.05092503, 1e-4));
  CHECK_THAT(j["compute"]["per_prompt_token_s"].as<double>(), WithinRel(0.05092503 / 4096, 1e-4));
  CHECK_THAT(j["compute"]["skewed_per_prompt_token_s"].as<double>(),
             WithinRel(0.05672328 / 4096, 1e-4));
  CHECK_THAT(r.err, !ContainsSubstring("separate GEMMs"));
  const YAML::Node y = YAML::Load(slurp(out));
  CHECK(y["compute"]["experts"].as<std::string>() == "grouped");
  CHECK_THAT(y["compute"]["forward_s"].as<double>(), WithinRel(0.05092503, 1e-12));
  CHECK_THAT(y["compute"]["per_prompt_token_s"].as<double>(), WithinRel(0.05092503 / 4096, 1e-12));
  CHECK_THAT(y["compute"]["skewed_per_prompt_token_s"].as<double>(),
             WithinRel(0.05672328 / 4096, 1e-12));
  std::filesystem::remove(out);

  // A file from before grouped timing keeps its figure and is called pessimistic.
  const auto old = run_tpnet({"calibration", "--gemm", kGemm});
  REQUIRE(old.exit_code == 0);
  const YAML::Node o = YAML::Load(old.out);
  CHECK(o["compute"]["experts"].as<std::string>() == "separate");
  CHECK_THAT(o["compute"]["per_prompt_token_s"].as<double>(), WithinRel(0.6e-3, 1e-4));
  CHECK_FALSE(o["compute"]["skewed_per_prompt_token_s"]);
  CHECK_THAT(old.err, ContainsSubstring("times the routed experts as separate GEMMs, one per "
                                        "expert; vLLM and SGLang run each MoE layer's experts as "
                                        "one grouped GEMM, so this compute per token is "
                                        "pessimistic"));

  // A grouped file that breaks the rules: exit 2, one line naming file, line and column.
  const std::string bad =
      write_temp(
          "grouped_bad.csv",
          "model,tp,chunk_tokens,precision,device,compute_capability,peak_tflops,gemm,m,n,k,count,"
          "median_s,tflops,groups,routing\n"
          "glm-5.3,8,4096,fp8,X,9.0,0,attn.o,4096,6144,2048,78,0.0001,1.0,1,uniform\n")
          .string();
  expect_bad_input(run_tpnet({"calibration", "--gemm", bad}),
                   "grouped_bad.csv:2: column routing: is 'uniform', but 'attn.o' is not a routed "
                   "expert's GEMM");
}

TEST_CASE("tpnet calibration bad input exits 2 naming the flag or file", "[cli][calibration]") {
  expect_bad_input(run_tpnet({"calibration"}), "--nccl-tests: give at least one measurement");
  expect_bad_input(run_tpnet({"calibration", "--nccl-tests", kSweep, "--format", "json"}),
                   "--format: needs --out FILE");
  expect_bad_input(run_tpnet({"calibration", "--gemm", kGemm, "--partial"}), "--partial");
  expect_bad_input(run_tpnet({"calibration", "--counters", kCounters}),
                   "--counters: needs --model, --tp and --prompt-tokens");
  expect_bad_input(run_tpnet({"calibration", "--counters", kCounters, "--model", "glm-5.3", "--tp",
                              "8", "--prompt-tokens", "0"}),
                   "--prompt-tokens");
  expect_bad_input(run_tpnet({"calibration", "--gemm", kGemm, "--env", "NOEQUALS"}),
                   "--env: 'NOEQUALS' is not NAME=VALUE");
  expect_bad_input(run_tpnet({"calibration", "--gemm", kGemm, "--out", "/no/such/folder/cal.yaml"}),
                   "--out");
  // A killed run: refused without --partial, read with it (and a warning).
  std::string text = slurp(kSweep);
  text.erase(text.find("# Out of bounds"));
  const auto killed = write_temp("tpnet_cli_calibration_killed.txt", text);
  expect_bad_input(run_tpnet({"calibration", "--nccl-tests", killed.string()}), "--partial");
  const auto partial = run_tpnet({"calibration", "--nccl-tests", killed.string(), "--partial"});
  CHECK(partial.exit_code == 0);
  CHECK_THAT(partial.err, ContainsSubstring("a partial sweep of 28 size(s)"));
  CHECK(YAML::Load(partial.out)["allreduce"]["complete"].as<bool>() == false);
  // doctor reads it the same way.
  const auto doctor = run_tpnet({"doctor", "--nccl-tests", killed.string(), "--partial"});
  CHECK(doctor.exit_code == 0);
  CHECK_THAT(doctor.err, ContainsSubstring("a partial sweep of 28 size(s)"));
  expect_bad_input(run_tpnet({"doctor", "--nccl-tests", killed.string()}), "--partial");
  // A size that is not count x 4 B of float.
  std::string odd = slurp(kSweep);
  const std::string row = "        4096          1024";
  odd.replace(odd.find(row), row.size(), "        4095          1024");
  const auto odd_file = write_temp("tpnet_cli_calibration_odd.txt", odd);
  expect_bad_input(run_tpnet({"calibration", "--nccl-tests", odd_file.string()}),
                   "size: size 4095 B is not count 1024 x 4 B (float)");
}

TEST_CASE("tpnet penalty --calibration: point estimates beside the bounds", "[cli][calibration]") {
  const YAML::Node j = json_of(
      run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--from", "200G", "--to", "100G",
                 "--baseline", kBaseline, "--calibration", kCalibration, "--format", "json"}));
  REQUIRE(j["scenarios"].size() == 6);
  for (const auto& s : j["scenarios"]) {
    for (const char* key :
         {"point_comm_from_s", "point_comm_to_s", "point_extra_ttft_s", "point_ttft_at_to_s",
          "point_compute_s", "point_network_share_pct", "point_ttft_increase_pct"}) {
      INFO(key);
      CHECK(finite_number(s[key]));
    }
    CHECK(s["point_extra_ttft_s"].as<double>() > 0.0);
    CHECK(s["point_network_share_pct"].as<double>() < 100.0);
  }
  // P2, 8,192 tokens: two full chunks; the curve gives about the bound's
  // bytes over 196 Gb/s plus latency, so the point extra is a little above the bound.
  const YAML::Node p2 = j["scenarios"][1];
  CHECK(p2["point_extra_ttft_s"].as<double>() > p2["extra_ttft_bound_s"].as<double>());
  CHECK(p2["point_extra_ttft_s"].as<double>() < 1.1 * p2["extra_ttft_bound_s"].as<double>());
  CHECK_THAT(p2["point_compute_s"].as<double>(), WithinRel(8192 * 0.6e-3, 1e-4));
  CHECK(j["calibration"]["compute_used"].as<bool>());
  CHECK(j["calibration"]["ranks"].as<int>() == 8);
  CHECK(j["calibration"]["notes"].size() == 3);
  CHECK(j["warnings"].size() == 0);
}

TEST_CASE("tpnet penalty --calibration at another TP warns and leaves compute out",
          "[cli][calibration]") {
  const auto r = run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "16", "--prompt", "8k",
                            "--calibration", kCalibration, "--format", "json"});
  const YAML::Node j = json_of(r);
  CHECK_THAT(r.err, ContainsSubstring("ran on 8 ranks, not TP16"));
  CHECK_THAT(r.err, ContainsSubstring("compute section is not used"));
  CHECK(j["calibration"]["compute_used"].as<bool>() == false);
  CHECK(finite_number(j["scenarios"][0]["point_extra_ttft_s"]));
  CHECK_FALSE(j["scenarios"][0]["point_network_share_pct"]);
  // Another link than the sweep's, and another NCCL version.
  const auto other = run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--prompt", "8k",
                                "--from", "100G", "--to", "emulated-100G", "--calibration",
                                kCalibration, "--nccl-version", "2.28.3", "--format", "json"});
  CHECK(other.exit_code == 0);
  CHECK_THAT(other.err, ContainsSubstring("not on 100G"));
  CHECK_THAT(other.err, ContainsSubstring("measured with NCCL 2.21.5, not the 2.28.3 asked"));
}

TEST_CASE("tpnet penalty --calibration table shows point columns", "[cli][calibration]") {
  const auto r = run_tpnet(
      {"penalty", "--model", "glm-5.3", "--tp", "8", "--calibration", kCalibration, "--wide"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("point extra"));
  CHECK_THAT(r.out, ContainsSubstring("point share"));
  CHECK_THAT(unwrapped(r.out), ContainsSubstring("assume no overlap"));
}

TEST_CASE("bad --calibration input: missing file, broken file, --nccl-version alone",
          "[cli][calibration]") {
  expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--calibration",
                              "/no/such/cal.yaml"}),
                   "/no/such/cal.yaml");
  std::string text = slurp(kCalibration);
  text.replace(text.find("tpnet_calibration: 1"), 20, "tpnet_calibration: 7");
  const auto bad = write_temp("tpnet_cli_bad_calibration.yaml", text);
  expect_bad_input(
      run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8", "--calibration", bad.string()}),
      bad.string() + ":3: tpnet_calibration: is '7'");
  expect_bad_input(
      run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--nccl-version", "2.28.3"}),
      "--nccl-version: needs --calibration FILE");
  const auto compute_only = write_temp(
      "tpnet_cli_compute_only.yaml",
      "tpnet_calibration: 1\nprovenance:\n  date: \"2026-11-29\"\ncompute:\n  model: glm-5.3\n"
      "  tp: 8\n  chunk_tokens: 4096\n  precision: nvfp4\n  forward_s: 2.4\n"
      "  per_prompt_token_s: 0.0006\n");
  expect_bad_input(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--calibration",
                              compute_only.string()}),
                   "allreduce: has no allreduce section");
}

TEST_CASE("tpnet decode --calibration: one all-reduce at both links, added per forward",
          "[cli][calibration]") {
  const YAML::Node j = json_of(run_tpnet({"decode", "--model", "glm-5.3", "--tp", "8",
                                          "--calibration", kCalibration, "--format", "json"}));
  for (const char* key :
       {"point_allreduce_from_s", "point_allreduce_to_s", "point_forward_comm_from_s",
        "point_forward_comm_to_s", "point_added_per_forward_s", "point_added_pct_of_floor"}) {
    INFO(key);
    CHECK(finite_number(j[key]));
  }
  // A decode all-reduce is latency-bound: about the measured ~38 us at either link.
  // 12,288 B lies between the measured 8,192 B (38.39 us) and 16,384 B (38.97 us).
  CHECK_THAT(j["point_allreduce_from_s"].as<double>(), WithinRel(38.73e-6, 0.002));
  CHECK(j["point_allreduce_to_s"].as<double>() > j["point_allreduce_from_s"].as<double>());
  CHECK(j["point_added_per_forward_s"].as<double>() > 0.0);
  CHECK(j["calibration"]["compute_used"].as<bool>() == false);
}

TEST_CASE("tpnet compare --calibration: point columns per row in every format",
          "[cli][calibration]") {
  const YAML::Node j =
      json_of(run_tpnet({"compare", "--model", "glm-5.3", "--tp", "8,16", "--prompt", "8k",
                         "--calibration", kCalibration, "--format", "json"}));
  REQUIRE(j["rows"].size() == 2);
  for (const auto& row : j["rows"]) {
    for (const char* key : {"point_comm_from_s", "point_extra_ttft_s", "point_network_share_pct",
                            "point_ttft_increase_pct"}) {
      INFO(key);
      CHECK(finite_number(row[key]));
    }
  }
  // TP16 sends more per node and computes half as much: a larger share.
  CHECK(j["rows"][1]["point_network_share_pct"].as<double>() >
        j["rows"][0]["point_network_share_pct"].as<double>());
  CHECK(j["calibration"]["compute_used"].as<bool>());
  // The TP8 row matches penalty's point estimate for the same prompt.
  const YAML::Node p =
      json_of(run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "8", "--prompt", "8k",
                         "--calibration", kCalibration, "--format", "json"}));
  CHECK_THAT(j["rows"][0]["point_extra_ttft_s"].as<double>(),
             WithinRel(p["scenarios"][0]["point_extra_ttft_s"].as<double>(), 1e-9));
  CHECK_THAT(j["rows"][0]["point_ttft_increase_pct"].as<double>(),
             WithinRel(p["scenarios"][0]["point_ttft_increase_pct"].as<double>(), 1e-9));

  const auto csv = run_tpnet({"compare", "--model", "glm-5.3", "--tp", "8,16", "--prompt", "8k",
                              "--calibration", kCalibration, "--format", "csv"});
  CHECK(csv.exit_code == 0);
  CHECK_THAT(csv.out, ContainsSubstring("extra_ttft_bound_s,point_comm_from_s,point_extra_ttft_s,"
                                        "point_network_share_pct,point_ttft_increase_pct"));
  CHECK_THAT(csv.err, ContainsSubstring("ran on 8 ranks, not TP16"));
  CHECK_THAT(csv.err, ContainsSubstring("divided evenly"));
  const auto table = run_tpnet({"compare", "--model", "glm-5.3", "--tp", "8", "--prompt", "8k",
                                "--calibration", kCalibration});
  CHECK(table.exit_code == 0);
  CHECK_THAT(table.out, ContainsSubstring("point extra"));
}

TEST_CASE("a tpnet-calibrate MPI sweep: fitted, written, and consumed by penalty",
          "[cli][calibration]") {
  // The layout `mpirun -np 4 tpnet-calibrate allreduce --backend mpi` writes.
  std::string sweep =
      "# tpnet-calibrate allreduce backend=mpi date=2026-11-29T15:04:05Z hosts=n1,n2,n3,n4 "
      "ranks=4 nccl=none algo=auto proto=auto dtype=bf16 op=sum\n"
      "# Using devices\n";
  for (int rank = 0; rank < 4; ++rank) {
    sweep += "#  Rank  " + std::to_string(rank) + " Group  0 Pid  100" + std::to_string(rank) +
             " on         n" + std::to_string(rank + 1) + " device  0 [cpu] MPI CPU backend\n";
  }
  sweep +=
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
      "(us)  (GB/s)  (GB/s)\n";
  // time = 30 us + 1.5 x S x 8 / 100 Gb/s.
  for (int step = 0; step < 9; ++step) {
    const double size = 1024.0 * std::pow(4.0, step);  // 1 KiB to 64 MiB
    const double us = 30.0 + 1.5 * size * 8.0 / 100e9 * 1e6;
    const double algbw = size / us / 1e3;
    sweep += fmt_row(size, us, algbw);
  }
  sweep += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 5.0\n";
  const auto file = write_temp("tpnet_cli_mpi_sweep.txt", sweep);
  const auto out = std::filesystem::temp_directory_path() / "tpnet_cli_mpi_calibration.yaml";
  const auto r = run_tpnet({"calibration", "--nccl-tests", file.string(), "--link", "100G", "--out",
                            out.string(), "--format", "json"});
  const YAML::Node j = json_of(r);
  CHECK(j["backend"].as<std::string>() == "mpi");
  CHECK(j["nccl_version"].as<std::string>() == "none");
  CHECK(j["hosts"].size() == 4);
  CHECK(j["allreduce"]["ranks"].as<int>() == 4);
  CHECK_THAT(j["allreduce"]["alpha_s"].as<double>(), WithinRel(30e-6, 1e-2));
  CHECK_THAT(j["allreduce"]["beta_bps"].as<double>(), WithinRel(100e9, 1e-2));
  CHECK(r.err.find("algo=") == std::string::npos);  // no NCCL algorithm to check on MPI
  const auto p =
      run_tpnet({"penalty", "--model", "glm-5.3", "--tp", "4", "--from", "100G", "--to", "50G",
                 "--prompt", "8k", "--calibration", out.string(), "--format", "json"});
  const YAML::Node pj = json_of(p);
  CHECK(finite_number(pj["scenarios"][0]["point_extra_ttft_s"]));
  CHECK(pj["scenarios"][0]["point_extra_ttft_s"].as<double>() > 0.0);
  CHECK_THAT(p.err, ContainsSubstring("MPI backend"));
  std::filesystem::remove(out);
}

TEST_CASE("a poor fit is not written without --force, a non-all-reduce log never, the date unknown",
          "[cli][calibration][nccl]") {
  const std::string logs = kSource + "/tests/data/nccl-tests/";
  // 16 ranks, 8 per node on two hosts: the ring fit misses by ~30% RMS.
  const std::string poor = logs + "h100-a3mega-2node-8gpu-all_reduce.txt";
  expect_bad_input(run_tpnet({"calibration", "--nccl-tests", poor}), "--force");
  const auto forced = run_tpnet({"calibration", "--nccl-tests", poor, "--force"});
  INFO(forced.err);
  REQUIRE(forced.exit_code == 0);
  CHECK_THAT(forced.err, ContainsSubstring("8 ranks per node"));
  const YAML::Node yaml = YAML::Load(forced.out);
  // nccl-tests logs carry no date: not today's.
  CHECK(yaml["provenance"]["date"].as<std::string>() == "unknown");
  CHECK(yaml["provenance"]["nccl_version"].as<std::string>().empty());
  expect_bad_input(run_tpnet({"calibration", "--nccl-tests",
                              logs + "gb10-2spark-all_gather-16G-nccl2.28.9.txt"}),
                   "a calibration fits all_reduce sweeps");
  expect_bad_input(run_tpnet({"calibration", "--nccl-tests", poor, "--collective", "allgathr"}),
                   "--collective");
}

TEST_CASE(
    "tpnet calibration --alltoall fits an all-to-all sweep and refuses another "
    "collective's log naming the file and line",
    "[cli][calibration]") {
  const std::string sweep =
      kSource + "/tests/data/nccl-tests/synthetic-4rank-alltoall-bf16.txt";  // SYNTHETIC
  const auto r = run_tpnet({"calibration", "--alltoall", sweep});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, ContainsSubstring("alltoall:\n"));
  CHECK_THAT(r.out, ContainsSubstring("  ranks: 4\n"));
  expect_bad_input(run_tpnet({"calibration", "--alltoall", kSweep}),
                   "all_reduce_perf_8ranks_synthetic.txt:");
  expect_bad_input(run_tpnet({"calibration", "--alltoall", kSource + "/no-such-sweep.txt"}),
                   "no-such-sweep.txt: no such file");
}

TEST_CASE("a calibration's measured all-to-all prices predict's expert parallelism",
          "[cli][calibration][expert-parallel]") {
  const std::string alltoall =
      kSource + "/tests/data/nccl-tests/synthetic-4rank-alltoall-bf16.txt";  // SYNTHETIC
  const auto dir = std::filesystem::temp_directory_path();
  const auto with_alltoall = dir / "tpnet_cli_alltoall_calibration.yaml";
  const auto without = dir / "tpnet_cli_allreduce_calibration.yaml";
  REQUIRE(run_tpnet({"calibration", "--nccl-tests", kSweep, "--alltoall", alltoall, "--out",
                     with_alltoall.string()})
              .exit_code == 0);
  REQUIRE(run_tpnet({"calibration", "--nccl-tests", kSweep, "--out", without.string()}).exit_code ==
          0);
  const auto predict = [](const std::filesystem::path& calibration, const char* format) {
    return run_tpnet({"predict", "--model", "gpt-oss-120b", "--tp", "1", "--links", "200G",
                      "--fabric", calibration.string(), "--prompt", "4x1k", "--output", "16",
                      "--data-parallel-size", "4", "--enable-expert-parallel", "--format", format});
  };
  const auto measured = predict(with_alltoall, "json");
  const auto allreduce_only = predict(without, "json");
  INFO(measured.err << allreduce_only.err);
  REQUIRE(measured.exit_code == 0);
  REQUIRE(allreduce_only.exit_code == 0);
  const auto first_token = [](const tpnet::test::CliResult& r) {
    return json_of(r)["scenarios"][0]["links"][0]["mean_ttft_s"].as<double>();
  };
  // The synthetic sweep's 25 us a round and 160 Gb/s differ from the
  // all-reduce fit's pricing, so the same run lands elsewhere.
  CHECK(first_token(measured) != first_token(allreduce_only));
  const std::string measured_text = unwrapped(predict(with_alltoall, "table").out);
  CHECK_THAT(measured_text,
             ContainsSubstring("all-to-all measured at 4 ranks from " + with_alltoall.string()));
  CHECK(measured_text.find("the EP group has") == std::string::npos);  // 4 ranks measured
  CHECK_THAT(unwrapped(predict(without, "table").out),
             ContainsSubstring("all-to-all priced on the all-reduce profile"));
  std::filesystem::remove(with_alltoall);
  std::filesystem::remove(without);
}
