// JsonValue's writing and reading through nlohmann: the JSON adapter's half of json_value.h.
#include "json/json_value.h"

#include <nlohmann/json.hpp>

namespace burst {
namespace {

nlohmann::json to_nlohmann(const JsonValue& v) {
  switch (v.type()) {
    case JsonValue::Type::kNull:
      return nullptr;
    case JsonValue::Type::kBool:
      return v.as_bool();
    case JsonValue::Type::kInt:
      return v.as_int();
    case JsonValue::Type::kUint:
      return v.as_uint();
    case JsonValue::Type::kDouble:
      return v.as_double();
    case JsonValue::Type::kString:
      return v.as_string();
    case JsonValue::Type::kArray: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& item : v.items()) a.push_back(to_nlohmann(item));
      return a;
    }
    case JsonValue::Type::kObject: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& [key, value] : v.members()) o[key] = to_nlohmann(value);
      return o;
    }
  }
  return nullptr;
}

JsonValue from_nlohmann(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::boolean:
      return JsonValue(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return JsonValue(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      return JsonValue(j.get<uint64_t>());
    case nlohmann::json::value_t::number_float:
      return JsonValue(j.get<double>());
    case nlohmann::json::value_t::string:
      return JsonValue(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      JsonValue a = JsonValue::array();
      for (const auto& item : j) a.push_back(from_nlohmann(item));
      return a;
    }
    case nlohmann::json::value_t::object: {
      JsonValue o = JsonValue::object();
      for (const auto& [key, value] : j.items()) o[key] = from_nlohmann(value);
      return o;
    }
    default:
      return JsonValue();
  }
}

}  // namespace

JsonValue::JsonValue(std::initializer_list<Member> members) : type_(Type::kObject) {
  for (const auto& [key, value] : members) (*this)[key] = value;
}

JsonValue JsonValue::array() {
  JsonValue v;
  v.type_ = Type::kArray;
  return v;
}

JsonValue JsonValue::object() {
  JsonValue v;
  v.type_ = Type::kObject;
  return v;
}

JsonValue& JsonValue::operator[](const std::string& key) {
  if (type_ == Type::kNull) type_ = Type::kObject;
  for (auto& [k, v] : members_)
    if (k == key) return v;
  members_.emplace_back(key, JsonValue());
  return members_.back().second;
}

void JsonValue::push_back(JsonValue v) {
  if (type_ == Type::kNull) type_ = Type::kArray;
  items_.push_back(std::move(v));
}

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& [k, v] : members_)
    if (k == key) return &v;
  return nullptr;
}

double JsonValue::as_double() const {
  if (type_ == Type::kInt) return static_cast<double>(i_);
  if (type_ == Type::kUint) return static_cast<double>(u_);
  return d_;
}

std::optional<double> JsonValue::number(std::string_view key) const {
  const JsonValue* v = find(key);
  if (!v || !v->is_number()) return std::nullopt;
  return v->as_double();
}

double JsonValue::number_or(std::string_view key, double fallback) const {
  return number(key).value_or(fallback);
}

std::string JsonValue::string_or(std::string_view key, const std::string& fallback) const {
  const JsonValue* v = find(key);
  return v && v->type_ == Type::kString ? v->s_ : fallback;
}

bool JsonValue::bool_or(std::string_view key, bool fallback) const {
  const JsonValue* v = find(key);
  return v && v->type_ == Type::kBool ? v->b_ : fallback;
}

std::string JsonValue::dump(int indent) const { return to_nlohmann(*this).dump(indent); }

std::optional<JsonValue> JsonValue::parse(std::string_view text) {
  auto j = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return from_nlohmann(j);
}

}  // namespace burst
