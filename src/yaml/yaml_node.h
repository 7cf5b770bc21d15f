// A YAML node of burst's own: what libyaml's parser produced, as an immutable tree that the field
// reader (yaml_fields.h) and the spec readers walk. A Node is a cheap handle (copying it shares
// the document); it is null, a scalar (its text, and whether it was written plain), a sequence
// or a mapping (entries in file order, duplicate keys kept: the readers report them). A missing
// child is an "undefined" node: false in a boolean test. An alias is the node its anchor names.
// No libyaml type appears here, so the modules that read YAML see only this header.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "burst/spec.h"

namespace burst::yaml {

class Node {
 public:
  enum class Kind { kUndefined, kNull, kScalar, kSequence, kMap };
  // How a scalar was written: only an untagged plain scalar can be a number, a boolean or null.
  enum class Style { kPlain, kTagged, kQuoted, kBlock };

  struct Data;  // yaml_node.cpp

  Node() = default;  // undefined
  Node(std::shared_ptr<const void> owner, const Data* data)
      : owner_(std::move(owner)), data_(data) {}

  Kind kind() const;
  explicit operator bool() const { return kind() != Kind::kUndefined; }
  bool is_null() const { return kind() == Kind::kNull || kind() == Kind::kUndefined; }
  bool is_scalar() const { return kind() == Kind::kScalar; }
  bool is_sequence() const { return kind() == Kind::kSequence; }
  bool is_map() const { return kind() == Kind::kMap; }
  // An untagged plain scalar: the only kind YAML 1.2's core schema resolves to a number or a bool.
  bool is_plain() const;
  // Written in single or double quotes (its position is that of the opening quote).
  bool is_quoted() const;

  // A scalar's text; "" for any other node.
  const std::string& scalar() const;
  // Where the node starts, 1-based; {0, 0} for an undefined node.
  SourcePos pos() const;

  // A sequence's items or a mapping's entries; 0 for anything else.
  size_t size() const;
  // A sequence's item; undefined when out of range or not a sequence.
  Node operator[](size_t index) const;
  // A mapping's value for the first key with this text; undefined when absent or not a mapping.
  Node operator[](std::string_view key) const;
  // A mapping's entries (key, value), in file order; an empty range for anything else.
  class Iterator;
  Iterator begin() const;
  Iterator end() const;

 private:
  Node child(const Data* data) const { return Node(owner_, data); }

  std::shared_ptr<const void> owner_;  // keeps the document alive
  const Data* data_ = nullptr;
};

class Node::Iterator {
 public:
  using value_type = std::pair<Node, Node>;
  Iterator(Node map, size_t index) : map_(std::move(map)), index_(index) { load(); }
  const value_type& operator*() const { return entry_; }
  const value_type* operator->() const { return &entry_; }
  Iterator& operator++() {
    ++index_;
    load();
    return *this;
  }
  bool operator==(const Iterator& other) const { return index_ == other.index_; }

 private:
  void load();
  Node map_;
  size_t index_;
  value_type entry_;
};

struct ParseError {
  SourcePos pos;
  std::string message;  // libyaml's words, e.g. "did not find expected key (while parsing ...)"
  bool limit = false;   // a limit below, not a syntax error
};

struct ParseResult {
  std::vector<Node> documents;  // every document's root, in order; none after an error
  std::optional<ParseError> error;
};

// Every document of `text`, or the first syntax error. Limits, as a spec is untrusted input:
// collections nested at most 64 deep, at most 1,000,000 nodes. An alias is the node its anchor
// names (anchors do not cross documents; an alias inside its own anchor's node is an error).
// The alias-expanded size is bounded too: counted as if every alias were a copy of the node it
// names (which is what a reader that turns it into strings and lists makes), all documents
// together may hold at most max(4 x text.size(), 64 KiB) nodes and as many bytes of scalar
// text, and never more than 1,000,000 nodes or 16 MiB of text. A text without aliases is always
// within that (a node takes at least half a byte of text, a scalar's text is no longer than its
// source). Past it: an error at the node that crossed it, whose `limit` is true.
ParseResult parse_documents(std::string_view text);

}  // namespace burst::yaml
