// Quantities typed by people (tpnet/base/quantity.hpp, parse_link, breakout
// modes, line codings). The first byte picks the parser ('0' bit rate, '1'
// tokens, '2' prompt, '3' duration, '4' bytes, '5' percent, '6' number,
// '7' link, '8' breakout mode, '9' line coding), the rest is the text. A parsed rate or breakout
// mode must survive a round trip through the formatter the catalogs and reports print it with.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "tpnet/base/quantity.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/fabric/switch_spec.hpp"
#include "tpnet/io/link_presets.hpp"

namespace {

using namespace tpnet;
using namespace tpnet::fuzz;

const InputLocation kWhere = InputLocation::for_key("--fuzz");

/// A formatted value must parse back; any error there is a violation.
template <typename Parse>
auto reparse(const std::string& text, Parse parse) {
  try {
    return parse(text);
  } catch (const std::exception& e) {
    violated("formatted value does not parse back", text + ": " + e.what());
  }
}

void same_within(double a, double b, double rel, std::string_view what) {
  if (std::fabs(a - b) > rel * std::fabs(a)) violated("round trip changed the value", what);
}

void bit_rate(std::string_view text) {
  const BitRate r = parse_bit_rate(text, kWhere);
  positive(r, "bit rate");
  // rate_label prints 6 significant digits.
  const std::string label = rate_label(r);
  const BitRate back =
      reparse(label, [](const std::string& t) { return parse_bit_rate(t, kWhere); });
  same_within(r.bits_per_second(), back.bits_per_second(), 1e-5, "rate_label");
}

void breakout(std::string_view text) {
  const BreakoutMode m = parse_breakout_mode(text, kWhere);
  within(m.count, 1, 64, "breakout count");
  positive(m.speed, "breakout speed");
  const std::string name = m.name();
  const BreakoutMode back =
      reparse(name, [](const std::string& t) { return parse_breakout_mode(t, kWhere); });
  if (back.count != m.count) violated("breakout count changed", name);
  same_within(m.speed.bits_per_second(), back.speed.bits_per_second(), 1e-5, "breakout speed");
  for (const auto& cage : cage_types()) {
    const BitRate cage_rate = m.speed * static_cast<double>(cage.lanes);
    (void)breakout_mode_problem(m, cage.name, cage.lanes, cage_rate);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned which = static_cast<unsigned>(data[0] - '0') % 10;
  const std::string_view text = text_of(data + 1, size - 1);
  contract(Origin::key, [&] {
    switch (which) {
      case 0:
        bit_rate(text);
        break;
      case 1:
        within(static_cast<double>(parse_tokens(text, kWhere)), 1.0, 1099511627776.0, "tokens");
        break;
      case 2: {
        const PromptSpec p = parse_prompt(text, kWhere);
        within(static_cast<double>(p.requests), 1.0, 1e6, "prompt requests");
        within(static_cast<double>(p.tokens_each), 1.0, 1099511627776.0, "prompt tokens");
        positive(static_cast<double>(p.total_tokens()), "prompt total tokens");
        break;
      }
      case 3:
        positive(parse_duration(text, kWhere), "duration");
        break;
      case 4:
        positive(parse_bytes(text, kWhere), "bytes");
        break;
      case 5:
        within(parse_percent(text, kWhere), 0.0, 100.0, "percent");
        break;
      case 6:
        positive(parse_positive_number(text, kWhere, "fuzz"), "positive number");
        break;
      case 7: {
        const Link l = parse_link(text, kWhere);
        positive(l.rate, "link rate");
        if (l.name.empty()) violated("link without a name");
        break;
      }
      case 8:
        breakout(text);
        break;
      default:
        (void)parse_line_coding(text, kWhere);
        break;
    }
  });
  return 0;
}
