#include "catch.hpp"
#include "tpnet/fabric/link.hpp"

using namespace tpnet;

TEST_CASE("PCIe generations use their own line coding", "[link]") {
  PcieSpec gen2;
  gen2.generation = 2;
  gen2.lanes = 8;
  const auto r2 = pcie_link_rates(gen2);
  CHECK(r2.coding == LineCoding::b8b10b);
  CHECK(r2.after_coding.bits_per_second() == 32e9);  // 8 x 5 GT/s x 0.8

  PcieSpec gen4;
  gen4.generation = 4;
  gen4.lanes = 16;
  gen4.protocol_efficiency = 1.0;
  CHECK_THAT(pcie_link_rates(gen4).usable.bits_per_second(), WithinRel(256e9 * 128 / 130, 1e-12));

  PcieSpec forced = gen4;
  forced.coding = LineCoding::b8b10b;
  CHECK(pcie_link_rates(forced).after_coding.bits_per_second() == 256e9 * 0.8);
}

TEST_CASE("PCIe specs outside what PCIe defines are refused", "[link][bad-input]") {
  PcieSpec spec;
  spec.generation = 6;
  CHECK_THROWS_AS(pcie_link_rates(spec), InputError);
  spec.generation = 0;
  CHECK_THROWS_AS(pcie_link_rates(spec), InputError);
  spec = PcieSpec{};
  spec.lanes = 3;
  CHECK_THROWS_AS(pcie_link_rates(spec), InputError);
  spec = PcieSpec{};
  spec.protocol_efficiency = 1.5;
  CHECK_THROWS_AS(pcie_link_rates(spec), InputError);
  CHECK_THROWS_AS(parse_line_coding("64b/66b", InputLocation::for_key("--coding")), InputError);
}
