// xPyD: what each pool serves and which binds (tpnet/sim/disaggregation.hpp,
// docs/formulas.md s.32), worked by hand.

#include <limits>

#include "catch.hpp"
#include "tpnet/sim/disaggregation.hpp"

using namespace tpnet;

TEST_CASE("xPyD is read in either case and refused otherwise naming the form", "[disaggregation]") {
  const DisaggregationLayout l = parse_disaggregation("2P1D", InputLocation::for_key("d"));
  CHECK(l.prefill_instances == 2);
  CHECK(l.decode_instances == 1);
  CHECK(l.nodes() == 3);
  CHECK(l.name() == "2P1D");
  CHECK(parse_disaggregation("3p2d", InputLocation::for_key("d")).decode_instances == 2);
  for (const char* bad : {"2P", "P1D", "0P1D", "2P1D1", "2D1P", "1025P1D", "", "2P-1D"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_disaggregation(bad, InputLocation::for_key("d")),
                      Catch::Contains("as in 2P1D"));
  }
  DisaggregationLayout tp;
  tp.prefill_instances = 2;
  tp.prefill_tp = 2;
  tp.decode_tp = 4;
  CHECK(tp.nodes() == 8);
  CHECK(tp.name() == "2P1D (P TP2, D TP4)");
  tp.decode_tp = 2;
  CHECK(tp.name() == "2P1D TP2");  // one TP for both pools, said once
}

TEST_CASE("the smaller pool binds, and the matched prefill count keeps decode just busy",
          "[disaggregation]") {
  DisaggregationInput in;
  in.layout.prefill_instances = 1;
  in.layout.decode_instances = 1;
  in.prefill_per_request = Seconds(2.0);  // 0.5 requests/s of prefill
  in.kv_transfer = Seconds(0.05);
  in.decode_step = Seconds(0.1);  // 10 tokens/s a request
  in.decode_batch = 32;
  in.output_tokens = 100;  // 32 requests every 10 s: 3.2 requests/s of decode
  const DisaggregationRates r = disaggregation_rates(in);
  CHECK(r.prefill_requests_per_s == Approx(0.5));
  CHECK(r.decode_requests_per_s == Approx(3.2));
  CHECK(r.prefill_bound);
  CHECK(r.served_requests_per_s == Approx(0.5));
  CHECK(r.matched_prefill_instances == Approx(6.4));  // 3.2 requests/s x 2 s
  CHECK(r.ttft.value() == Approx(2.15));
  CHECK(r.decode_tokens_per_s.tokens_per_second() == Approx(10.0));

  in.layout.prefill_instances = 8;  // 4 requests/s of prefill: decode binds
  const DisaggregationRates more = disaggregation_rates(in);
  CHECK_FALSE(more.prefill_bound);
  CHECK(more.served_requests_per_s == Approx(3.2));
}

TEST_CASE("xPyD inputs out of range are refused naming the field", "[disaggregation]") {
  DisaggregationInput in;
  in.prefill_per_request = Seconds(1.0);
  in.decode_step = Seconds(0.1);
  in.decode_batch = 0;
  CHECK_THROWS_WITH(disaggregation_rates(in), Catch::Contains("at least 1"));
  in.decode_batch = 1;
  in.decode_step = Seconds(0.0);
  try {
    (void)disaggregation_rates(in);
    FAIL("a decode step of 0 s was accepted");
  } catch (const InputError& e) {
    CHECK(e.where().key == "disaggregation.decode_step");
  }
  in.decode_step = Seconds(0.1);
  in.kv_transfer = Seconds(std::numeric_limits<double>::infinity());
  CHECK_THROWS(disaggregation_rates(in));
}
