#include "cli/sweep_plot.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cli/svg.h"
#include "tilegrid/ir/check.h"

namespace tilegrid::cli {

namespace {

std::string factorLabel(const std::vector<int64_t>& factors) { return fmt::format("{}", fmt::join(factors, ",")); }

// A tick step of 1, 2 or 5 times a power of ten giving about `ticks` ticks over `span`.
double niceStep(double span, int ticks) {
  const double raw = span / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

}  // namespace

std::string sweepPlotSvg(const runtime::SweepReport& report) {
  TG_USER_CHECK(report.timed) << "a sweep plot needs measured times; this sweep did not run on a GPU";
  // Factor lists in the order they first appear in the candidates (sorted by product, then length).
  std::vector<std::vector<int64_t>> factor_lists;
  std::map<std::string, std::map<std::string, const runtime::SweepEntry*>> series;  // "method/group" -> factors -> entry
  std::vector<const runtime::SweepEntry*> nones;
  double lo = report.cublas->tflops, hi = report.cublas->tflops;
  for (const runtime::SweepEntry& e : report.entries) {
    lo = std::min(lo, e.timing->tflops);
    hi = std::max(hi, e.timing->tflops);
    if (e.traversal.method == scheduler::GridMethod::None) {
      nones.push_back(&e);
      continue;
    }
    if (std::find(factor_lists.begin(), factor_lists.end(), e.traversal.factors) == factor_lists.end()) {
      factor_lists.push_back(e.traversal.factors);
    }
    series[fmt::format("{} / group {}", scheduler::toString(e.traversal.method), scheduler::toString(e.traversal.group))]
          [factorLabel(e.traversal.factors)] = &e;
  }
  auto product = [](const std::vector<int64_t>& f) {
    int64_t p = 1;
    for (int64_t x : f) p *= x;
    return p;
  };
  std::stable_sort(factor_lists.begin(), factor_lists.end(), [&](const auto& a, const auto& b) {
    return product(a) != product(b) ? product(a) < product(b) : a.size() < b.size();
  });

  const double step = niceStep(std::max(hi - lo, hi * 0.02), 6);
  const double y_lo = std::max(0.0, std::floor((lo - step / 2) / step) * step);
  const double y_hi = std::ceil((hi + step / 4) / step) * step;
  const double left = 72, top = 70, plot_w = 560, plot_h = 320, legend_w = 230;
  Svg svg(left + plot_w + legend_w + 20, top + plot_h + 70);
  const std::string heading =
      fmt::format("{} on {} ({})", report.problem.toString(), report.device.name, scheduler::toString(report.arch));
  svg.title("grid sweep: " + heading);
  svg.text(left, 24, "Grid traversal sweep: TFLOP/s by swizzle factor", 15);
  svg.text(left, 44, heading, 11);
  auto x_of = [&](size_t i) {
    return left + (factor_lists.size() <= 1 ? plot_w / 2 : plot_w * (0.04 + 0.92 * i / (factor_lists.size() - 1.0)));
  };
  auto y_of = [&](double tflops) { return top + plot_h * (1 - (tflops - y_lo) / (y_hi - y_lo)); };
  for (double v = y_lo; v <= y_hi + step / 100; v += step) {
    svg.line(left, y_of(v), left + plot_w, y_of(v), "#ddd", 1);
    svg.text(left - 8, y_of(v) + 4, fmt::format("{:g}", v), 11, "end");
  }
  svg.line(left, top, left, top + plot_h, "#444", 1);
  svg.line(left, top + plot_h, left + plot_w, top + plot_h, "#444", 1);
  for (size_t i = 0; i < factor_lists.size(); ++i) {
    svg.text(x_of(i), top + plot_h + 18, factorLabel(factor_lists[i]), 11, "middle");
  }
  svg.text(left + plot_w / 2, top + plot_h + 40, "factor (list)", 12, "middle");
  svg.text(18, top + plot_h / 2, "TFLOP/s", 12, "middle");

  static const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"};
  double legend_y = top + 10;
  auto legend = [&](const std::string& color, const std::string& label, bool dashed) {
    svg.line(left + plot_w + 20, legend_y, left + plot_w + 44, legend_y, color, 2.5, dashed);
    svg.text(left + plot_w + 50, legend_y + 4, label, 11);
    legend_y += 20;
  };
  auto horizontal = [&](double tflops, const std::string& color, const std::string& label) {
    svg.line(left, y_of(tflops), left + plot_w, y_of(tflops), color, 2, true);
    legend(color, fmt::format("{} ({:.0f})", label, tflops), true);
  };
  horizontal(report.cublas->tflops, "#d62728", "cuBLAS");
  for (const runtime::SweepEntry* none : nones) {
    horizontal(none->timing->tflops, none->traversal.group == scheduler::GridGroup::M ? "#7f7f7f" : "#bcbd22",
               fmt::format("none / group {}", scheduler::toString(none->traversal.group)));
  }
  size_t color = 0;
  for (const auto& [name, by_factor] : series) {
    const std::string c = kColors[color++ % std::size(kColors)];
    std::vector<std::pair<double, double>> points;
    for (size_t i = 0; i < factor_lists.size(); ++i) {
      const auto it = by_factor.find(factorLabel(factor_lists[i]));
      if (it == by_factor.end()) continue;
      const runtime::SweepEntry& e = *it->second;
      points.emplace_back(x_of(i), y_of(e.timing->tflops));
      svg.rect(x_of(i) - 3.5, y_of(e.timing->tflops) - 3.5, 7, 7, c, "none", 0,
               fmt::format("{}: {:.1f} TFLOP/s, {:.3f} ms, {} wasted tiles", e.traversal.toString(),
                           e.timing->tflops, e.timing->median_ms, e.wasted_tiles));
    }
    svg.polyline(points, c, 2);
    legend(c, name, false);
  }
  const runtime::SweepEntry& best = report.entries.front();
  svg.text(left, top + plot_h + 62,
           fmt::format("best: {} at {:.1f} TFLOP/s ({:.2f}x cuBLAS); the L2 model's choice ranks {} of {}",
                       best.traversal.toString(), best.timing->tflops, best.timing->tflops / report.cublas->tflops,
                       report.heuristicRank(), report.entries.size()),
           11);
  return svg.str();
}

}  // namespace tilegrid::cli
