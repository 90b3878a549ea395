// Model architecture files (models/*.yaml) through parse_model_yaml, then
// the parameter estimate, bytes per token and prefill penalty they feed.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "fuzz_model.hpp"
#include "tpnet/io/model_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  contract(Origin::file, [&] {
    const ModelArch m = parse_model_yaml(text_of(data, size), "fuzz/model.yaml");
    check_model(m);
    analyze_model(m);
  });
  return 0;
}
