#pragma once
// One include for Catch2 v2 (Debian 12) and v3.
#if TPNET_CATCH_V3
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <string>

#if TPNET_CATCH_V3
using Catch::Matchers::ContainsSubstring;
#else
inline auto ContainsSubstring(const std::string& text) { return Catch::Matchers::Contains(text); }
#endif
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
