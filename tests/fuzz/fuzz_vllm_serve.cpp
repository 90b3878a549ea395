// `vllm serve` command lines through parse_vllm_serve: whatever the text,
// an InputError or settings that name a field with a value of its kind.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.hpp"
#include "tpnet/io/vllm_serve.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpnet;
  using namespace tpnet::fuzz;
  contract(Origin::key, [&] {
    const VllmServeCommand c = parse_vllm_serve(text_of(data, size));
    for (const auto& s : c.settings) {
      if (s.field.empty() || s.vllm_flag.empty()) violated("a setting without a field or flag");
      for (const auto& t : c.settings) {
        if (&s != &t && s.field == t.field) violated("one field set twice");
      }
      if (s.field == "layout.tp" || s.field == "engine.max_num_seqs") {
        if (s.value.empty() || s.value.find_first_not_of("0123456789") != std::string::npos) {
          violated("a count that is not digits");
        }
      }
    }
    for (const auto& i : c.ignored) {
      if (i.vllm_flag.empty() || i.reason.empty()) violated("an ignored flag without its reason");
    }
  });
  return 0;
}
