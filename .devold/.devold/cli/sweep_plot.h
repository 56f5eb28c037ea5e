#pragma once
#include <string>

#include "measure/grid_sweep.h"

namespace tilegrid::cli {

// TFLOP/s against the factor list, one line per method and grouped dimension, with `none` (row-
// and column-major) and cuBLAS as horizontal lines. The report must be timed.
std::string sweepPlotSvg(const runtime::SweepReport& report);

}  // namespace tilegrid::cli
