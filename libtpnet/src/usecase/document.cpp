#include "tpnet/usecase/document.hpp"

#include <fmt/format.h>
#include <cmath>

#include "tpnet/base/error.hpp"

namespace tpnet {

Field number(std::string key, std::string label, double value, DisplayUnit unit, int decimals) {
  Field f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.number = value;
  f.unit = unit;
  f.decimals = decimals;
  return f;
}

Field signed_number(std::string key, std::string label, double value, DisplayUnit unit,
                    int decimals) {
  Field f = number(std::move(key), std::move(label), value, unit, decimals);
  f.signed_display = true;
  return f;
}

Field integer(std::string key, std::string label, double value) {
  return number(std::move(key), std::move(label), value, kCount, 0);
}

Field count(std::string key, std::string label, long long value) {
  return integer(std::move(key), std::move(label), static_cast<double>(value));
}

Field money(std::string key, std::string label, double amount, const std::string& currency) {
  Field f = number(std::move(key), std::move(label), amount, kCount, 0);
  f.unit_name = currency;
  return f;
}

Field text(std::string key, std::string label, std::string value) {
  Field f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.kind = Field::Kind::text;
  f.text = std::move(value);
  return f;
}

Field flag(std::string key, std::string label, bool value) {
  Field f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.kind = Field::Kind::flag;
  f.flag = value;
  return f;
}

Field texts(std::string key, std::string label, std::vector<std::string> values) {
  Field f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.kind = Field::Kind::texts;
  f.texts = std::move(values);
  return f;
}

Field numbers(std::string key, std::string label, std::vector<double> values, DisplayUnit unit,
              int decimals) {
  Field f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.kind = Field::Kind::numbers;
  f.numbers = std::move(values);
  f.unit = unit;
  f.decimals = decimals;
  return f;
}

Field record(std::string key, std::string label, Record fields) {
  Field f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.kind = Field::Kind::record;
  f.records.push_back(std::move(fields));
  return f;
}

Field records(std::string key, std::string label, std::vector<Record> rows) {
  Field f;
  f.key = std::move(key);
  f.label = std::move(label);
  f.kind = Field::Kind::records;
  f.records = std::move(rows);
  return f;
}

Field json_only(Field field) {
  field.json_only = true;
  return field;
}

Field table_only(Field field) {
  field.table_only = true;
  return field;
}

Field wide_only(Field field) {
  field.wide_only = true;
  return field;
}

Field note_unless_wide(Field field) {
  field.note_unless_wide = true;
  return field;
}

}  // namespace tpnet
