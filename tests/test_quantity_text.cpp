// Quantities in prose (base/quantity_text.hpp): the one writer the report's
// words and the charts share.

#include <cmath>
#include <limits>

#include "catch.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/base/quantity_text.hpp"

using namespace tpnet;

TEST_CASE("format_quantity picks the SI prefix the tables print", "[quantity][chart]") {
  CHECK(format_quantity(0.000144, "s") == "144 us");
  CHECK(format_quantity(0.0381, "s") == "38.1 ms");
  CHECK(format_quantity(8.8503, "s", 3) == "8.85 s");
  CHECK(format_quantity(3.6e6, "B") == "3.6 MB");
  CHECK(format_quantity(108.9e9, "B") == "108.9 GB");
  CHECK(format_quantity(157.8e9, "b/s") == "157.8 Gb/s");
  CHECK(format_quantity(12.34, "%") == "12.34%");
  CHECK(format_quantity(64000, "") == "64k");
  CHECK(format_quantity(0.0, "s") == "0 s");
  CHECK(format_quantity(-1.5, "s") == "-1.5 s");
}

TEST_CASE("seconds print to three digits and an increase carries its sign", "[quantity]") {
  CHECK(format_seconds(4.4321) == "4.43 s");
  CHECK(format_seconds(0.0004567) == "457 us");
  CHECK(format_signed_seconds(0.14) == "+140 ms");
  CHECK(format_signed_seconds(0.0) == "+0 s");
  CHECK(format_signed_seconds(-2.5) == "-2.5 s");
}

TEST_CASE("prefixes stay within what a unit takes", "[quantity]") {
  CHECK(si_prefix_exponent(1e-12, "s") == -9);  // nothing below nanoseconds
  CHECK(si_prefix_exponent(7200.0, "s") == 0);  // seconds never become ks
  CHECK(si_prefix_exponent(1e20, "B") == 15);
  CHECK(si_prefix_exponent(0.5, "B") == 0);
  CHECK(si_prefix_exponent(250.0, "%") == 0);
  CHECK(si_prefixed_unit(-6, "s") == "us");
  CHECK(si_prefixed_unit(9, "b/s") == "Gb/s");
  CHECK(fixed_decimals(-0.0001, 2) == "0.00");  // never "-0.00"
  CHECK(fixed_decimals(3.7, -1) == "4");        // no decimals below zero
}

TEST_CASE("a quantity that is not a number is refused, never printed", "[quantity][bad-input]") {
  CHECK_THROWS_AS(format_quantity(std::nan(""), "s"), Error);
  CHECK_THROWS_AS(format_quantity(std::numeric_limits<double>::infinity(), "B"), Error);
}
