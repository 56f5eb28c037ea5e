#pragma once
// A small SVG writer for tilegrid's pictures: rectangles, lines, polylines and text in user units,
// each with an optional tooltip, escaped properly. No external tools.
#include <string>
#include <utility>
#include <vector>

namespace tilegrid::cli {

class Svg {
 public:
  Svg(double width, double height);

  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "none",
            double stroke_width = 0, const std::string& tooltip = "");
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width = 1,
            bool dashed = false);
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
                double stroke_width = 1.5);
  // anchor: start | middle | end
  void text(double x, double y, const std::string& content, double size = 12, const std::string& anchor = "start",
            const std::string& fill = "#222");
  // <title> of the whole picture (shown by viewers) plus a visible heading.
  void title(const std::string& content);

  std::string str() const;

 private:
  double width_, height_;
  std::string title_;
  std::string body_;
};

// XML text escaping (&, <, >, ").
std::string xmlEscape(const std::string& text);

// A perceptually ordered colour for t in [0, 1] (dark blue -> green -> yellow), as #rrggbb.
std::string sequentialColor(double t);

}  // namespace tilegrid::cli
