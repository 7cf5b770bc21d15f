#include "yaml/yaml_node.h"

#include <yaml.h>

#include <algorithm>
#include <deque>
#include <map>

namespace burst::yaml {

struct Node::Data {
  Kind kind = Kind::kNull;
  Style style = Style::kPlain;
  std::string text;                // a scalar's
  SourcePos pos;                   // where it starts
  std::vector<const Data*> items;  // a sequence's items; a mapping's keys and values, alternating
  // What the node would be with every alias in it replaced by a copy of the node it names: its
  // nodes (itself included) and its scalars' bytes. Final once the node is finished.
  size_t expanded_nodes = 1;
  size_t expanded_bytes = 0;
};

namespace {

const std::string kEmpty;

// Every node of a document set, at stable addresses (an alias points at its anchor's node).
struct Tree {
  std::deque<Node::Data> nodes;
};

}  // namespace

Node::Kind Node::kind() const { return data_ ? data_->kind : Kind::kUndefined; }

bool Node::is_plain() const { return is_scalar() && data_->style == Style::kPlain; }

bool Node::is_quoted() const { return is_scalar() && data_->style == Style::kQuoted; }

const std::string& Node::scalar() const { return is_scalar() ? data_->text : kEmpty; }

SourcePos Node::pos() const { return data_ ? data_->pos : SourcePos{}; }

size_t Node::size() const {
  if (is_sequence()) return data_->items.size();
  if (is_map()) return data_->items.size() / 2;
  return 0;
}

Node Node::operator[](size_t index) const {
  if (!is_sequence() || index >= data_->items.size()) return Node();
  return child(data_->items[index]);
}

Node Node::operator[](std::string_view key) const {
  if (!is_map()) return Node();
  for (size_t i = 0; i + 1 < data_->items.size(); i += 2) {
    const Data* k = data_->items[i];
    if (k->kind == Kind::kScalar && k->text == key) return child(data_->items[i + 1]);
  }
  return Node();
}

Node::Iterator Node::begin() const { return Iterator(*this, 0); }

Node::Iterator Node::end() const { return Iterator(*this, size()); }

void Node::Iterator::load() {
  if (index_ >= map_.size()) {
    entry_ = {};
    return;
  }
  const std::vector<const Data*>& items = map_.data_->items;
  entry_ = {map_.child(items[2 * index_]), map_.child(items[2 * index_ + 1])};
}

namespace {

SourcePos pos_of(const yaml_mark_t& mark) {
  return {static_cast<int>(mark.line) + 1, static_cast<int>(mark.column) + 1};
}

// 1-based line and column of a byte offset (libyaml's reader errors carry only the offset).
SourcePos pos_at(std::string_view text, size_t offset) {
  SourcePos pos{1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++pos.column;
    }
  }
  return pos;
}

// YAML 1.2 core-schema nulls; only an untagged plain scalar can be one.
bool null_text(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::string text_of(const yaml_char_t* s) { return s ? reinterpret_cast<const char*>(s) : ""; }

// Builds the tree from libyaml's events. Limits, since a spec is untrusted input: nesting depth,
// node count, and the alias-expanded size (yaml_node.h). An alias is the anchor's node, not a
// copy, but every reader that turns it into strings, lists or maps makes the copy, so the
// expanded size is what a document costs and what is bounded.
class Builder {
 public:
  explicit Builder(std::string_view text)
      : text_(text),
        tree_(std::make_shared<Tree>()),
        max_expanded_(std::max(text.size() * kExpansionFactor, kExpansionFloor)) {}

  ParseResult run() {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
      fail({1, 1}, "out of memory");
      return std::move(result_);
    }
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text_.data()),
                                 text_.size());
    bool done = false;
    while (!done && !result_.error) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser, &event)) {
        syntax_error(parser);
        break;
      }
      done = event.type == YAML_STREAM_END_EVENT;
      on_event(event);
      yaml_event_delete(&event);
    }
    yaml_parser_delete(&parser);
    if (result_.error) result_.documents.clear();
    return std::move(result_);
  }

 private:
  struct Open {
    Node::Data* node;
    std::string anchor;
  };

  void fail(SourcePos pos, std::string message, bool limit = false) {
    if (!result_.error) result_.error = ParseError{pos, std::move(message), limit};
  }

  void syntax_error(const yaml_parser_t& parser) {
    std::string problem = parser.problem ? parser.problem : "invalid YAML";
    if (parser.error == YAML_READER_ERROR) {
      fail(pos_at(text_, parser.problem_offset), problem);
      return;
    }
    SourcePos at = pos_of(parser.problem_mark);
    if (parser.problem_mark.index < text_.size() && text_[parser.problem_mark.index] == ',') {
      // libyaml reads a ',' outside [ ] or { } as the end of an item that is not there.
      fail(at, "unexpected ',': a comma separates items only inside [ ] or { }");
      return;
    }
    if (parser.context) {
      problem += " (" + std::string(parser.context) + " at " +
                 std::to_string(parser.context_mark.line + 1) + ":" +
                 std::to_string(parser.context_mark.column + 1) + ")";
    }
    fail(at, problem);
  }

  Node::Data* make(Node::Kind kind, const yaml_mark_t& mark) {
    if (++count_ > kMaxNodes) {
      fail(pos_of(mark), "more than " + std::to_string(kMaxNodes) + " nodes", true);
      return nullptr;
    }
    Node::Data& d = tree_->nodes.emplace_back();
    d.kind = kind;
    d.pos = pos_of(mark);
    return &d;
  }

  // Adds a node's expanded size (with every alias copied) to the documents' total; false after
  // reporting it when the total passes its bound.
  bool grow(const Node::Data& node, const yaml_mark_t& mark) {
    expanded_nodes_ += node.expanded_nodes;
    expanded_bytes_ += node.expanded_bytes;
    const size_t max_nodes = std::min(max_expanded_, kMaxExpandedNodes);
    const size_t max_bytes = std::min(max_expanded_, kMaxExpandedBytes);
    if (expanded_nodes_ <= max_nodes && expanded_bytes_ <= max_bytes) return true;
    const bool nodes = expanded_nodes_ > max_nodes;
    fail(pos_of(mark),
         std::string("with its aliases expanded the YAML holds more than ") +
             std::to_string(nodes ? max_nodes : max_bytes) + (nodes ? " nodes" : " bytes of text") +
             " (the limit is 4 times the file's size, at least 64 KiB, at most "
             "16 MiB of text and 1,000,000 nodes): refused",
         true);
    return false;
  }

  // Hangs a finished node under its parent (or makes it the document's root) and names it.
  void place(const Node::Data* node, const std::string& anchor) {
    if (!anchor.empty()) anchors_[anchor] = node;
    if (open_.empty()) {
      result_.documents.emplace_back(tree_, node);
    } else {
      open_.back().node->items.push_back(node);
    }
  }

  void start_collection(Node::Kind kind, const yaml_mark_t& mark, const yaml_char_t* anchor) {
    if (open_.size() >= kMaxDepth) {
      fail(pos_of(mark), "nested deeper than " + std::to_string(kMaxDepth) + " levels", true);
      return;
    }
    Node::Data* d = make(kind, mark);
    if (d && grow(*d, mark)) open_.push_back({d, text_of(anchor)});
  }

  void end_collection() {
    Open done = std::move(open_.back());
    open_.pop_back();
    // Its items are finished (an alias names a finished node): its own size is now known. The
    // total already holds every item, as each was placed.
    for (const Node::Data* item : done.node->items) {
      done.node->expanded_nodes += item->expanded_nodes;
      done.node->expanded_bytes += item->expanded_bytes;
    }
    // Named only now: an alias inside its own anchor's node would make the tree a cycle.
    place(done.node, done.anchor);
  }

  void scalar(const yaml_event_t& event) {
    const auto& s = event.data.scalar;
    std::string text(reinterpret_cast<const char*>(s.value), s.length);
    bool plain = s.plain_implicit && s.style == YAML_PLAIN_SCALAR_STYLE;
    Node::Data* d =
        make(plain && null_text(text) ? Node::Kind::kNull : Node::Kind::kScalar, event.start_mark);
    if (!d) return;
    if (plain) {
      d->style = Node::Style::kPlain;
    } else if (s.tag) {
      d->style = Node::Style::kTagged;
    } else if (s.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
               s.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
      d->style = Node::Style::kQuoted;
    } else if (s.style == YAML_PLAIN_SCALAR_STYLE) {
      d->style = Node::Style::kTagged;  // plain with a tag ("! text", "!!str 5")
    } else {
      d->style = Node::Style::kBlock;
    }
    if (d->kind == Node::Kind::kScalar) d->text = std::move(text);
    d->expanded_bytes = d->text.size();
    if (grow(*d, event.start_mark)) place(d, text_of(s.anchor));
  }

  void alias(const yaml_event_t& event) {
    std::string name = text_of(event.data.alias.anchor);
    auto it = anchors_.find(name);
    if (it == anchors_.end()) {
      bool open = false;
      for (const Open& o : open_) open = open || o.anchor == name;
      fail(pos_of(event.start_mark),
           open ? "alias *" + name + " is inside the node it names" : "unknown alias *" + name);
      return;
    }
    if (grow(*it->second, event.start_mark)) place(it->second, "");
  }

  void on_event(const yaml_event_t& event) {
    switch (event.type) {
      case YAML_DOCUMENT_START_EVENT:
        anchors_.clear();  // anchors do not cross documents
        break;
      case YAML_SCALAR_EVENT:
        scalar(event);
        break;
      case YAML_ALIAS_EVENT:
        alias(event);
        break;
      case YAML_SEQUENCE_START_EVENT:
        start_collection(Node::Kind::kSequence, event.start_mark, event.data.sequence_start.anchor);
        break;
      case YAML_MAPPING_START_EVENT:
        start_collection(Node::Kind::kMap, event.start_mark, event.data.mapping_start.anchor);
        break;
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        if (!open_.empty()) end_collection();
        break;
      default:
        break;
    }
  }

  static constexpr size_t kMaxDepth = 64;
  static constexpr size_t kMaxNodes = 1'000'000;
  static constexpr size_t kExpansionFactor = 4;
  static constexpr size_t kExpansionFloor = 64 * 1024;
  static constexpr size_t kMaxExpandedNodes = 1'000'000;
  static constexpr size_t kMaxExpandedBytes = 16u << 20;

  std::string_view text_;
  std::shared_ptr<Tree> tree_;
  ParseResult result_;
  std::vector<Open> open_;
  std::map<std::string, const Node::Data*, std::less<>> anchors_;
  size_t count_ = 0;
  const size_t max_expanded_;  // 4 x the text's size, at least kExpansionFloor
  size_t expanded_nodes_ = 0;  // every document so far, aliases copied
  size_t expanded_bytes_ = 0;
};

}  // namespace

ParseResult parse_documents(std::string_view text) { return Builder(text).run(); }

}  // namespace burst::yaml
