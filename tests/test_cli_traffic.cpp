// tpnet traffic end to end: JSON keys with units, every format, the SVG file,
// the phase split, and the bad-input contract.

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "cli_checks.hpp"
#include "cli_runner.hpp"

using tpnet::test::CliResult;
using tpnet::test::expect_bad_input;
using tpnet::test::json_of;
using tpnet::test::run_tpnet;
using tpnet::test::write_temp;

namespace {

const std::string kSynthetic =
    std::string(TPNET_SOURCE_DIR) + "/examples/traffic/counters_synthetic.csv";
const std::string kRequests =
    std::string(TPNET_SOURCE_DIR) + "/examples/traffic/requests_synthetic.csv";

}  // namespace

TEST_CASE("tpnet traffic reports peak, mean and peak-to-mean per window in bits per second",
          "[cli][traffic]") {
  const YAML::Node j = json_of(run_tpnet(
      {"traffic", "--samples", kSynthetic, "--windows", "1ms,10ms,1s", "--format", "json"}));
  CHECK(j["reads"].as<int>() == 602);
  REQUIRE(j["devices"].size() == 2);
  CHECK_THAT(j["span_s"].as<double>(), WithinRel(0.3, 1e-9));
  REQUIRE(j["windows"].size() == 6);
  const YAML::Node fine = j["windows"][0];
  CHECK(fine["window_s"].as<double>() == 0.001);
  CHECK(fine["direction"].as<std::string>() == "transmit");
  CHECK(fine["windows"].as<int>() == 300);
  CHECK_THAT(fine["peak_bps"].as<double>(), WithinRel(200e9, 1e-3));
  CHECK_THAT(fine["bytes"].as<double>(), WithinRel(j["xmit_bytes"].as<double>(), 1e-9));
  const YAML::Node coarse = j["windows"][4];
  CHECK(coarse["window_s"].as<double>() == 1.0);
  CHECK_THAT(coarse["peak_to_mean"].as<double>(), WithinRel(1.0, 1e-9));
  CHECK_THAT(fine["peak_to_mean"].as<double>(),
             WithinRel(fine["peak_bps"].as<double>() / fine["mean_bps"].as<double>(), 1e-9));
  CHECK(j["windows"][2]["peak_bps"].as<double>() < fine["peak_bps"].as<double>());
}

TEST_CASE("tpnet traffic renders table, csv and markdown", "[cli][traffic]") {
  const CliResult table = run_tpnet({"traffic", "--samples", kSynthetic});
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, ContainsSubstring("rates by averaging window"));
  CHECK_THAT(table.out, ContainsSubstring("200.00"));
  for (const char* format : {"csv", "markdown"}) {
    const CliResult r = run_tpnet({"traffic", "--samples", kSynthetic, "--format", format});
    INFO(format << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, ContainsSubstring("peak"));
  }
}

TEST_CASE("tpnet traffic --requests splits bytes into prefill and decode", "[cli][traffic]") {
  const YAML::Node j = json_of(run_tpnet({"traffic", "--samples", kSynthetic, "--requests",
                                          kRequests, "--windows", "1ms", "--format", "json"}));
  CHECK(j["requests"].as<int>() == 1);
  REQUIRE(j["phases"].size() == 6);
  CHECK(j["phases"][0]["phase"].as<std::string>() == "prefill");
  CHECK(j["phases"][2]["phase"].as<std::string>() == "decode");
  const auto prefill = j["phases"][0]["bytes"].as<double>();
  const auto decode = j["phases"][2]["bytes"].as<double>();
  const auto other = j["phases"][4]["bytes"].as<double>();
  CHECK_THAT(prefill + decode + other, WithinRel(j["xmit_bytes"].as<double>(), 1e-9));
  CHECK_THAT(prefill, WithinRel(20 * 88.1e6, 1e-3));
  CHECK(j["phases"][0]["peak_bps"].as<double>() > 10 * j["phases"][2]["peak_bps"].as<double>());
}

TEST_CASE("tpnet traffic --svg writes a plot of the finest and coarsest windows",
          "[cli][traffic]") {
  const auto path = std::filesystem::temp_directory_path() / "tpnet_traffic_test.svg";
  std::filesystem::remove(path);
  const CliResult r = run_tpnet({"traffic", "--samples", kSynthetic, "--svg", path.string()});
  REQUIRE(r.exit_code == 0);
  std::ifstream in(path);
  std::stringstream svg;
  svg << in.rdbuf();
  CHECK_THAT(svg.str(), ContainsSubstring("<svg"));
  CHECK_THAT(svg.str(), ContainsSubstring("1 ms windows"));
  CHECK_THAT(svg.str(), ContainsSubstring("1 s windows"));
  CHECK_THAT(svg.str(), ContainsSubstring("</svg>"));

  // The title is the samples path, escaped for XML.
  std::ifstream synthetic(kSynthetic);
  std::stringstream copy;
  copy << synthetic.rdbuf();
  const auto odd = write_temp("tpnet_traffic_a&b<c>.csv", copy.str());
  REQUIRE(run_tpnet({"traffic", "--samples", odd.string(), "--svg", path.string()}).exit_code == 0);
  std::ifstream again(path);
  std::stringstream escaped;
  escaped << again.rdbuf();
  CHECK_THAT(escaped.str(), ContainsSubstring("tpnet_traffic_a&amp;b&lt;c&gt;.csv"));
}

TEST_CASE("tpnet traffic warns about counter resets on stderr and in JSON", "[cli][traffic]") {
  const auto file = write_temp("tpnet_traffic_reset.csv",
                               "time_s,device,port,port_xmit_data,port_rcv_data\n"
                               "0,d,1,100,100\n0.001,d,1,50,200\n0.002,d,1,60,300\n");
  const CliResult r =
      run_tpnet({"traffic", "--samples", file.string(), "--windows", "1ms", "--format", "json"});
  const YAML::Node j = json_of(r);
  CHECK(j["xmit_bytes"].as<double>() == 240.0);
  REQUIRE(j["warnings"].size() == 1);
  CHECK_THAT(j["warnings"][0].as<std::string>(), ContainsSubstring("treated as a reset"));
}

TEST_CASE("tpnet traffic bad input exits 2 naming the file, line or flag",
          "[cli][traffic][bad-input]") {
  const auto bad = write_temp("tpnet_traffic_bad.csv",
                              "time_s,device,port,port_xmit_data,port_rcv_data\n"
                              "0,d,1,100,100\n0.001,d,1,lots,200\n");
  expect_bad_input(run_tpnet({"traffic", "--samples", bad.string()}),
                   "tpnet_traffic_bad.csv:3: column port_xmit_data: 'lots' is not a counter");
  const auto empty = write_temp("tpnet_traffic_empty.csv", "");
  expect_bad_input(run_tpnet({"traffic", "--samples", empty.string()}), "is empty");
  expect_bad_input(run_tpnet({"traffic", "--samples", "/nonexistent/counters.csv"}),
                   "/nonexistent/counters.csv");
  expect_bad_input(run_tpnet({"traffic", "--samples", kSynthetic, "--windows", "1ms,fast"}),
                   "--windows");
  expect_bad_input(run_tpnet({"traffic", "--samples", kSynthetic, "--windows", "1ns"}),
                   "100 million");
  const auto requests =
      write_temp("tpnet_traffic_requests.csv", "request_id,start_s,first_token_s,end_s\na,2,1,3\n");
  expect_bad_input(run_tpnet({"traffic", "--samples", kSynthetic, "--requests", requests.string()}),
                   "tpnet_traffic_requests.csv:2: column first_token_s");
  expect_bad_input(run_tpnet({"traffic", "--samples", kSynthetic, "--svg", "/nonexistent/x.svg"}),
                   "--svg");
}

TEST_CASE("tpnet traffic --series gives every window's rate in JSON", "[cli][traffic]") {
  const YAML::Node j = json_of(run_tpnet({"traffic", "--samples", kSynthetic, "--windows",
                                          "10ms,100ms", "--series", "--format", "json"}));
  REQUIRE(j["series"].size() == 30 + 3);
  CHECK(j["series"][0]["window_s"].as<double>() == 0.01);
  CHECK_THAT(j["series"][1]["start_s"].as<double>(), WithinRel(1000.01, 1e-12));
  double bytes = 0.0;
  for (std::size_t k = 0; k < 30; ++k) bytes += j["series"][k]["xmit_bps"].as<double>() * 0.01 / 8;
  CHECK_THAT(bytes, WithinRel(j["xmit_bytes"].as<double>(), 1e-9));
  CHECK(j["series"][32]["window_s"].as<double>() == 0.1);
  // Without the flag there is no series.
  const YAML::Node plain =
      json_of(run_tpnet({"traffic", "--samples", kSynthetic, "--format", "json"}));
  CHECK_FALSE(plain["series"]);
}
