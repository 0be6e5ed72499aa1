// Interpolation between measured points: a value (a kernel's rate, or a fraction of a bound) at
// a shape, from the rows of a calibration table.
//
// Shapes are compared in log2 space: x = (log2 s_1, ..., log2 s_d). The value is interpolated as
//     log v(x) = T(x) + Σ_i w_i(x) · (log v_i − T(x_i)) / Σ_i w_i(x),   w_i = 1 / |x − x_i|²
// a least-squares linear trend T in the `trend` coordinates (log-log: a power law in them) plus
// the rows' residuals from it, spread by inverse squared distance (Shepard's method). At a row
// the weight of that row is infinite, so every row is reproduced exactly; between rows the value
// follows the trend, bent towards the nearest rows. Beyond the rows' range in a trend coordinate
// the trend holds its value at the edge (no extrapolation of a slope the rows do not show there),
// and the result is clamped to (0, the largest value of the table]: no shape beats the best
// measured.
// The trend carries what Shepard's method alone cannot: a smooth dependence the rows sample
// sparsely (a GEMM's efficiency rising with its reduction depth), so that leaving a row out
// predicts it from its neighbours' slope rather than from their mean.
// A trend coordinate all rows share is dropped; with no more rows than trend terms the trend is a
// constant (the mean of log v).
#pragma once

#include <cstddef>
#include <vector>

namespace stepsim::hw {

class RateTable {
 public:
  // `dims` coordinates per shape; `trend`: the indices of those the trend is linear in.
  RateTable(int dims, std::vector<int> trend);

  void add(const std::vector<double>& shape, double value);  // shape entries > 0, value > 0
  void fit();                                                // after the last add
  double at(const std::vector<double>& shape) const;

  std::size_t size() const { return values_.size(); }
  // The row nearest to `shape` in log space (ties: the first).
  std::size_t nearest(const std::vector<double>& shape) const;
  // Whether `shape` is one of the rows.
  bool exact(const std::vector<double>& shape) const;

 private:
  std::vector<double> logs(const std::vector<double>& shape) const;
  double trend_at(const std::vector<double>& x) const;

  int dims_;
  std::vector<int> trend_, used_;        // trend coordinates asked for; those the rows vary in
  std::vector<double> lo_, hi_;          // the rows' range in each used trend coordinate
  std::vector<std::vector<double>> xs_;  // the rows in log2 space
  std::vector<double> values_, residuals_;
  std::vector<double> coef_;  // constant, then one per trend coordinate
  double max_value_ = 0.0;
};

}  // namespace stepsim::hw
