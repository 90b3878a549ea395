// Workloads by name or file (tpnet/io/workload_yaml.hpp): a preset name, or
// a YAML file of prompts whose errors name file, line and key.

#include <string>

#include "catch.hpp"
#include "tpnet/io/workload_yaml.hpp"

using namespace tpnet;

TEST_CASE("workloads come as presets or YAML files", "[plan]") {
  CHECK(resolve_workload("chat").prompts.front().prompt.tokens_each == 1024);
  CHECK(resolve_workload("long-docs").prompts.size() == 2);
  const Workload w = parse_workload_yaml("name: mine\nprompts: [2k, 4x16k]\n", "w.yaml");
  CHECK(w.prompts[1].prompt.requests == 4);
  try {
    (void)parse_workload_yaml("name: mine\nprompts: [2k, zero]\n", "w.yaml");
    FAIL("accepted zero");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("w.yaml:2: prompts:"));
  }
  CHECK_THROWS_AS(parse_workload_yaml("name: mine\n", "w.yaml"), InputError);
  CHECK_THROWS_AS(parse_workload_yaml("name: mine\nprompts: [1k]\nextra: 1\n", "w.yaml"),
                  InputError);
}
