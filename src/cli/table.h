// The one printer of burst's text tables: a header row and data rows, columns two spaces apart,
// each padded to its widest cell as a terminal shows it (display_width: UTF-8 aware, wide East
// Asian characters count two, combining marks none), so long or non-ASCII names never shift the
// columns after them. Every text table of `burst` is printed by it. Numbers are right-aligned by
// declaring their column kRight.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace burst {

// Columns a terminal uses for `text` (UTF-8; an invalid byte counts one).
size_t display_width(std::string_view text);

// `line` wrapped at spaces so no line passes `width` columns (a word longer than that stays
// whole); continuation lines are indented by `hanging` spaces. Each line ends in '\n'. For the
// lines printed around tables (plan's chosen line, notes), which must fit as the tables do.
std::string wrap_line(const std::string& line, size_t hanging, size_t width = 120);

class Table {
 public:
  enum Align { kLeft, kRight };
  struct Column {
    std::string title;
    Align align = kLeft;
  };
  explicit Table(std::vector<Column> columns);

  // A row with fewer cells than columns is padded with empty cells.
  void add(std::vector<std::string> cells);
  // A line of text under the last row added (a reason, a note), indented by kNoteIndent and
  // wrapped at spaces to kWidth columns; it does not widen any column.
  void note(const std::string& text);
  static constexpr size_t kNoteIndent = 5;
  static constexpr size_t kWidth = 120;
  bool empty() const { return rows_.empty(); }
  // The header and every row, each line ending in '\n'; no trailing spaces.
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::vector<std::string>> notes_;  // per row
};

}  // namespace burst
