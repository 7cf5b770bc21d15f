#include "cli/table.h"

#include <algorithm>

namespace burst {
namespace {

// The code point starting at text[*i] (advancing *i), or -1 for an invalid byte (skipped).
long next_code_point(std::string_view text, size_t* i) {
  const auto b = static_cast<unsigned char>(text[*i]);
  const int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (len == 0 || *i + len > text.size()) {
    ++*i;
    return -1;
  }
  long cp = len == 1 ? b : b & (0x7f >> len);
  for (int k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(text[*i + k]);
    if ((c & 0xc0) != 0x80) {
      ++*i;
      return -1;
    }
    cp = (cp << 6) | (c & 0x3f);
  }
  *i += len;
  return cp;
}

bool zero_width(long cp) {
  return (cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x1ab0 && cp <= 0x1aff) ||
         (cp >= 0x1dc0 && cp <= 0x1dff) || (cp >= 0x200b && cp <= 0x200f) ||
         (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe00 && cp <= 0xfe0f) ||
         (cp >= 0xfe20 && cp <= 0xfe2f);
}

// East Asian Wide and Fullwidth ranges, and the emoji blocks terminals draw two columns wide.
bool wide(long cp) {
  return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0x303e) ||
         (cp >= 0x3041 && cp <= 0x33ff) || (cp >= 0x3400 && cp <= 0x4dbf) ||
         (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xa000 && cp <= 0xa4cf) ||
         (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
         (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
         (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
         (cp >= 0x1f680 && cp <= 0x1f6ff) || (cp >= 0x1f900 && cp <= 0x1f9ff) ||
         (cp >= 0x20000 && cp <= 0x3fffd);
}

}  // namespace

size_t display_width(std::string_view text) {
  size_t width = 0;
  for (size_t i = 0; i < text.size();) {
    const long cp = next_code_point(text, &i);
    width += cp < 0 ? 1 : zero_width(cp) ? 0 : wide(cp) ? 2 : 1;
  }
  return width;
}

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::add(std::vector<std::string> cells) {
  cells.resize(std::max(cells.size(), columns_.size()));
  rows_.push_back(std::move(cells));
  notes_.emplace_back();
}

void Table::note(const std::string& text) {
  if (!notes_.empty()) notes_.back().push_back(text);
}

std::string wrap_line(const std::string& text, size_t hanging, size_t width) {
  if (display_width(text) <= width) return text + "\n";
  const size_t lead =
      text.find_first_not_of(' ') == std::string::npos ? text.size() : text.find_first_not_of(' ');
  std::string out, line(lead, ' ');
  size_t used = lead, indent = lead;
  size_t i = lead;
  while (i < text.size()) {
    size_t end = text.find(' ', i);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(i, end - i);
    const size_t w = display_width(word);
    if (used > indent && used + 1 + w > width) {
      out += line + "\n";
      indent = hanging;
      line = std::string(indent, ' ');
      used = indent;
    }
    if (used > indent) {  // the text's own spacing, double spaces too
      line += ' ';
      ++used;
    }
    line += word;
    used += w;
    i = end + 1;
  }
  return out + line + "\n";
}

std::string Table::render() const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].title);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string pad(widths[c] - display_width(cells[c]), ' ');
      if (c) l += "  ";
      l += columns_[c].align == kRight ? pad + cells[c] : cells[c] + pad;
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  std::vector<std::string> header;
  for (const Column& col : columns_) header.push_back(col.title);
  line(header);
  for (size_t r = 0; r < rows_.size(); ++r) {
    line(rows_[r]);
    for (const std::string& n : notes_[r])
      out += wrap_line(std::string(kNoteIndent, ' ') + n, kNoteIndent, kWidth);
  }
  return out;
}

}  // namespace burst
