#pragma once
// Private: one Hugging Face config.json as the family rules read it. Every
// getter checks the value's type and range and names file, line and key in
// its errors; every key it reads is marked, so that after a rule has run
// the keys nobody read are known, and a key that shapes the architecture is
// never passed over in silence (docs/models.md, "Never a silent guess").

#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../json_value.hpp"
#include "tpnet/base/error.hpp"
#include "tpnet/model/model.hpp"

namespace tpnet::hf {

/// A JSON object of the config (the language model's, or one nested in it)
/// and how errors name its keys ("text_config.hidden_size").
class HfObject {
 public:
  HfObject(const json::Value* map, std::string origin, std::string prefix,
           std::set<std::string>* read);

  /// Whether the key is there and not null. Does not count as reading it.
  [[nodiscard]] bool has(std::string_view key) const;
  /// The value (marks the key read); nullptr when absent, null counts as absent.
  [[nodiscard]] const json::Value* node(std::string_view key) const;

  /// A whole number in [lo, hi]; nullopt when absent. A quoted number is an error.
  [[nodiscard]] std::optional<long long> integer(std::string_view key, long long lo,
                                                 long long hi) const;
  /// As integer, else InputError "required key is missing" + `why`.
  [[nodiscard]] int required(std::string_view key, long long lo, long long hi,
                             std::string_view why = "") const;
  [[nodiscard]] std::optional<double> number(std::string_view key, double lo, double hi) const;
  [[nodiscard]] std::optional<bool> flag(std::string_view key) const;
  [[nodiscard]] std::optional<std::string> text(std::string_view key) const;
  /// A list of layer numbers from `base` (0 or 1), returned from 0; each
  /// must name one of `layers` layers.
  [[nodiscard]] std::vector<int> layer_numbers(std::string_view key, int layers, int base) const;
  /// One 0/1 (or false/true) per layer: `layers` entries.
  [[nodiscard]] std::vector<bool> layer_flags(std::string_view key, int layers,
                                              std::string_view what) const;
  /// A list of one name per layer, each among `allowed` (returned as its index there).
  [[nodiscard]] std::vector<int> layer_names(std::string_view key, int layers,
                                             const std::vector<std::string_view>& allowed) const;
  /// A nested object under `key` (errors name "key.inner"); InputError when
  /// the value is not an object. Reading in it marks `key` read.
  [[nodiscard]] HfObject object(std::string_view key) const;

  [[nodiscard]] InputLocation at(std::string_view key) const;
  [[nodiscard]] InputLocation at(const json::Value* value, std::string_view key) const;
  [[noreturn]] void missing(std::string_view key, std::string_view why) const;

  /// The object itself; an empty one when the config had none.
  [[nodiscard]] const json::Value& map() const { return *map_; }
  [[nodiscard]] const std::string& origin() const { return origin_; }
  [[nodiscard]] const std::string& prefix() const { return prefix_; }

 private:
  void mark(std::string_view key) const;
  const json::Value* map_;
  std::string origin_;
  std::string prefix_;
  std::set<std::string>* read_;
  std::string parent_;  ///< the key this object sits under in the language model's object
};

/// The config as a family rule sees it: the language model's object (the
/// top level, or text_config in a multimodal config), the top level for the
/// keys a wrapper keeps (tie_word_embeddings, torch_dtype), and what the
/// rule decides beside the layers.
class HfConfig : public HfObject {
 public:
  /// `root` must outlive the config.
  HfConfig(const json::Value& root, const std::string& origin);

  /// The top level; equals the language model's object without text_config.
  [[nodiscard]] const HfObject& top() const { return top_; }
  /// The language model's model_type (text_config's, else the top level's), lowercase.
  [[nodiscard]] const std::string& model_type() const { return model_type_; }
  /// The top level's model_type, lowercase.
  [[nodiscard]] const std::string& outer_model_type() const { return outer_type_; }
  /// "LlamaForCausalLM" or the model_type, for messages.
  [[nodiscard]] const std::string& architecture() const { return architecture_; }

  /// Marks keys a rule knows and leaves aside because they change no shape
  /// (DeepSeek's n_group, a router's scoring function).
  void ignore(std::initializer_list<std::string_view> keys);
  /// The language model's keys nobody read, in file order.
  [[nodiscard]] std::vector<std::string> unread_keys() const;

  /// What the model's class defaults to where config.json leaves a key out
  /// (save_pretrained writes only what differs): the rule sets them.
  std::optional<long long> vocab_default;
  std::optional<bool> tie_default;

 private:
  std::set<std::string> read_keys_;
  HfObject top_;
  std::string model_type_;
  std::string outer_type_;
  std::string architecture_;
};

}  // namespace tpnet::hf
