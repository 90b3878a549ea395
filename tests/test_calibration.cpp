// tpnet/measured/calibration.hpp: the traffic a counter capture measured per
// prompt token against the formula, and the nccl-tests additions a
// tpnet-calibrate sweep brings (provenance, --partial, counts). The curve's
// pricing, the point estimates, calibration.yaml and the gemm CSV have test
// files of their own names.

#include <string>
#include <vector>

#include "calibration_fixtures.hpp"
#include "catch.hpp"
#include "tpnet/io/counters_csv.hpp"
#include "tpnet/io/model_catalog.hpp"
#include "tpnet/io/nccl_tests.hpp"
#include "tpnet/measured/calibration.hpp"

using namespace tpnet;
using tpnet::test::replaced;

namespace {

const std::string kSweepHead =
    "# tpnet-calibrate allreduce backend=mpi date=2026-11-29T15:04:05Z hosts=h1,h2 ranks=2 "
    "nccl=none algo=Ring proto=Simple dtype=bf16 op=sum\n"
    "#  Rank  0 Group  0 Pid 1234 on h1 device  0 [0x01] CPU\n"
    "#  Rank  1 Group  0 Pid 1235 on h2 device  0 [0x01] CPU\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
    "time   algbw   busbw #wrong\n"
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            "
    "(us)  (GB/s)  (GB/s)\n";
const std::string kSweepRows =
    "        1024           512  bfloat16     sum      -1    20.00    0.05    0.05       0    "
    "20.10    0.05    0.05       0\n"
    "     1048576        524288  bfloat16     sum      -1    120.0    8.74    8.74       0    "
    "121.0    8.67    8.67       0\n";
const std::string kSweepFoot = "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 4.4\n";

std::string sweep_error_of(const std::string& text, bool partial = false) {
  try {
    NcclTestsReadOptions options;
    options.allow_truncated = partial;
    (void)parse_nccl_tests(text, "ar.txt", options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a tpnet-calibrate sweep: provenance line, hosts from the Rank lines", "[nccl-tests]") {
  const AllReduceSweep s = parse_nccl_tests(kSweepHead + kSweepRows + kSweepFoot, "ar.txt");
  CHECK(s.ranks == 2);
  CHECK(s.hosts == std::vector<std::string>{"h1", "h2"});
  CHECK(s.provenance.at("backend") == "mpi");
  CHECK(s.provenance.at("date") == "2026-11-29T15:04:05Z");
  CHECK(s.provenance.at("hosts") == "h1,h2");
  CHECK(s.provenance.at("algo") == "Ring");
  CHECK(s.provenance.at("dtype") == "bf16");
  CHECK(s.nccl_version.empty());  // nccl=none: the MPI backend
  CHECK(s.complete);
  const AllReduceSweep nccl = parse_nccl_tests(
      replaced(kSweepHead, "nccl=none", "nccl=2.28.3") + kSweepRows + kSweepFoot, "ar.txt");
  CHECK(nccl.nccl_version == "2.28.3");
}

TEST_CASE("a killed sweep read with allow_truncated: no footer, a cut-off last row",
          "[nccl-tests]") {
  const std::string killed = kSweepHead + kSweepRows + "    4194304     2097152  bfloat16  sum";
  CHECK_THAT(sweep_error_of(killed), ContainsSubstring("ar.txt:8: has 4 cells"));
  CHECK_THAT(sweep_error_of(kSweepHead + kSweepRows),
             ContainsSubstring("ends without the '# Avg bus bandwidth' footer"));
  NcclTestsReadOptions options;
  options.allow_truncated = true;
  const AllReduceSweep s = parse_nccl_tests(killed, "ar.txt", options);
  CHECK_FALSE(s.complete);
  CHECK(s.samples.size() == 2);
  REQUIRE(s.notes.size() == 2);
  CHECK_THAT(s.notes[0], ContainsSubstring("ar.txt:8: has 4 cells"));
  CHECK_THAT(s.notes[1], ContainsSubstring("a partial sweep of 2 size(s), up to 1048576 B"));
  // A cut-off row that is not the last one is still an error.
  CHECK_THAT(
      sweep_error_of(kSweepHead + "    4194304     2097152  bfloat16  sum\n" + kSweepRows, true),
      ContainsSubstring("ar.txt:6: has 4 cells"));
}

TEST_CASE("a size that is not count x the element size is refused", "[nccl-tests]") {
  CHECK_THAT(
      sweep_error_of(kSweepHead + replaced(kSweepRows, "1024           512", "1023           512") +
                     kSweepFoot),
      ContainsSubstring("ar.txt:6: size: size 1023 B is not count 512 x 2 B (bfloat16)"));
  CHECK_THAT(
      sweep_error_of(kSweepHead + replaced(kSweepRows, "1024           512", "1023           512") +
                     kSweepFoot),
      ContainsSubstring("not a multiple of 2 B"));
  CHECK_THAT(
      sweep_error_of(kSweepHead + replaced(kSweepRows, "1024           512", "1024           256") +
                     kSweepFoot),
      ContainsSubstring("is not count 256 x 2 B"));
}

TEST_CASE("measured traffic per prompt token against the formula", "[calibration]") {
  const ModelArch model = resolve_model("glm-5.3");
  EngineConfig engine;
  engine.tensor_parallel_size = 8;
  // Two devices, 1 s apart, each 14.5 GB in 4-byte units: 29 GB over 8,192 tokens.
  const std::string csv =
      "time_s,device,port,port_xmit_data,port_rcv_data\n"
      "0.000000,rocep1s0f0,1,0,0\n"
      "0.000000,roceP2p1s0f0,1,0,0\n"
      "1.000000,rocep1s0f0,1,3625000000,3625000000\n"
      "1.000000,roceP2p1s0f0,1,3625000000,3625000000\n";
  const CounterSeries series = parse_counters_csv(csv, "counters.csv");
  const TrafficCalibration t = measure_traffic(series, nullptr, 8192, model, engine, "c.csv");
  CHECK(t.phase == "all");
  CHECK(t.devices == 2);
  CHECK_THAT(t.xmit_bytes.count(), WithinRel(29e9, 1e-12));
  CHECK_THAT(t.measured_per_token.count(), WithinRel(29e9 / 8192, 1e-12));
  CHECK(t.formula_per_token.count() == 3376128.0);
  CHECK_THAT(t.ratio, WithinRel(29e9 / 8192 / 3376128.0, 1e-12));
  // Request timings: only the prefill half of the second counts.
  const std::vector<RequestTiming> requests{{"r1", Seconds(0.0), Seconds(0.5), Seconds(1.0)}};
  const TrafficCalibration p = measure_traffic(series, &requests, 8192, model, engine, "c.csv");
  CHECK(p.phase == "prefill");
  CHECK_THAT(p.xmit_bytes.count(), WithinRel(14.5e9, 1e-12));
  CHECK_THROWS_AS(measure_traffic(series, nullptr, 0, model, engine, "c.csv"), InputError);
}
