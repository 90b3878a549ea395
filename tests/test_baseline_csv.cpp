#include "catch.hpp"
#include "tpnet/io/baseline_csv.hpp"

using namespace tpnet;

namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_baseline_csv(text, "base.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("the GLM-5.3 study's baseline CSV gives six scenarios with TTFT", "[baseline]") {
  const auto rows =
      load_baseline_csv(std::string(TPNET_SOURCE_DIR) + "/examples/data/glm53_tp8_200g.csv");
  REQUIRE(rows.size() == 6);
  CHECK(rows[0].name == "P1");
  CHECK(rows[0].prompt.tokens_each == 1024);
  CHECK(rows[0].baseline_ttft->value() == 0.96);
  CHECK(rows[3].name == "P4");
  CHECK(rows[3].prompt.requests == 4);
  CHECK(rows[3].prompt.total_tokens() == 32768);
  CHECK(rows[5].baseline_ttft->value() == 45.82);
}

TEST_CASE("baseline CSV errors name the row and the column", "[baseline][bad-input]") {
  CHECK_THAT(error_of("test,requests,prompt_tokens_each\nP1,1,1024\n"),
             ContainsSubstring("base.csv:1: missing column 'ttft_s'"));
  CHECK_THAT(error_of("# comment\ntest,requests,prompt_tokens_each,ttft_s\nP1,1,1024,fast\n"),
             ContainsSubstring("base.csv:3: column ttft_s: 'fast' is not a number"));
  CHECK_THAT(error_of("requests,prompt_tokens_each,ttft_s\n1,1k,0.9\n"),
             ContainsSubstring("base.csv:2: column prompt_tokens_each: '1k' is not a number"));
  CHECK_THAT(error_of("requests,prompt_tokens_each,ttft_s\n1,1024,-0.9\n"),
             ContainsSubstring("column ttft_s: must be a positive TTFT"));
  CHECK_THAT(error_of("requests,prompt_tokens_each,ttft_s\n0,1024,0.9\n"),
             ContainsSubstring("column requests"));
  CHECK_THAT(error_of("requests,prompt_tokens_each,ttft_s\n1,1024\n"),
             ContainsSubstring("base.csv:2: has 2 cells; the header has 3"));
  CHECK_THAT(error_of(""), ContainsSubstring("base.csv: is empty"));
  CHECK_THAT(error_of("requests,prompt_tokens_each,ttft_s\n"), ContainsSubstring("no data rows"));
  CHECK_THAT(error_of("requests,prompt_tokens_each,ttft_s\n1,1024,nan\n"),
             ContainsSubstring("'nan' is not a number"));
}

TEST_CASE("rows without a test column are named by their line", "[baseline]") {
  const auto rows =
      parse_baseline_csv("requests,prompt_tokens_each,ttft_s\r\n2,\"4096\",1.5\r\n", "b.csv");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].name == "row 2");
  CHECK(rows[0].prompt.requests == 2);
}
