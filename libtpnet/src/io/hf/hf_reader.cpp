#include "hf_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "../../base/ascii_case.hpp"

namespace tpnet::hf {

namespace {

const json::Value& empty_object() {
  static const json::Value empty = json::parse("{}", "");
  return empty;
}

/// "12", a quoted number's text, or the kind of what is there, for errors.
std::string shown(const json::Value& v) {
  switch (v.kind()) {
    case json::Value::Kind::array:
      return "a list";
    case json::Value::Kind::object:
      return "an object";
    case json::Value::Kind::string:
      return "the string \"" + v.text() + "\"";
    default:
      return v.text();
  }
}

}  // namespace

HfObject::HfObject(const json::Value* map, std::string origin, std::string prefix,
                   std::set<std::string>* read)
    : map_(map != nullptr && map->is_object() ? map : &empty_object()),
      origin_(std::move(origin)),
      prefix_(std::move(prefix)),
      read_(read) {}

bool HfObject::has(std::string_view key) const {
  const json::Value* v = map_->find(key);
  return v != nullptr && !v->is_null();
}

void HfObject::mark(std::string_view key) const {
  if (read_ != nullptr) read_->insert(parent_.empty() ? std::string(key) : parent_);
}

const json::Value* HfObject::node(std::string_view key) const {
  mark(key);
  const json::Value* v = map_->find(key);
  return v != nullptr && !v->is_null() ? v : nullptr;
}

InputLocation HfObject::at(std::string_view key) const { return at(map_->find(key), key); }

InputLocation HfObject::at(const json::Value* value, std::string_view key) const {
  const int line = value != nullptr ? value->line() : map_->line();
  return InputLocation::in_file(origin_, line, prefix_ + std::string(key));
}

void HfObject::missing(std::string_view key, std::string_view why) const {
  throw InputError("required key is missing" + std::string(why),
                   InputLocation::in_file(origin_, map_->line(), prefix_ + std::string(key)));
}

std::optional<double> HfObject::number(std::string_view key, double lo, double hi) const {
  const json::Value* v = node(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) {
    throw InputError(fmt::format("expected a number, found {}", shown(*v)), at(v, key));
  }
  const auto value = v->number();
  if (!value) throw InputError(fmt::format("expected a number, found {}", shown(*v)), at(v, key));
  if (!(*value >= lo && *value <= hi)) {
    throw InputError(fmt::format("{} is out of range; allowed {:g} to {:g}", v->text(), lo, hi),
                     at(v, key));
  }
  return value;
}

std::optional<long long> HfObject::integer(std::string_view key, long long lo, long long hi) const {
  const json::Value* v = node(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) {
    throw InputError(fmt::format("expected a number, found {}", shown(*v)), at(v, key));
  }
  const auto value = v->number();
  if (!value) throw InputError(fmt::format("expected a number, found {}", shown(*v)), at(v, key));
  if (*value != std::floor(*value)) {
    throw InputError("'" + v->text() + "' must be a whole number", at(v, key));
  }
  if (!(*value >= static_cast<double>(lo) && *value <= static_cast<double>(hi))) {
    throw InputError(fmt::format("{} is out of range; allowed {} to {}", v->text(), lo, hi),
                     at(v, key));
  }
  return static_cast<long long>(*value);
}

int HfObject::required(std::string_view key, long long lo, long long hi,
                       std::string_view why) const {
  const auto value = integer(key, lo, hi);
  if (!value) missing(key, why);
  return static_cast<int>(*value);
}

std::optional<bool> HfObject::flag(std::string_view key) const {
  const json::Value* v = node(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_bool()) throw InputError("expected true or false", at(v, key));
  return v->text() == "true";
}

std::optional<std::string> HfObject::text(std::string_view key) const {
  const json::Value* v = node(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_array() || v->is_object()) throw InputError("expected text", at(v, key));
  return v->text();
}

std::vector<int> HfObject::layer_numbers(std::string_view key, int layers, int base) const {
  const json::Value* list = node(key);
  if (list == nullptr) missing(key, "");
  if (!list->is_array()) throw InputError("expected a list of layer numbers", at(list, key));
  std::vector<int> out;
  for (const json::Value& item : list->items()) {
    const auto index = item.number();
    if (!index || *index != std::floor(*index) || *index < base ||
        *index >= static_cast<double>(layers) + base) {
      throw InputError(fmt::format("expected layer numbers {} to {}", base, layers - 1 + base),
                       at(&item, key));
    }
    out.push_back(static_cast<int>(*index) - base);
  }
  return out;
}

std::vector<bool> HfObject::layer_flags(std::string_view key, int layers,
                                        std::string_view what) const {
  const json::Value* list = node(key);
  if (list == nullptr) missing(key, "");
  if (!list->is_array() || list->size() != static_cast<std::size_t>(layers)) {
    throw InputError(fmt::format("expected a list of one {} per layer ({} layers)", what, layers),
                     at(list, key));
  }
  std::vector<bool> out;
  for (const json::Value& item : list->items()) {
    const std::string& t = item.text();
    if (!(item.is_number() && (t == "0" || t == "1")) && !item.is_bool()) {
      throw InputError(fmt::format("expected {} for each layer", what), at(&item, key));
    }
    out.push_back(t == "1" || t == "true");
  }
  return out;
}

std::vector<int> HfObject::layer_names(std::string_view key, int layers,
                                       const std::vector<std::string_view>& allowed) const {
  const json::Value* list = node(key);
  if (list == nullptr) missing(key, "");
  std::string names;
  for (const auto name : allowed) names += (names.empty() ? "" : ", ") + std::string(name);
  if (!list->is_array() || list->size() != static_cast<std::size_t>(layers)) {
    throw InputError(
        fmt::format("expected a list of {} entries, one per layer, each {}", layers, names),
        at(list, key));
  }
  std::vector<int> out;
  for (const json::Value& item : list->items()) {
    const std::string name = item.is_string() ? detail::lowercase(item.text()) : "";
    const auto it = std::find(allowed.begin(), allowed.end(), name);
    if (it == allowed.end()) {
      throw InputError(fmt::format("'{}' is not a layer kind tpnet knows here; it knows {}",
                                   item.is_string() ? item.text() : shown(item), names),
                       at(&item, key));
    }
    out.push_back(static_cast<int>(it - allowed.begin()));
  }
  return out;
}

HfObject HfObject::object(std::string_view key) const {
  const json::Value* v = node(key);
  if (v == nullptr || !v->is_object()) throw InputError("expected a JSON object", at(v, key));
  HfObject inner(v, origin_, prefix_ + std::string(key) + ".", read_);
  inner.parent_ = parent_.empty() ? std::string(key) : parent_;
  return inner;
}

namespace {

const json::Value* language_model(const json::Value& root, const std::string& origin) {
  const json::Value* text_config = root.find("text_config");
  if (text_config == nullptr || text_config->is_null()) return &root;
  if (!text_config->is_object()) {
    throw InputError("expected a JSON object",
                     InputLocation::in_file(origin, text_config->line(), "text_config"));
  }
  return text_config;
}

std::string type_of(const json::Value& map) {
  const json::Value* type = map.find("model_type");
  return type != nullptr && type->is_string() ? detail::lowercase(type->text()) : "";
}

bool wrapped(const json::Value& root) {
  const json::Value* text_config = root.find("text_config");
  return text_config != nullptr && !text_config->is_null();
}

}  // namespace

HfConfig::HfConfig(const json::Value& root, const std::string& origin)
    : HfObject(language_model(root, origin), origin, wrapped(root) ? "text_config." : "",
               &read_keys_),
      top_(&root, origin, "", wrapped(root) ? nullptr : &read_keys_) {
  const std::string inner = type_of(map());
  outer_type_ = type_of(root);
  model_type_ = inner.empty() ? outer_type_ : inner;
  const json::Value* architectures = root.find("architectures");
  if (architectures != nullptr && architectures->is_array() && architectures->size() > 0 &&
      architectures->items().front().is_string()) {
    architecture_ = architectures->items().front().text();
  } else {
    architecture_ = model_type_;
  }
}

void HfConfig::ignore(std::initializer_list<std::string_view> keys) {
  for (const auto key : keys) read_keys_.insert(std::string(key));
}

std::vector<std::string> HfConfig::unread_keys() const {
  std::vector<std::string> out;
  for (const auto& [key, value] : map().members()) {
    if (read_keys_.count(key) == 0) out.push_back(key);
  }
  return out;
}

}  // namespace tpnet::hf
