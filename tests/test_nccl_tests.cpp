// nccl-tests all_reduce_perf import (text variants and -J JSON, every bad
// input named by file and line). The alpha-beta fit and the bus bandwidth
// classification are tested in test_allreduce_fit.cpp.

#include <cmath>
#include <string>

#include "catch.hpp"
#include "tpnet/io/nccl_tests.hpp"

using namespace tpnet;

namespace {

const std::string kHead =
    "# nccl-tests version 2.13.11 nccl-headers=22105 nccl-library=22105\n"
    "# Using devices\n"
    "#  Rank  0 Group  0 Pid   4100 on    spark-1 device  0 [000f:01:00] NVIDIA GB10\n"
    "#  Rank  1 Group  0 Pid   4101 on    spark-2 device  0 [000f:01:00] NVIDIA GB10\n"
    "#\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
    "(us)  (GB/s)  (GB/s)       \n";
const std::string kFoot = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 12.3 \n#\n";

std::string row(const std::string& cells) { return cells + "\n"; }

const std::string kRows =
    row("        1024           256     float     sum      -1    20.00    0.05    0.05       0    "
        "20.10    0.05    0.05       0") +
    row("     1048576        262144     float     sum      -1    120.0    8.74    8.74       0    "
        "121.0    8.67    8.67       0");

std::string error_of(const std::string& text) {
  try {
    (void)parse_nccl_tests(text, "ar.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("all_reduce_perf text: sizes, times, bandwidths, ranks and version", "[nccl-tests]") {
  const AllReduceSweep s = parse_nccl_tests(kHead + kRows + kFoot, "ar.txt");
  CHECK(s.ranks == 2);
  CHECK(s.nccl_version == "2.21.5");
  REQUIRE(s.samples.size() == 2);
  CHECK(s.samples[0].size.count() == 1024.0);
  CHECK(s.samples[0].count == 256);
  CHECK(s.samples[0].type == "float");
  CHECK_THAT(s.samples[1].out_of_place.time.value(), WithinRel(120e-6, 1e-12));
  CHECK_THAT(s.samples[1].out_of_place.algbw.bits_per_second(), WithinRel(8.74 * 8e9, 1e-12));
  CHECK_THAT(s.samples[1].out_of_place.busbw.bits_per_second(), WithinRel(8.74 * 8e9, 1e-12));
  REQUIRE(s.samples[1].in_place);
  CHECK_THAT(s.samples[1].in_place->time.value(), WithinRel(121e-6, 1e-12));
  CHECK(s.samples[1].out_of_place.wrong == 0.0);
  CHECK(s.samples[1].source.line == 9);
}

TEST_CASE("all_reduce_perf text: older columns without redop and root, error for #wrong",
          "[nccl-tests]") {
  const std::string text =
      "# NCCL version 2.7.8+cuda11.0\n"
      "#  Rank  0 Pid 1 on a device 0 [0x01] V100\n"
      "#  Rank  1 Pid 2 on b device 0 [0x01] V100\n"
      "#  Rank  2 Pid 3 on c device 0 [0x01] V100\n"
      "#                                                 out-of-place                       "
      "in-place\n"
      "#       size         count    type     time   algbw   busbw  error     time   algbw   "
      "busbw  error\n"
      "host-a: NCCL INFO Channel 00 : 0 1\n"
      "           8             2   float    30.00    0.00    0.00  0e+00    30.00    0.00    "
      "0.00  0e+00\n"
      "     1048576        262144   float   100.00   10.49   13.98  0e+00   100.00   10.49   "
      "13.98  0e+00\n" +
      kFoot;
  const AllReduceSweep s = parse_nccl_tests(text, "old.txt");
  CHECK(s.ranks == 3);
  CHECK(s.nccl_version == "2.7.8");  // less its CUDA suffix
  REQUIRE(s.samples.size() == 2);
  CHECK(s.samples[1].size.count() == 1048576.0);
  CHECK_THAT(s.samples[1].out_of_place.busbw.bits_per_second(), WithinRel(13.98 * 8e9, 1e-12));
  CHECK(s.samples[1].out_of_place.wrong == 0.0);
}

TEST_CASE("all_reduce_perf text: N/A for #wrong means unchecked", "[nccl-tests]") {
  const std::string text =
      kHead +
      row("        1024           256     float     sum      -1    20.00    0.05    0.05    N/A    "
          "20.10    0.05    0.05    N/A") +
      kFoot;
  const AllReduceSweep s = parse_nccl_tests(text, "ar.txt");
  CHECK_FALSE(s.samples[0].out_of_place.wrong.has_value());
}

TEST_CASE("all_reduce_perf text: bad inputs name the file and line", "[nccl-tests]") {
  CHECK_THAT(error_of(""), ContainsSubstring("ar.txt: is empty"));
  CHECK_THAT(error_of("# nothing here\n"), ContainsSubstring("no '# size count type"));
  CHECK_THAT(error_of(kHead + kFoot), ContainsSubstring("ar.txt:6: has a header but no data rows"));
  CHECK_THAT(error_of(kRows + kHead + kFoot), ContainsSubstring("ar.txt:1: is a data row before"));
  // Truncated: a row cut off, and a log without its footer.
  CHECK_THAT(error_of(kHead + row("        1024           256     float     sum      -1    20.00") +
                      kFoot),
             ContainsSubstring("ar.txt:8: has 6 cells"));
  CHECK_THAT(error_of(kHead +
                      row("        1024           256     float     sum      -1    20.00    "
                          "0.05    0.05       0    20.10") +
                      kFoot),
             ContainsSubstring("in-place columns are cut off"));
  CHECK_THAT(error_of(kHead + kRows), ContainsSubstring("ar.txt:10: ends without the '# Avg bus"));
  // Non-numeric cells, nothing but size-0 rows, a failed correctness check.
  CHECK_THAT(
      error_of(kHead +
               row("        1024           256     float     sum      -1    2x.00    0.05    "
                   "0.05       0    20.10    0.05    0.05       0") +
               kFoot),
      ContainsSubstring("ar.txt:8: time: column time is '2x.00', not a number"));
  CHECK_THAT(
      error_of(kHead +
               row("           0             0     float     sum      -1    20.00    0.00    "
                   "0.00       0    20.10    0.00    0.00       0") +
               kFoot),
      ContainsSubstring("has only rows of size 0"));
  CHECK_THAT(
      error_of(kHead +
               row("        1024           256     float     sum      -1    20.00    0.05    "
                   "0.05       3    20.10    0.05    0.05       0") +
               kFoot),
      ContainsSubstring("ar.txt:8: out-of-place #wrong is 3"));
  CHECK_THAT(
      error_of(kHead +
               row("        1024           256     float     sum      -1    20.00    0.05    "
                   "0.05       0    20.10    0.05    0.05   1e+00") +
               kFoot),
      ContainsSubstring("in-place #wrong is 1"));
  CHECK_THAT(
      error_of(kHead +
               row("        1024           256     float     sum      -1     0.00    0.05    "
                   "0.05       0    20.10    0.05    0.05       0") +
               kFoot),
      ContainsSubstring("time must be positive"));
}

namespace {

const std::string kJson =
    R"({"version":1,"start_time":"2026-08-31 10:00:00","args":["all_reduce_perf"],
"env":[],"nccl_version":22105,
"config":{"nthreads":1,"ngpus":1,"minimum_bytes":1024,"maximum_bytes":1048576,"step_factor":2,
"devices":[{"rank":0,"hostname":"spark-1"},{"rank":1,"hostname":"spark-2"},{"rank":2},{"rank":3}]},
"results":[
{"size":1024,"count":256,"type":"float","redop":"sum","root":"    -1",
 "out_of_place":{"time":20.000000,"alg_bw":0.051200,"bus_bw":0.076800,"nwrong":0.000000},
 "in_place":{"time":20.100000,"alg_bw":0.050900,"bus_bw":0.076400,"nwrong":0.000000},
 "actual_iterations":20,"experiment_name":""},
{"size":1048576,"count":262144,"type":"float","redop":"sum","root":"    -1",
 "out_of_place":{"time":120.000000,"alg_bw":8.738133,"bus_bw":13.107200,"nwrong":null},
 "in_place":null,"actual_iterations":20,"experiment_name":""}],
"out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidth":{"bandwidth":6.5,"okay":"unchecked"},
"errors":[],"end_time":"2026-08-31 10:00:05"}
)";

std::string json_error_of(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return error_of(text);
}

}  // namespace

TEST_CASE("all_reduce_perf -J JSON: results, devices and version", "[nccl-tests]") {
  const AllReduceSweep s = parse_nccl_tests(kJson, "ar.json");
  CHECK(s.ranks == 4);
  CHECK(s.nccl_version == "2.21.5");
  REQUIRE(s.samples.size() == 2);
  CHECK(s.samples[0].size.count() == 1024.0);
  CHECK_THAT(s.samples[1].out_of_place.busbw.bits_per_second(), WithinRel(13.1072 * 8e9, 1e-12));
  CHECK_FALSE(s.samples[1].out_of_place.wrong.has_value());
  CHECK_FALSE(s.samples[1].in_place.has_value());
  CHECK(s.samples[0].in_place.has_value());
  CHECK(s.samples[1].source.line == 10);
}

TEST_CASE("all_reduce_perf -J JSON: bad inputs name the file, line and key", "[nccl-tests]") {
  CHECK_THAT(json_error_of(kJson, "\"results\":[", "\"resultz\":["),
             ContainsSubstring("results: has no results list"));
  CHECK_THAT(json_error_of(kJson, "\"size\":1024,", "\"size\":0,"),
             ContainsSubstring("ar.txt:6: size: is 0"));
  CHECK_THAT(json_error_of(kJson, "\"time\":20.000000", "\"time\":\"nan\""),
             ContainsSubstring("ar.txt:7: time: is 'nan', not a number"));
  CHECK_THAT(json_error_of(kJson, "\"nwrong\":0.000000}", "\"nwrong\":2.000000}"),
             ContainsSubstring("out_of_place #wrong is 2"));
  CHECK_THAT(json_error_of(kJson, "\"end_time\":\"2026-08-31 10:00:05\"}", "\"end_time\":"),
             ContainsSubstring("ar.txt:15: is not valid JSON"));
  CHECK_THAT(error_of("{\"results\":[]}"), ContainsSubstring("is an empty list"));
}

TEST_CASE(
    "the reader takes NCCL's transport from its INFO lines and refuses contradicting "
    "bandwidth columns",
    "[nccl-tests]") {
  const std::string info = "host:1:1 [0] NCCL INFO Using network Socket\n";
  CHECK(parse_nccl_tests(kHead + info + kRows + kFoot, "ar.txt").network == "Socket");
  CHECK(parse_nccl_tests(kHead + kRows + kFoot, "ar.txt").network.empty());
  // algbw 8.74 GB/s is 1048576 B / 120 us; 80.00 is not.
  std::string algbw = kRows;
  algbw.replace(algbw.find("8.74    8.74"), 12, "80.00   80.00");
  CHECK_THAT(error_of(kHead + algbw + kFoot),
             ContainsSubstring("ar.txt:9: out-of-place algbw 80.00 GB/s is not size / time"));
  // busbw must be algbw x 2(n-1)/n = algbw at 2 ranks.
  std::string busbw = kRows;
  busbw.replace(busbw.find("8.74    8.74"), 12, "8.74   17.48");
  CHECK_THAT(error_of(kHead + busbw + kFoot),
             ContainsSubstring("ar.txt:9: out-of-place busbw 17.48 GB/s is not size / time x 1"));
}
