// A JSON value that core modules (plan, report) build and read without a third-party header:
// null, bool, integer, number, string, array or object. dump() writes what nlohmann's dump()
// writes (keys sorted, integers without a decimal point), so the JSON that burst prints and stores
// keeps its bytes; parse() reads a document or says it could not. The JSON adapter implements it
// with nlohmann (json_value.cpp), the only place that knows.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace burst {

class JsonValue {
 public:
  enum class Type { kNull, kBool, kInt, kUint, kDouble, kString, kArray, kObject };
  using Member = std::pair<const std::string, JsonValue>;

  JsonValue() = default;
  JsonValue(std::nullptr_t) {}  // NOLINT: implicit, as in a literal
  JsonValue(bool b) : type_(Type::kBool), b_(b) {}
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                                         int> = 0>
  JsonValue(T n) {  // NOLINT
    if constexpr (std::is_floating_point_v<T>) {
      type_ = Type::kDouble;
      d_ = static_cast<double>(n);
    } else if constexpr (std::is_signed_v<T>) {
      type_ = Type::kInt;
      i_ = static_cast<int64_t>(n);
    } else {
      type_ = Type::kUint;
      u_ = static_cast<uint64_t>(n);
    }
  }
  JsonValue(const char* s) : type_(Type::kString), s_(s) {}             // NOLINT
  JsonValue(std::string s) : type_(Type::kString), s_(std::move(s)) {}  // NOLINT
  JsonValue(std::string_view s) : type_(Type::kString), s_(s) {}        // NOLINT
  // An object: {{"key", value}, ...}.
  JsonValue(std::initializer_list<Member> members);
  // An unset optional is null.
  template <typename T>
  JsonValue(const std::optional<T>& v) : JsonValue(v ? JsonValue(*v) : JsonValue()) {}  // NOLINT

  static JsonValue array();
  static JsonValue object();

  Type type() const { return type_; }
  bool is_object() const { return type_ == Type::kObject; }
  bool is_number() const {
    return type_ == Type::kInt || type_ == Type::kUint || type_ == Type::kDouble;
  }

  // Object member, added (null) when absent; a null value becomes an object first.
  JsonValue& operator[](const std::string& key);
  // Appends to an array; a null value becomes an array first.
  void push_back(JsonValue v);

  // Readers for an object's members; `fallback` when absent or of another type.
  const JsonValue* find(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;
  double number_or(std::string_view key, double fallback) const;
  std::string string_or(std::string_view key, const std::string& fallback) const;
  bool bool_or(std::string_view key, bool fallback) const;

  // Compact (indent < 0) or indented by `indent` spaces, as nlohmann::json::dump writes it.
  std::string dump(int indent = -1) const;
  // The document in `text`, or nullopt when it is not JSON.
  static std::optional<JsonValue> parse(std::string_view text);

  // For the adapter: the value's parts.
  bool as_bool() const { return b_; }
  int64_t as_int() const { return i_; }
  uint64_t as_uint() const { return u_; }
  double as_double() const;
  const std::string& as_string() const { return s_; }
  const std::vector<JsonValue>& items() const { return items_; }
  const std::vector<std::pair<std::string, JsonValue>>& members() const { return members_; }

 private:
  Type type_ = Type::kNull;
  bool b_ = false;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<JsonValue> items_;
  std::vector<std::pair<std::string, JsonValue>> members_;
};

}  // namespace burst
