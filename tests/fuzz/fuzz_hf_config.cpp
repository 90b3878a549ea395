// Hugging Face config.json files through parse_hf_config, then the
// parameter estimate, bytes per token and prefill penalty they feed.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "fuzz_model.hpp"
#include "tpnet/io/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  contract(Origin::file, [&] {
    const ModelArch m = parse_hf_config(text_of(data, size), "fuzz/config.json");
    check_model(m);
    analyze_model(m);
  });
  return 0;
}
