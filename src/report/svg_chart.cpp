#include "report/svg_chart.h"

#include <algorithm>
#include <sstream>

#include "report/report_format.h"

namespace burst {
using report_fmt::fixed;
using report_fmt::html;

namespace {

constexpr double kWidth = 760;
constexpr double kLabelW = 150;
constexpr double kRowH = 22;
constexpr double kTop = 28;

std::string open_svg(const std::string& kind, const std::string& title, double height) {
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"" << html(kind)
    << "\" role=\"img\" width=\"" << kWidth << "\" height=\"" << fixed(height, 0)
    << "\" viewBox=\"0 0 " << kWidth << " " << fixed(height, 0) << "\"><title>" << html(title)
    << "</title><text x=\"0\" y=\"16\" class=\"ct\">" << html(title) << "</text>";
  return o.str();
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start") {
  return "<text x=\"" + fixed(x, 1) + "\" y=\"" + fixed(y, 1) + "\" text-anchor=\"" + anchor +
         "\">" + html(s) + "</text>";
}

}  // namespace

const std::string& chart_color(size_t i) {
  static const std::vector<std::string> kPalette = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                                    "#76b7b2", "#edc948", "#b07aa1", "#9c755f"};
  return kPalette[i % kPalette.size()];
}

std::string svg_gantt(const std::string& kind, const std::string& title,
                      const std::vector<GanttBar>& rows, double span_s) {
  const double plot_w = kWidth - kLabelW - 10;
  const double height = kTop + kRowH * static_cast<double>(rows.size()) + 24;
  const double scale = span_s > 0 ? plot_w / span_s : 0;
  std::ostringstream o;
  o << open_svg(kind, title, height);
  for (size_t i = 0; i < rows.size(); ++i) {
    const GanttBar& b = rows[i];
    const double y = kTop + kRowH * static_cast<double>(i);
    const double x = kLabelW + std::max(0.0, b.start_s) * scale;
    const double w = std::max(1.0, (b.end_s - b.start_s) * scale);
    o << text(kLabelW - 6, y + 15, b.label, "end") << "<rect x=\"" << fixed(x, 1) << "\" y=\""
      << fixed(y + 3, 1) << "\" width=\"" << fixed(w, 1) << "\" height=\"" << kRowH - 6
      << "\" fill=\"" << html(b.color) << "\"><title>" << html(b.tip) << "</title></rect>";
  }
  const double axis_y = height - 8;
  o << text(kLabelW, axis_y, "0 s")
    << text(kWidth - 10, axis_y, report_fmt::duration(span_s), "end") << "</svg>";
  return o.str();
}

std::string svg_bars(const std::string& kind, const std::string& title,
                     const std::vector<BarItem>& items) {
  const double plot_w = kWidth - kLabelW - 110;
  double max = 0;
  for (const BarItem& b : items) max = std::max(max, b.value);
  const double height = kTop + kRowH * static_cast<double>(items.size()) + 8;
  std::ostringstream o;
  o << open_svg(kind, title, height);
  for (size_t i = 0; i < items.size(); ++i) {
    const BarItem& b = items[i];
    const double y = kTop + kRowH * static_cast<double>(i);
    const double w = max > 0 ? std::max(b.value > 0 ? 1.0 : 0.0, b.value / max * plot_w) : 0;
    o << text(kLabelW - 6, y + 15, b.label, "end") << "<rect x=\"" << kLabelW << "\" y=\""
      << fixed(y + 3, 1) << "\" width=\"" << fixed(w, 1) << "\" height=\"" << kRowH - 6
      << "\" fill=\"" << html(b.color) << "\"><title>" << html(b.label + ": " + b.value_text)
      << "</title></rect>" << text(kLabelW + w + 6, y + 15, b.value_text);
  }
  o << "</svg>";
  return o.str();
}

std::string svg_lines(const std::string& kind, const std::string& title,
                      const std::vector<std::string>& x_labels,
                      const std::vector<LineSeries>& series, const std::string& y_unit,
                      const LineAxes& axes) {
  // Room for the y labels ("$0.0150") and, left of them, the y title turned on its side.
  const double left = axes.y_title.empty() ? 60 : 96, right = 10, plot_h = 200;
  const double x_title_h = axes.x_title.empty() ? 0 : 18;
  const double legend_h = 18 * static_cast<double>(series.size());
  const double height = kTop + plot_h + 24 + x_title_h + legend_h;
  const double plot_w = kWidth - left - right;
  double max = std::max(0.0, axes.y_floor);
  for (const LineSeries& s : series)
    for (double v : s.y) max = std::max(max, v);
  if (!(max > 0)) max = 1;
  const size_t n = x_labels.size();
  auto px = [&](size_t i) { return left + (n > 1 ? plot_w * i / (n - 1) : plot_w / 2); };
  auto py = [&](double v) { return kTop + plot_h - v / max * plot_h; };
  std::ostringstream o;
  o << open_svg(kind, title, height);
  for (int q = 0; q <= 4; ++q) {  // gridlines and y labels at quarters of the maximum
    const double v = max * q / 4, y = py(v);
    o << "<line x1=\"" << left << "\" y1=\"" << fixed(y, 1) << "\" x2=\"" << kWidth - right
      << "\" y2=\"" << fixed(y, 1) << "\" stroke=\"" << (q == 0 ? "#888" : "#e4e4e4") << "\"/>"
      << text(left - 4, y + 4,
              y_unit +
                  fixed(v, !axes.y_suffix.empty() ? 0
                           : max < 1              ? 4
                                                  : 2) +
                  axes.y_suffix,
              "end");
  }
  o << "<line x1=\"" << left << "\" y1=\"" << kTop << "\" x2=\"" << left << "\" y2=\""
    << kTop + plot_h << "\" stroke=\"#888\"/>";
  const size_t step = n > 8 ? (n + 7) / 8 : 1;
  for (size_t i = 0; i < n; ++i)
    // Every step-th label and the last, but none so close to the last that they overlap.
    if ((i % step == 0 && (step == 1 || i + step / 2 < n - 1)) || i + 1 == n)
      o << text(px(i), kTop + plot_h + 16, x_labels[i],
                n == 1       ? "middle"
                : i == 0     ? "start"
                : i + 1 == n ? "end"
                             : "middle");
  if (!axes.x_title.empty())
    o << text(left + plot_w / 2, kTop + plot_h + 34, axes.x_title, "middle");
  if (!axes.y_title.empty())
    o << "<text x=\"14\" y=\"" << fixed(kTop + plot_h / 2, 1)
      << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << fixed(kTop + plot_h / 2, 1)
      << ")\">" << html(axes.y_title) << "</text>";
  for (size_t k = 0; k < series.size(); ++k) {
    const LineSeries& s = series[k];
    std::string points;
    for (size_t i = 0; i < s.y.size() && i < n; ++i)
      if (s.y[i] >= 0) points += fixed(px(i), 1) + "," + fixed(py(s.y[i]), 1) + " ";
    // One slot: a dashed reference still spans the plot, so it reads as a line, not a dot.
    if (s.dashed && n == 1 && !s.y.empty() && s.y[0] >= 0)
      points = fixed(left, 1) + "," + fixed(py(s.y[0]), 1) + " " + fixed(kWidth - right, 1) + "," +
               fixed(py(s.y[0]), 1);
    o << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << html(s.color) << "\""
      << (s.dashed ? " stroke-dasharray=\"6 4\"" : "") << " points=\"" << points << "\"><title>"
      << html(s.name) << "</title></polyline>";
    for (size_t i = 0; i < s.y.size() && i < n && !s.dashed; ++i)
      if (s.y[i] >= 0)
        o << "<circle cx=\"" << fixed(px(i), 1) << "\" cy=\"" << fixed(py(s.y[i]), 1)
          << (s.hollow ? "\" r=\"6\" stroke-width=\"2\" fill=\"none\" stroke=\""
                       : "\" r=\"3\" fill=\"")
          << html(s.color) << "\"><title>"
          << html(s.name + " " + x_labels[i] + ": " + y_unit +
                  fixed(s.y[i], axes.y_suffix.empty() ? 4 : 1) + axes.y_suffix)
          << "</title></circle>";
    // A reference line says what it is where it ends, above the line.
    double ref_y = -1;
    for (size_t i = 0; i < s.y.size() && i < n && s.dashed; ++i)
      if (s.y[i] >= 0) ref_y = s.y[i];
    if (ref_y >= 0)
      o << "<text x=\"" << fixed(kWidth - right - 2, 1) << "\" y=\"" << fixed(py(ref_y) - 5, 1)
        << "\" text-anchor=\"end\" class=\"ref\" fill=\"" << html(s.color) << "\">" << html(s.name)
        << "</text>";
    const double ly = kTop + plot_h + x_title_h + 34 + 18 * static_cast<double>(k);
    o << "<rect x=\"" << left << "\" y=\"" << ly - 10 << "\" width=\"12\" height=\"10\" fill=\""
      << html(s.color) << "\"/>" << text(left + 18, ly, s.name);
  }
  o << "</svg>";
  return o.str();
}

}  // namespace burst
