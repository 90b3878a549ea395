// The preflight reports as documents: the keys a CI job reads (passed,
// checks, devices; a cluster's ranks and each node's checks) and the title
// that says the tally.

#include <string>

#include "catch.hpp"
#include "preflight_trees.hpp"
#include "tpnet/usecase/preflight_document.hpp"

using namespace tpnet;
using tpnet::test::judge_tree;
using tpnet::test::kHealthySparkTree;

namespace {

const Field& field(const Record& record, const std::string& key) {
  for (const Field& f : record) {
    if (f.key == key) return f;
  }
  FAIL("no field " << key);
  throw;  // unreachable: FAIL throws
}

}  // namespace

TEST_CASE("one node's preflight document: passed, a row per check and per RDMA device") {
  const PreflightReport report = judge_tree(kHealthySparkTree);
  const Document doc = preflight_document(report, "saved tree");
  CHECK(doc.csv == CsvLayout::sections);
  CHECK_THAT(doc.title, Catch::Matchers::StartsWith("tpnet preflight: spark-1 against "));
  CHECK(field(doc.fields, "passed").flag == !report.gate_failed());
  CHECK(field(doc.fields, "checks").records.size() == report.checks.size());
  const Field& devices = field(doc.fields, "devices");
  REQUIRE(devices.records.size() == report.devices.size());
  REQUIRE_FALSE(devices.records.empty());
  const Field& rate = field(devices.records.front(), "rate_bps");
  REQUIRE(rate.numbers.size() == 1);
  CHECK(rate.numbers.front() == 200e9);
  CHECK(rate.unit.suffix == "Gb/s");
}

TEST_CASE("a cluster's preflight document: every rank, its failed checks, and its own rows") {
  ClusterPreflightReport cluster;
  cluster.nodes = {judge_tree(kHealthySparkTree), judge_tree(kHealthySparkTree)};
  cluster.nodes[1].host = "spark-2";
  const Document doc = cluster_preflight_document(cluster);
  CHECK_THAT(doc.title, Catch::Matchers::StartsWith("tpnet-calibrate preflight: 2 ranks against"));
  CHECK(field(doc.fields, "ranks").number == 2.0);
  const Field& nodes = field(doc.fields, "nodes");
  REQUIRE(nodes.records.size() == 2);
  CHECK(field(nodes.records[1], "host").text == "spark-2");
  CHECK(field(nodes.records[1], "rank").number == 1.0);
  // Each node's checks, one row each with its rank in front.
  CHECK(field(doc.fields, "node_checks").records.size() ==
        cluster.nodes[0].checks.size() + cluster.nodes[1].checks.size());
}
