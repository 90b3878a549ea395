#pragma once
/// One error hierarchy for the library. Input errors carry where the bad value
/// came from (file, line, key or flag) so the CLI can print one clear line.

#include <stdexcept>
#include <string>
#include <utility>

namespace tpnet {

/// Base of every error the library throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where an input value came from; every part is optional.
struct InputLocation {
  std::string file;  ///< path or built-in name ("built-in glm-5.3")
  int line = 0;      ///< 1-based; 0 = unknown
  std::string key;   ///< YAML key, CSV column or CLI flag

  /// A command-line flag or key with no file behind it.
  static InputLocation for_key(std::string key) { return InputLocation{{}, 0, std::move(key)}; }
  /// A place in a file.
  static InputLocation in_file(std::string file, int line = 0, std::string key = {}) {
    return InputLocation{std::move(file), line, std::move(key)};
  }
};

/// Bad user input: a value outside what is allowed, a missing key, a parse
/// failure. The message says what was found and what is allowed.
class InputError : public Error {
 public:
  explicit InputError(const std::string& message, InputLocation where = {});

  [[nodiscard]] const InputLocation& where() const { return where_; }
  [[nodiscard]] const std::string& detail() const { return detail_; }

 private:
  InputLocation where_;
  std::string detail_;
};

/// Throws InputError naming the request field `field` (`engine.max_num_seqs`)
/// with `why` unless `ok`.
inline void require_field(bool ok, const char* field, const std::string& why) {
  if (!ok) throw InputError(why, InputLocation::for_key(field));
}

}  // namespace tpnet
