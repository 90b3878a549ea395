#include "input_limit.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tpnet/base/error.hpp"
#include "tpnet/io/text_file.hpp"

namespace tpnet::cli {

void apply_input_limit_from_environment() {
  const char* value = std::getenv("TPNET_MAX_INPUT_BYTES");
  if (value == nullptr) return;
  constexpr std::uint64_t kMost = std::uint64_t{1} << 40;
  const std::string_view text(value);
  std::uint64_t bytes = 0;
  const bool digits =
      !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), bytes);
  if (!digits || ec != std::errc() || end != text.data() + text.size() || bytes < 1 ||
      bytes > kMost) {
    throw InputError(fmt::format("'{}' is not an input limit; allowed a whole number of bytes "
                                 "from 1 to {} (default {}, 256 MiB)",
                                 text, kMost, kDefaultMaxInputBytes),
                     InputLocation::for_key("TPNET_MAX_INPUT_BYTES"));
  }
  set_max_input_bytes(bytes);
}

}  // namespace tpnet::cli
