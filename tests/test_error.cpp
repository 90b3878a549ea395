// The one error hierarchy (tpnet/base/error.hpp): an InputError's message
// leads with where the bad value came from, so the CLI prints one line that
// names file, line and key; detail() keeps the message without them.

#include <stdexcept>
#include <string>

#include "catch.hpp"
#include "tpnet/base/error.hpp"

using namespace tpnet;

TEST_CASE("an input error names file, line and key before its message", "[error]") {
  const InputError e("is -3; must be positive", InputLocation::in_file("m.yaml", 7, "num_layers"));
  CHECK(std::string(e.what()) == "m.yaml:7: num_layers: is -3; must be positive");
  CHECK(e.detail() == "is -3; must be positive");
  CHECK(e.where().file == "m.yaml");
  CHECK(e.where().line == 7);
  CHECK(e.where().key == "num_layers");
}

TEST_CASE("an input error leaves out the parts of its location it does not know", "[error]") {
  // A flag has no file: the key alone leads.
  CHECK(std::string(InputError("use 1 to 64", InputLocation::for_key("--tp")).what()) ==
        "--tp: use 1 to 64");
  // A file without a line: no ":0".
  CHECK(std::string(InputError("not valid YAML", InputLocation::in_file("a.yaml")).what()) ==
        "a.yaml: not valid YAML");
  // A line and no key.
  CHECK(std::string(InputError("has 4 cells", InputLocation::in_file("ar.txt", 8)).what()) ==
        "ar.txt:8: has 4 cells");
  // Nowhere known: the message alone.
  const InputError bare("no model given");
  CHECK(std::string(bare.what()) == "no model given");
  CHECK(bare.where().file.empty());
  CHECK(bare.where().line == 0);
}

TEST_CASE("every input error is a tpnet::Error and a std::runtime_error", "[error]") {
  CHECK_THROWS_AS(throw InputError("x"), Error);
  CHECK_THROWS_AS(throw InputError("x"), std::runtime_error);
  CHECK_THROWS_AS(throw Error("x"), std::runtime_error);
}
