#include "catch.hpp"
#include "tpnet/base/units.hpp"

using namespace tpnet;

TEST_CASE("a 200 Gb/s link moves 25 GB/s", "[units][golden]") {
  const BitRate link = BitRate::gigabits_per_second(200);
  CHECK(link.bytes_per_second() == 25e9);
  CHECK(BitRate::gigabytes_per_second(25).bits_per_second() == 200e9);
}

TEST_CASE("bytes over a bit rate take bytes x 8 / rate", "[units]") {
  const Seconds t = Bytes::megabytes(25) / BitRate::gigabits_per_second(200);
  CHECK_THAT(t.value(), WithinRel(1e-3, 1e-12));
}

TEST_CASE("a rate over a time moves bytes, and bytes over time give a rate", "[units]") {
  const Bytes moved = BitRate::gigabits_per_second(200) * Seconds::microseconds(100);
  CHECK_THAT(moved.count(), WithinRel(2.5e6, 1e-12));
  const BitRate rate = Bytes::megabytes(18) / Seconds::milliseconds(10.3);
  CHECK_THAT(rate.bits_per_second(), WithinRel(18e6 * 8 / 10.3e-3, 1e-12));
}

TEST_CASE("decimal and binary byte prefixes differ", "[units]") {
  CHECK(Bytes::megabytes(1).count() == 1e6);
  CHECK(Bytes::mebibytes(1).count() == 1048576.0);
  CHECK(Bytes::gibibytes(1).count() == 1073741824.0);
  CHECK(Bytes::kilobytes(2) < Bytes(2049));
}
