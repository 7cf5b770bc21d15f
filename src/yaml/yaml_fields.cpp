#include "yaml/yaml_fields.h"

#include <algorithm>
#include <charconv>

#include "util/decimal.h"
#include "util/duration.h"
#include "util/suggest.h"
#include "util/terminal_text.h"

namespace burst::yaml {
namespace {

// Appends rather than `"\"" + std::string(...)`, which trips GCC 12's -Wrestrict at -O3.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  out.append(text).append("\"");
  return out;
}

// "got \"cheap\"" for a scalar, "got a list" for anything else.
std::string got(const Node& node) {
  return node.is_scalar() ? "got " + quoted(node.scalar()) : "got " + kind_of(node);
}

// Plain (unquoted, untagged) scalars are the only ones YAML resolves to numbers and booleans.
bool is_plain(const Node& node) { return node.is_plain(); }

enum class IntParse { kNotInt, kOk, kOutOfRange };

// YAML 1.2 core-schema integers: [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+.
IntParse parse_int(std::string_view text, long* out) {
  int base = 10;
  bool negative = false;
  if (text.starts_with("0x") || text.starts_with("0o")) {
    base = text[1] == 'x' ? 16 : 8;
    text.remove_prefix(2);
  } else if (text.starts_with('-') || text.starts_with('+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text[0] == '-' || text[0] == '+') return IntParse::kNotInt;
  unsigned long magnitude = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
  if (end != text.data() + text.size()) return IntParse::kNotInt;
  if (ec == std::errc::result_out_of_range || magnitude > 9223372036854775807UL) {
    return IntParse::kOutOfRange;
  }
  *out = negative ? -static_cast<long>(magnitude) : static_cast<long>(magnitude);
  return IntParse::kOk;
}

size_t skip_digits(std::string_view text, size_t i) {
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  return i;
}

// Whether text is a YAML 1.2 core-schema float, [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
// (no regex: GCC 12's <regex> trips -Wmaybe-uninitialized in some builds).
bool is_float_text(std::string_view text) {
  size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  size_t int_end = skip_digits(text, i);
  size_t end = int_end;
  if (end < text.size() && text[end] == '.') end = skip_digits(text, end + 1);
  bool has_digits = int_end > i || end > int_end + 1;
  if (!has_digits) return false;
  if (end < text.size() && (text[end] == 'e' || text[end] == 'E')) {
    size_t exp = end + 1;
    if (exp < text.size() && (text[exp] == '-' || text[exp] == '+')) ++exp;
    end = skip_digits(text, exp);
    if (end == exp) return false;
  }
  return end == text.size();
}

// YAML 1.2 core-schema floats, without .inf and .nan (no spec field wants them).
std::optional<double> parse_float(std::string_view text) {
  if (!is_float_text(text)) return std::nullopt;
  if (text.starts_with('+')) text.remove_prefix(1);
  return parse_decimal(text);
}

std::optional<double> plain_number(const Node& node) {
  if (!is_plain(node)) return std::nullopt;
  long integer = 0;
  if (parse_int(node.scalar(), &integer) == IntParse::kOk) return static_cast<double>(integer);
  return parse_float(node.scalar());
}

}  // namespace

// The field path and message quote the file (a key, a name, a value), which is untrusted: shown
// on the terminal, they must not carry an escape sequence or forge a line (util/terminal_text.h).
std::string Problems::format(SourcePos pos, std::string_view field,
                             std::string_view message) const {
  return terminal_line(file_ + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) +
                       ": " + std::string(field) + ": " + std::string(message));
}

void Problems::add(SourcePos pos, std::string_view field, std::string_view message) {
  entries_.push_back({pos, format(pos, field, message)});
}

void Problems::note(SourcePos pos, std::string_view field, std::string_view message) {
  notes_.push_back({pos, format(pos, field, message)});
}

std::vector<std::string> Problems::notes() const {
  std::vector<Entry> entries = notes_;
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  std::vector<std::string> out;
  for (Entry& e : entries) out.push_back(std::move(e.text));
  return out;
}

std::vector<SpecError> Problems::sorted() const {
  std::vector<Entry> entries = entries_;
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.pos.line != b.pos.line ? a.pos.line < b.pos.line : a.pos.column < b.pos.column;
  });
  std::vector<SpecError> out;
  for (Entry& e : entries) out.push_back({std::move(e.text)});
  return out;
}

Error Problems::to_error() const {
  std::string message;
  for (const SpecError& e : sorted()) message += (message.empty() ? "" : "\n") + e.text;
  return make_error(ErrorCode::kInvalid, message);
}

SourcePos pos_of(const Node& node) { return node.pos(); }

std::string kind_of(const Node& node) {
  if (node.is_sequence()) return "a list";
  if (node.is_map()) return "a mapping";
  if (node.is_scalar()) return "a string";
  return "nothing";
}

std::string key_name(const Node& key) {
  if (key.is_scalar()) return key.scalar();
  std::string name = "(";
  return name.append(kind_of(key)).append(")");
}

std::optional<std::string> read_string(const Node& node, const std::string& path,
                                       Problems& problems) {
  if (node.is_scalar()) return node.scalar();
  problems.add(pos_of(node), path, "expected a string, got " + kind_of(node));
  return std::nullopt;
}

std::optional<long> read_integer(const Node& node, const std::string& path, long min, long max,
                                 Problems& problems) {
  long value = 0;
  IntParse parsed = is_plain(node) ? parse_int(node.scalar(), &value) : IntParse::kNotInt;
  if (parsed == IntParse::kNotInt) {
    problems.add(pos_of(node), path, "expected an integer, " + got(node));
    return std::nullopt;
  }
  bool negative = node.scalar().starts_with('-');
  if (parsed == IntParse::kOutOfRange ? negative : value < min) {
    problems.add(pos_of(node), path,
                 "must be at least " + std::to_string(min) + ", got " + node.scalar());
    return std::nullopt;
  }
  if (parsed == IntParse::kOutOfRange || value > max) {
    problems.add(pos_of(node), path,
                 "must be at most " + std::to_string(max) + ", got " + node.scalar());
    return std::nullopt;
  }
  return value;
}

std::optional<double> read_positive_number(const Node& node, const std::string& path,
                                           Problems& problems) {
  std::optional<double> value = plain_number(node);
  if (!value) {
    problems.add(pos_of(node), path, "expected a number, " + got(node));
  } else if (*value <= 0) {
    problems.add(pos_of(node), path, "must be greater than 0, got " + node.scalar());
    value.reset();
  }
  return value;
}

std::optional<double> read_non_negative_number(const Node& node, const std::string& path,
                                               Problems& problems) {
  std::optional<double> value = plain_number(node);
  if (!value) {
    problems.add(pos_of(node), path, "expected a number, " + got(node));
  } else if (*value < 0) {
    problems.add(pos_of(node), path, "must not be negative, got " + node.scalar());
    value.reset();
  }
  return value;
}

std::optional<bool> read_bool(const Node& node, const std::string& path, Problems& problems) {
  // YAML 1.2 booleans only: "yes", "on" and friends are the classic YAML 1.1 surprise.
  if (is_plain(node)) {
    const std::string& s = node.scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  problems.add(pos_of(node), path, "expected true or false, " + got(node));
  return std::nullopt;
}

std::optional<double> read_duration(const Node& node, const std::string& path, Problems& problems,
                                    Zero zero) {
  std::optional<double> seconds = plain_number(node);
  if (!seconds && node.is_scalar()) seconds = parse_duration(node.scalar());
  if (!seconds) {
    problems.add(pos_of(node), path,
                 "expected a duration like \"90s\", \"30m\" or \"2h\", " + got(node));
  } else if (zero == Zero::kAllowed && *seconds < 0) {
    problems.add(pos_of(node), path, "must not be negative, got " + node.scalar());
    seconds.reset();
  } else if (zero == Zero::kRejected && *seconds <= 0) {
    problems.add(pos_of(node), path, "must be greater than 0, got " + node.scalar());
    seconds.reset();
  }
  return seconds;
}

std::optional<std::string> read_one_of(const Node& node, const std::string& path,
                                       std::span<const std::string_view> allowed,
                                       Problems& problems) {
  std::optional<std::string> value = read_string(node, path, problems);
  if (!value || std::find(allowed.begin(), allowed.end(), *value) != allowed.end()) return value;
  std::string list;
  for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  problems.add(pos_of(node), path, "must be one of " + list + "; got " + quoted(*value));
  return std::nullopt;
}

std::optional<std::vector<std::string>> read_string_list(const Node& node, const std::string& path,
                                                         Problems& problems) {
  if (!node.is_sequence()) {
    problems.add(pos_of(node), path, "expected a list, got " + kind_of(node));
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < node.size(); ++i) {
    std::optional<std::string> item =
        read_string(node[i], path + "[" + std::to_string(i) + "]", problems);
    if (item) out.push_back(*item);
    ok = ok && item.has_value();
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::string> read_script(const Node& node, const std::string& path,
                                       Problems& problems) {
  if (node.is_scalar()) return node.scalar();
  if (!node.is_sequence()) {
    problems.add(pos_of(node), path,
                 "expected a string or a list of strings, got " + kind_of(node));
    return std::nullopt;
  }
  std::optional<std::vector<std::string>> lines = read_string_list(node, path, problems);
  if (!lines) return std::nullopt;
  std::string script;
  for (const std::string& line : *lines) script += (script.empty() ? "" : "\n") + line;
  return script;
}

Fields::Fields(const Node& node, std::string path, std::span<const std::string_view> known,
               Problems& problems, Unknown unknown)
    : path_(std::move(path)), problems_(problems), pos_(pos_of(node)) {
  if (path_.empty()) pos_ = {1, 1};
  if (!node.is_map()) {
    problems_.add(pos_, path_.empty() ? "(top level)" : path_,
                  "expected a mapping, got " + kind_of(node));
    return;
  }
  ok_ = true;
  for (auto it = node.begin(); it != node.end(); ++it)
    check_key(it->first, it->second, known, unknown);
}

void Fields::check_key(const Node& key, const Node& value, std::span<const std::string_view> known,
                       Unknown unknown) {
  std::string name = key_name(key);
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    std::optional<std::string> guess = suggest_field(name, known);
    std::string message = "unknown field";
    if (guess) {
      message += " (did you mean \"" + *guess + "\"?)";
    } else if (unknown == Unknown::kSuggestOrList && !known.empty()) {
      std::string list;
      for (std::string_view k : known) list.append(list.empty() ? "" : ", ").append(k);
      message += " (" + list + ")";
    }
    problems_.add(pos_of(key), path_of(name), message);
  } else if (entries_.contains(name)) {
    problems_.add(pos_of(key), path_of(name), "duplicate field");
  } else {
    entries_.emplace(name, Entry{key, value});
  }
}

std::string Fields::path_of(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::optional<Node> Fields::get(std::string_view key, Need need) {
  auto it = entries_.find(key);
  if (it != entries_.end() && !it->second.value.is_null()) return it->second.value;
  if (need == Need::kRequired && ok_) {
    // A key written with no value is reported where the key is; an absent one at its mapping.
    SourcePos pos = it != entries_.end() ? pos_of(it->second.key) : pos_;
    problems_.add(pos, path_of(key), "required field is missing");
  }
  return std::nullopt;
}

std::optional<std::string> Fields::string(std::string_view key, Need need) {
  std::optional<Node> node = get(key, need);
  return node ? read_string(*node, path_of(key), problems_) : std::nullopt;
}

std::optional<long> Fields::integer(std::string_view key, long min, long max) {
  std::optional<Node> node = get(key);
  return node ? read_integer(*node, path_of(key), min, max, problems_) : std::nullopt;
}

std::optional<double> Fields::positive_number(std::string_view key) {
  std::optional<Node> node = get(key);
  return node ? read_positive_number(*node, path_of(key), problems_) : std::nullopt;
}

std::optional<bool> Fields::boolean(std::string_view key) {
  std::optional<Node> node = get(key);
  return node ? read_bool(*node, path_of(key), problems_) : std::nullopt;
}

std::optional<double> Fields::non_negative_number(std::string_view key) {
  std::optional<Node> node = get(key);
  return node ? read_non_negative_number(*node, path_of(key), problems_) : std::nullopt;
}

std::optional<double> Fields::duration(std::string_view key, Need need, Zero zero) {
  std::optional<Node> node = get(key, need);
  return node ? read_duration(*node, path_of(key), problems_, zero) : std::nullopt;
}

std::optional<std::string> Fields::one_of(std::string_view key,
                                          std::span<const std::string_view> allowed, Need need) {
  std::optional<Node> node = get(key, need);
  return node ? read_one_of(*node, path_of(key), allowed, problems_) : std::nullopt;
}

std::optional<std::vector<std::string>> Fields::string_list(std::string_view key) {
  std::optional<Node> node = get(key);
  return node ? read_string_list(*node, path_of(key), problems_) : std::nullopt;
}

std::optional<std::string> Fields::script(std::string_view key, Need need) {
  std::optional<Node> node = get(key, need);
  return node ? read_script(*node, path_of(key), problems_) : std::nullopt;
}

namespace {

// The documents, or nullopt after reporting why there are none. An empty text is one null
// document when `empty_ok`, else a problem.
std::optional<std::vector<Node>> load(const std::string& text, Problems& problems,
                                      size_t max_documents, bool empty_ok) {
  ParseResult parsed = parse_documents(text);
  if (parsed.error) {
    problems.add(parsed.error->pos, parsed.error->limit ? "YAML limit" : "YAML syntax error",
                 parsed.error->message);
    return std::nullopt;
  }
  std::vector<Node>& docs = parsed.documents;
  if (docs.empty() || (docs.size() == 1 && docs[0].is_null())) {
    if (empty_ok) return std::vector<Node>{Node()};
    problems.add({1, 1}, "(top level)", "the file is empty");
    return std::nullopt;
  }
  if (docs.size() > max_documents) {
    problems.add(pos_of(docs[max_documents]), "(top level)",
                 (max_documents == 1
                      ? std::string("expected one YAML document")
                      : "expected at most " + std::to_string(max_documents) + " YAML documents") +
                     ", got " + std::to_string(docs.size()));
    docs.resize(max_documents);
  }
  return std::move(docs);
}

}  // namespace

std::optional<std::vector<Node>> load_documents(const std::string& text, Problems& problems,
                                                size_t max_documents) {
  return load(text, problems, max_documents, false);
}

std::optional<Node> load_optional_document(const std::string& text, Problems& problems) {
  std::optional<std::vector<Node>> docs = load(text, problems, 1, true);
  if (!docs) return std::nullopt;
  return docs->front();
}

std::optional<Node> load_single_document(const std::string& text, Problems& problems) {
  std::optional<std::vector<Node>> docs = load_documents(text, problems, 1);
  if (!docs) return std::nullopt;
  return docs->front();
}

}  // namespace burst::yaml
