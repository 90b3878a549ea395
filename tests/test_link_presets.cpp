// Links by name (tpnet/io/link_presets.hpp): the presets, any bit rate as
// text, and a rate spelled another way finding its preset.

#include <string>

#include "catch.hpp"
#include "tpnet/fabric/link.hpp"
#include "tpnet/io/link_presets.hpp"

using namespace tpnet;

TEST_CASE("link presets and rates parse and unknown names say what is allowed", "[link]") {
  const auto flag = InputLocation::for_key("--to");
  CHECK(parse_link("200G", flag).rate.bits_per_second() == 200e9);
  CHECK(parse_link("100G", flag).rate.bits_per_second() == 100e9);
  CHECK(parse_link("emulated-100G", flag).name == "emulated-100G");
  CHECK(parse_link("109.07G", flag).rate.bits_per_second() == 109.07e9);
  CHECK(parse_link("25GB/s", flag).rate.bits_per_second() == 200e9);
  try {
    (void)parse_link("200Q", flag);
    FAIL("accepted 200Q");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("--to"));
    CHECK_THAT(std::string(e.what()), ContainsSubstring("emulated-100G"));
  }
  CHECK_THROWS_AS(parse_link("0G", flag), InputError);
  CHECK_THROWS_AS(parse_link("-200G", flag), InputError);
}

TEST_CASE("a rate equal to a preset's is that preset, whatever its spelling", "[link]") {
  const auto flag = InputLocation::for_key("--to");
  REQUIRE(link_presets().size() == 3);
  CHECK(link_presets()[0].name == "200G");
  CHECK(link_presets()[1].name == "100G");
  // One PCIe Gen5 x4 half as models/nodes/dgx-spark.yaml measures it: 109 Gb/s.
  CHECK(link_presets()[2].name == "emulated-100G");
  CHECK(link_presets()[2].gigabits_per_second == 109.0);
  CHECK(parse_link("emulated-100G", flag).rate.bits_per_second() == 109e9);
  // 200Gb/s and 25 GB/s are 200G; 109G is the emulated link's rate.
  CHECK(parse_link("200Gb/s", flag).preset == "200G");
  CHECK(parse_link("25GB/s", flag).preset == "200G");
  CHECK(parse_link("109G", flag).preset == "emulated-100G");
  CHECK(parse_link("200Gb/s", flag).name == "200Gb/s");  // named as given
  // A rate no preset has keeps none: it gets a nominal profile.
  CHECK(parse_link("150G", flag).preset.empty());
  CHECK(parse_link("109.07G", flag).preset.empty());
}
