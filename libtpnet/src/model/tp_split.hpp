#pragma once
// How a model dimension divides over the TP ranks, shared by the GEMM shapes
// and the mixer compute so that both refuse the same layouts the same way.

#include <string>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet::detail {

/// Where a model's bad shape is reported: the model's name and the key.
[[nodiscard]] InputLocation at_model_key(const ModelArch& m, std::string key);

/// `value` / tp, or InputError naming `key` when `value` is not positive or
/// tp does not divide it; `what` names the dimension ("heads") and `use`
/// what needs it ("the prefill GEMM shapes").
[[nodiscard]] long long split_by_tp(const ModelArch& m, long long value, int tp,
                                    const std::string& key, std::string_view what,
                                    std::string_view use);

}  // namespace tpnet::detail
