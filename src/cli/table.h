// The one printer of burst's text tables: a header row and data rows, columns two spaces apart,
// each padded to its widest cell as a terminal shows it (display_width: UTF-8 aware, wide East
// Asian characters count two, combining marks none), so long or non-ASCII names never shift the
// columns after them. Numbers are right-aligned by declaring their column kRight.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace burst {

// Columns a terminal uses for `text` (UTF-8; an invalid byte counts one).
size_t display_width(std::string_view text);

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
  bool empty() const { return rows_.empty(); }
  // The header and every row, each line ending in '\n'; no trailing spaces.
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace burst
