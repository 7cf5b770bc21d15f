// The YAML adapter's field reader: typed, position-aware reads of YAML nodes for every YAML
// file burst reads (the spec, config.yaml, burstd.yaml, gpus.yaml, prices.yaml). Every reader
// reports its own problems ("file:line:col: field.path: message") and returns nullopt, so a parser
// can carry on and report every problem in one pass. Only src/yaml/ includes libyaml; the modules
// that read YAML include this header and yaml_node.h (tools/layering.cmake).
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "burst/result.h"
#include "burst/spec.h"
#include "yaml/yaml_node.h"

namespace burst::yaml {

// Collects problems as "file:line:col: field.path: message", each one line of terminal-safe text
// (util/terminal_text.h, terminal_line): what it quotes from the file is escaped.
class Problems {
 public:
  explicit Problems(std::string file) : file_(std::move(file)) {}

  void add(SourcePos pos, std::string_view field, std::string_view message);
  // Not a problem: something read but not used, or assumed. Kept apart from the problems.
  void note(SourcePos pos, std::string_view field, std::string_view message);
  bool empty() const { return entries_.empty(); }
  // The notes, in file order, formatted like problems.
  std::vector<std::string> notes() const;
  // In file order (line, then column); problems at the same place keep the order they were found.
  std::vector<SpecError> sorted() const;
  // The problems, sorted, one a line, as one kInvalid error: for readers that stop at a bad file.
  Error to_error() const;

 private:
  struct Entry {
    SourcePos pos;
    std::string text;
  };
  std::string format(SourcePos pos, std::string_view field, std::string_view message) const;
  std::string file_;
  std::vector<Entry> entries_;
  std::vector<Entry> notes_;
};

// The node's position, 1-based.
SourcePos pos_of(const Node& node);

// The text's single YAML document, or nullopt after reporting why there is none (a syntax error,
// an empty file). A second document is reported but the first is still returned.
std::optional<Node> load_single_document(const std::string& text, Problems& problems);

// Like load_single_document, but an empty text (or one of comments only) is a null node, not a
// problem: for files whose every field is optional (config.yaml, burstd.yaml).
std::optional<Node> load_optional_document(const std::string& text, Problems& problems);

// Every YAML document of the text (at most `max_documents`; more is a problem), or nullopt after
// reporting a syntax error or an empty file.
std::optional<std::vector<Node>> load_documents(const std::string& text, Problems& problems,
                                                size_t max_documents);

// "a string", "a list", "a mapping" or "nothing", for "expected X, got Y".
std::string kind_of(const Node& node);

// A mapping key's text, or "(a list)" for a key that is not a scalar.
std::string key_name(const Node& key);

// Each reader checks one value and reports why it is unusable. `path` names the field.
std::optional<std::string> read_string(const Node& node, const std::string& path,
                                       Problems& problems);
std::optional<long> read_integer(const Node& node, const std::string& path, long min, long max,
                                 Problems& problems);
std::optional<double> read_positive_number(const Node& node, const std::string& path,
                                           Problems& problems);
// A number that may be 0: "must not be negative" below it.
std::optional<double> read_non_negative_number(const Node& node, const std::string& path,
                                               Problems& problems);
std::optional<bool> read_bool(const Node& node, const std::string& path, Problems& problems);
// Seconds: a YAML number, or a string such as "90s" or "1h30m" (util/duration.h). Greater than 0
// unless `zero` allows 0.
enum class Zero { kRejected, kAllowed };
std::optional<double> read_duration(const Node& node, const std::string& path, Problems& problems,
                                    Zero zero = Zero::kRejected);
std::optional<std::string> read_one_of(const Node& node, const std::string& path,
                                       std::span<const std::string_view> allowed,
                                       Problems& problems);
std::optional<std::vector<std::string>> read_string_list(const Node& node, const std::string& path,
                                                         Problems& problems);
// A shell script: a string, or a list of strings joined with "\n".
std::optional<std::string> read_script(const Node& node, const std::string& path,
                                       Problems& problems);

enum class Need { kOptional, kRequired };

// What an unknown key's problem offers: the closest known field ("did you mean"), or failing
// that, for a short list, every known field.
enum class Unknown { kSuggest, kSuggestOrList };

// A mapping's entries, checked against the fields it may have: reports "expected a mapping",
// unknown keys (with a suggestion) and duplicate keys (the first one wins).
class Fields {
 public:
  // An empty `path` means the top level, whose missing fields are reported at 1:1.
  Fields(const Node& node, std::string path, std::span<const std::string_view> known,
         Problems& problems, Unknown unknown = Unknown::kSuggest);

  bool ok() const { return ok_; }
  Problems& problems() { return problems_; }
  SourcePos pos() const { return pos_; }
  std::string path_of(std::string_view key) const;

  // The value of `key`; nullopt when absent or null, after reporting it if required.
  std::optional<Node> get(std::string_view key, Need need = Need::kOptional);

  std::optional<std::string> string(std::string_view key, Need need = Need::kOptional);
  std::optional<long> integer(std::string_view key, long min, long max);
  std::optional<double> positive_number(std::string_view key);
  std::optional<double> non_negative_number(std::string_view key);
  std::optional<bool> boolean(std::string_view key);
  std::optional<double> duration(std::string_view key, Need need = Need::kOptional,
                                 Zero zero = Zero::kRejected);
  std::optional<std::string> one_of(std::string_view key, std::span<const std::string_view> allowed,
                                    Need need = Need::kOptional);
  std::optional<std::vector<std::string>> string_list(std::string_view key);
  std::optional<std::string> script(std::string_view key, Need need = Need::kOptional);

 private:
  struct Entry {
    Node key;
    Node value;
  };
  void check_key(const Node& key, const Node& value, std::span<const std::string_view> known,
                 Unknown unknown);

  std::string path_;
  Problems& problems_;
  SourcePos pos_;
  bool ok_ = false;
  std::map<std::string, Entry, std::less<>> entries_;
};

}  // namespace burst::yaml
