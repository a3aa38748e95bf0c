#pragma once
// report.html: a page to look at, self-contained (inline SVG and CSS, no script, no network):
// the result and how far to trust it, the convergence history, the pore widths, provenance.
// Every number shown carries an id (k-mD, porosity, steps, ...) so that tests can find it.
#include <string>
#include <utility>
#include <vector>

#include "pipeline/result.hpp"

namespace rockperm::pipeline {

std::string to_html(const SampleResult& result);

// A whole page: the house style, the title (escaped here) and the body (HTML, as given).
std::string html_document(const std::string& title, const std::string& body);
// A number as text, %g with `digits` significant digits; "?" when not finite.
std::string html_number(double value, int digits = 6);

// Text for HTML: & < > " escaped.
std::string html_escape(const std::string& text);

// A chart as inline SVG: points (x, y) joined by a line or as dots, linear or logarithmic axes.
struct SvgSeries {
  std::vector<std::pair<double, double>> points;
  bool line = true;
  std::string colour = "#1f5fa8";
};
std::string svg_chart(const std::vector<SvgSeries>& series, const std::string& x_label, const std::string& y_label,
                      bool log_x = false, bool log_y = false);

}  // namespace rockperm::pipeline
