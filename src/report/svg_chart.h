// Inline SVG charts for the HTML reports: no script, no external assets, every label escaped.
// Each <svg> carries class="chart" and data-chart="<kind>" so tests (and readers' tools) can
// find it in the DOM.
#pragma once

#include <string>
#include <vector>

namespace burst {

struct GanttBar {
  std::string label;   // row label, e.g. the phase name
  double start_s = 0;  // from the chart's origin
  double end_s = 0;
  std::string color;  // CSS color
  std::string tip;    // hover text (<title>)
};

// One row per bar on a shared time axis of `span_s` seconds.
std::string svg_gantt(const std::string& kind, const std::string& title,
                      const std::vector<GanttBar>& rows, double span_s);

struct BarItem {
  std::string label;
  double value = 0;
  std::string value_text;  // printed at the bar's end
  std::string color;
};

// Horizontal bars scaled to the largest value.
std::string svg_bars(const std::string& kind, const std::string& title,
                     const std::vector<BarItem>& items);

struct LineSeries {
  std::string name;
  std::string color;
  std::vector<double> y;  // one value per x slot; negative = no point
  bool dashed = false;    // a reference line (a cap, a threshold): dashed, no point markers
  bool hollow = false;    // ring markers, so a point under another series' point still shows
};

// The axes' titles, printed under the x axis and along the y axis ("" none).
struct LineAxes {
  std::string x_title;        // "day (UTC)"
  std::string y_title;        // "US $"
  std::string y_suffix = {};  // after each y value, e.g. "%" ("" none; with one, whole labels)
  double y_floor = 0;         // the y axis reaches at least this (100 for percentages)
};

// Lines over `x_labels.size()` evenly spaced slots (e.g. days), with a legend, y gridlines at
// quarters of the maximum labelled with `y_unit` before and `axes.y_suffix` after the value, and
// up to 8 x labels. A dashed series (a cap, a target) is also labelled with its name at its right
// end (<text class="ref">).
std::string svg_lines(const std::string& kind, const std::string& title,
                      const std::vector<std::string>& x_labels,
                      const std::vector<LineSeries>& series, const std::string& y_unit,
                      const LineAxes& axes = {});

// A fixed palette, cycled.
const std::string& chart_color(size_t i);

}  // namespace burst
