#include "cli/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace tilegrid::cli {

std::string xmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string sequentialColor(double t) {
  // Control points of a viridis-like ramp, linearly interpolated.
  static constexpr std::array<std::array<double, 3>, 5> kStops = {
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  const double x = t * (kStops.size() - 1);
  const size_t i = std::min(static_cast<size_t>(x), kStops.size() - 2);
  const double f = x - static_cast<double>(i);
  std::array<int, 3> rgb{};
  for (size_t c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround(kStops[i][c] + f * (kStops[i + 1][c] - kStops[i][c])));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

Svg::Svg(double width, double height) : width_(width), height_(height) {}

void Svg::rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke,
               double stroke_width, const std::string& tooltip) {
  body_ += fmt::format(R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}" stroke="{}" stroke-width="{:.2f}")",
                       x, y, w, h, fill, stroke, stroke_width);
  body_ += tooltip.empty() ? "/>\n" : ("><title>" + xmlEscape(tooltip) + "</title></rect>\n");
}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width, bool dashed) {
  body_ += fmt::format(R"(<line x1="{:.2f}" y1="{:.2f}" x2="{:.2f}" y2="{:.2f}" stroke="{}" stroke-width="{:.2f}"{}/>)",
                       x1, y1, x2, y2, stroke, stroke_width, dashed ? R"( stroke-dasharray="6,4")" : "");
  body_ += "\n";
}

void Svg::polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
                   double stroke_width) {
  std::string coords;
  for (const auto& [x, y] : points) coords += fmt::format("{}{:.2f},{:.2f}", coords.empty() ? "" : " ", x, y);
  body_ += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{:.2f}"/>)", coords, stroke,
                       stroke_width);
  body_ += "\n";
}

void Svg::text(double x, double y, const std::string& content, double size, const std::string& anchor,
               const std::string& fill) {
  body_ += fmt::format(R"(<text x="{:.2f}" y="{:.2f}" font-size="{:.1f}" text-anchor="{}" fill="{}">{}</text>)", x, y,
                       size, anchor, fill, xmlEscape(content));
  body_ += "\n";
}

void Svg::title(const std::string& content) { title_ = content; }

std::string Svg::str() const {
  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" font-family="sans-serif">)",
      width_, height_);
  out += "\n";
  if (!title_.empty()) out += "<title>" + xmlEscape(title_) + "</title>\n";
  out += R"(<rect x="0" y="0" width="100%" height="100%" fill="white"/>)";
  out += "\n" + body_ + "</svg>\n";
  return out;
}

}  // namespace tilegrid::cli
