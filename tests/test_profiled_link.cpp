// A link with its fabric profile (tpnet/fabric/profiled_link.hpp).

#include "catch.hpp"
#include "tpnet/fabric/profiled_link.hpp"

using namespace tpnet;

namespace {

Link link_at(const char* name, double gigabits) {
  return Link{name, BitRate::gigabits_per_second(gigabits), name};
}

}  // namespace

TEST_CASE("links without profiles keep their order and carry no profile", "[profiled-link]") {
  const std::vector<ProfiledLink> links =
      without_profiles({link_at("200G", 200), link_at("100G", 100)});
  REQUIRE(links.size() == 2);
  CHECK(links[0].link.name == "200G");
  CHECK(links[1].link.rate.bits_per_second() == 100e9);
  CHECK_FALSE(links[0].fabric.has_value());
  CHECK_FALSE(links[1].fabric.has_value());

  const std::vector<Link> physical = links_of(links);
  REQUIRE(physical.size() == 2);
  CHECK(physical[0].name == "200G");
  CHECK(physical[1].name == "100G");
}

TEST_CASE("a prediction needs a profile on every link", "[profiled-link]") {
  std::vector<ProfiledLink> links = without_profiles({link_at("200G", 200), link_at("100G", 100)});
  CHECK_FALSE(all_profiled(links));
  links[0].fabric = nominal_fabric(links[0].link, CollectiveSettings{});
  CHECK_FALSE(all_profiled(links));  // the second still has none
  links[1].fabric = nominal_fabric(links[1].link, CollectiveSettings{});
  CHECK(all_profiled(links));
  CHECK(links[1].fabric->source == FabricSource::nominal);
  CHECK_FALSE(all_profiled({}));  // no links: nothing to predict on
}
