#include "catch.hpp"
#include "tpnet/base/quantity.hpp"

using namespace tpnet;

namespace {
const InputLocation kFlag = InputLocation::for_key("--link");
}

TEST_CASE("bit rates parse in every spelling the brief lists", "[quantity]") {
  CHECK(parse_bit_rate("200G", kFlag).bits_per_second() == 200e9);
  CHECK(parse_bit_rate("200Gb/s", kFlag).bits_per_second() == 200e9);
  CHECK(parse_bit_rate("200Gbps", kFlag).bits_per_second() == 200e9);
  CHECK(parse_bit_rate("25GB/s", kFlag).bits_per_second() == 200e9);
  CHECK_THAT(parse_bit_rate("109.07G", kFlag).bits_per_second(), WithinRel(109.07e9, 1e-15));
  CHECK(parse_bit_rate("400M", kFlag).bits_per_second() == 400e6);
  CHECK(parse_bit_rate("1.6T", kFlag).bits_per_second() == 1.6e12);
  CHECK(parse_bit_rate(" 100G ", kFlag).bits_per_second() == 100e9);
}

TEST_CASE("bad bit rates are refused with the flag and what is allowed", "[quantity][bad-input]") {
  for (const char* bad :
       {"200Q", "200", "", "G", "-100G", "0G", "abcG", "nanG", "infG", "1e400G"}) {
    INFO(bad);
    try {
      (void)parse_bit_rate(bad, kFlag);
      FAIL("accepted " << bad);
    } catch (const InputError& e) {
      CHECK_THAT(std::string(e.what()), ContainsSubstring("--link"));
    }
  }
  try {
    (void)parse_bit_rate("200Q", kFlag);
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("200Gb/s"));
  }
}

TEST_CASE("token counts use k = 1,024 as context lengths are quoted", "[quantity]") {
  const auto flag = InputLocation::for_key("--chunk");
  CHECK(parse_tokens("8k", flag) == 8192);
  CHECK(parse_tokens("8K", flag) == 8192);
  CHECK(parse_tokens("8192", flag) == 8192);
  CHECK(parse_tokens("1M", flag) == 1048576);
  CHECK(parse_tokens("1.5k", flag) == 1536);
  for (const char* bad : {"0", "0k", "-8k", "8.5", "1.0001k", "8x", "k", "8kb", "2e13"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_tokens(bad, flag), InputError);
  }
}

TEST_CASE("prompt mixes: 4x8k is four requests of 8,192 tokens", "[quantity]") {
  const auto flag = InputLocation::for_key("--prompt");
  const PromptSpec four = parse_prompt("4x8k", flag);
  CHECK(four.requests == 4);
  CHECK(four.tokens_each == 8192);
  CHECK(four.total_tokens() == 32768);
  const PromptSpec one = parse_prompt("64k", flag);
  CHECK(one.requests == 1);
  CHECK(one.tokens_each == 65536);
  for (const char* bad : {"0x8k", "x8k", "4x", "4x0", "-1x8k", "4y8k", "1.5x8k"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_prompt(bad, flag), InputError);
  }
}

TEST_CASE("durations parse with explicit units", "[quantity]") {
  const auto flag = InputLocation::for_key("--think");
  CHECK(parse_duration("45s", flag).value() == 45.0);
  CHECK_THAT(parse_duration("1000ms", flag).value(), WithinRel(1.0, 1e-15));
  CHECK_THAT(parse_duration("100us", flag).value(), WithinRel(1e-4, 1e-15));
  CHECK(parse_duration("2min", flag).value() == 120.0);
  for (const char* bad : {"45", "0s", "-1s", "1 fortnight", "s"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_duration(bad, flag), InputError);
  }
}

TEST_CASE("byte sizes keep decimal and binary prefixes apart", "[quantity]") {
  const auto flag = InputLocation::for_key("--bytes-per-token");
  CHECK_THAT(parse_bytes("3.57MB", flag).count(), WithinRel(3.57e6, 1e-15));
  CHECK_THAT(parse_bytes("50.3MiB", flag).count(), WithinRel(50.3 * 1048576.0, 1e-15));
  CHECK(parse_bytes("4096B", flag).count() == 4096.0);
  CHECK(parse_bytes("2.8GB", flag).count() == 2.8e9);
  for (const char* bad : {"0MB", "-1MB", "3.57Mb", "MB", "1 MBB", "0x10MB", "nanGB", "infB"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_bytes(bad, flag), InputError);
  }
}

TEST_CASE("a byte size without a unit is refused, not read as bytes", "[quantity]") {
  // --autotune-spike's help says ~10GB; a bare 10 read as 10 B passed silently.
  const auto flag = InputLocation::for_key("--autotune-spike");
  try {
    (void)parse_bytes("10", flag);
    FAIL("a bare number was accepted as a byte size");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("--autotune-spike") &&
                                          ContainsSubstring("'10' has no unit") &&
                                          ContainsSubstring("10GB"));
  }
}

TEST_CASE("plain positive numbers name what they are for", "[quantity]") {
  const auto key = InputLocation::for_key("--efficiency");
  CHECK(parse_positive_number("0.88", key, "efficiency") == 0.88);
  try {
    (void)parse_positive_number("-1", key, "efficiency");
    FAIL("accepted -1");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), ContainsSubstring("efficiency"));
  }
}

TEST_CASE("plain numbers: significant digits, no trailing zeros, no exponent") {
  CHECK(tpnet::plain_number(1e6) == "1000000");
  CHECK(tpnet::plain_number(0.001) == "0.001");
  CHECK(tpnet::plain_number(1.23456789, 3) == "1.23");
  CHECK(tpnet::plain_number(-0.0000001, 2) == "-0.0000001");
  CHECK(tpnet::plain_number(0.0) == "0");
  CHECK(tpnet::plain_number(std::numeric_limits<double>::infinity()) == "inf");
}
