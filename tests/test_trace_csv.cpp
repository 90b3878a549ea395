// Arrival traces (tpnet/io/trace_csv.hpp, docs/prediction.md): one request
// per row, and bad cells named by file, line and column.

#include "catch.hpp"
#include "tpnet/io/trace_csv.hpp"

using namespace tpnet;

TEST_CASE("a trace CSV gives the requests in its rows, and bad cells are named") {
  const auto requests = parse_trace_csv(
      "# SYNTHETIC\narrival_s,prompt_tokens,output_tokens\n0,1024,16\n0.5,2048,8\n", "t.csv");
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].arrival_s == 0.5);
  CHECK(requests[1].prompt_tokens == 2048);
  CHECK_THROWS_WITH(parse_trace_csv("arrival_s,prompt_tokens,output_tokens\n-1,10,1\n", "t.csv"),
                    ContainsSubstring("t.csv:2: column arrival_s"));
  CHECK_THROWS_WITH(parse_trace_csv("arrival_s,prompt_tokens\n0,10\n", "t.csv"),
                    ContainsSubstring("output_tokens"));
}
