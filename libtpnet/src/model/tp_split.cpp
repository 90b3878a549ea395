#include "tp_split.hpp"

#include <fmt/format.h>

#include <utility>

namespace tpnet::detail {

InputLocation at_model_key(const ModelArch& m, std::string key) {
  return InputLocation::in_file(m.name, 0, std::move(key));
}

long long split_by_tp(const ModelArch& m, long long value, int tp, const std::string& key,
                      std::string_view what, std::string_view use) {
  if (value <= 0) {
    throw InputError(fmt::format("{} is {}; {} need a positive {}", key, value, use, what),
                     at_model_key(m, key));
  }
  if (value % tp != 0) {
    throw InputError(fmt::format("{} {} do not split evenly over TP {}; vLLM needs them to be a "
                                 "multiple of the TP size",
                                 value, what, tp),
                     at_model_key(m, key));
  }
  return value / tp;
}

}  // namespace tpnet::detail
