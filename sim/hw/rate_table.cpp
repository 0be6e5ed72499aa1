#include "sim/hw/rate_table.hpp"

#include <algorithm>
#include <cmath>

#include "sim/engine/check.hpp"

namespace stepsim::hw {

namespace {

// Solves A·c = b (n×n, row-major) by Gaussian elimination with partial pivoting; false when
// singular.
bool solve(std::vector<double> a, std::vector<double> b, std::vector<double>& c) {
  const std::size_t n = b.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t p = i;
    for (std::size_t r = i + 1; r < n; ++r)
      if (std::abs(a[r * n + i]) > std::abs(a[p * n + i])) p = r;
    if (std::abs(a[p * n + i]) < 1e-9) return false;
    for (std::size_t j = 0; j < n; ++j) std::swap(a[i * n + j], a[p * n + j]);
    std::swap(b[i], b[p]);
    for (std::size_t r = 0; r < n; ++r) {
      if (r == i) continue;
      const double f = a[r * n + i] / a[i * n + i];
      for (std::size_t j = 0; j < n; ++j) a[r * n + j] -= f * a[i * n + j];
      b[r] -= f * b[i];
    }
  }
  c.resize(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = b[i] / a[i * n + i];
  return true;
}

}  // namespace

RateTable::RateTable(int dims, std::vector<int> trend) : dims_(dims), trend_(std::move(trend)) {
  for (int t : trend_) STEPSIM_CHECK(t >= 0 && t < dims_, "trend coordinate out of range");
}

std::vector<double> RateTable::logs(const std::vector<double>& shape) const {
  STEPSIM_CHECK(static_cast<int>(shape.size()) == dims_, "shape of the wrong rank");
  std::vector<double> x(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) x[i] = std::log2(std::max(shape[i], 1e-30));
  return x;
}

void RateTable::add(const std::vector<double>& shape, double value) {
  STEPSIM_CHECK(value > 0.0, "a table value must be positive");
  xs_.push_back(logs(shape));
  values_.push_back(value);
  max_value_ = std::max(max_value_, value);
}

double RateTable::trend_at(const std::vector<double>& x) const {
  double t = coef_.empty() ? 0.0 : coef_[0];
  for (std::size_t j = 1; j < coef_.size(); ++j)
    t += coef_[j] * std::clamp(x[used_[j - 1]], lo_[j - 1], hi_[j - 1]);
  return t;
}

void RateTable::fit() {
  const std::size_t n = values_.size();
  coef_.assign(1, 0.0);
  used_.clear();
  if (n == 0) return;
  double mean = 0.0;
  for (double v : values_) mean += std::log(v);
  coef_[0] = mean / static_cast<double>(n);
  // The trend uses the coordinates the rows vary in.
  for (int t : trend_)
    for (std::size_t i = 1; i < n; ++i)
      if (std::abs(xs_[i][t] - xs_[0][t]) > 1e-9) {
        used_.push_back(t);
        break;
      }
  const std::size_t terms = used_.size() + 1;
  if (n > terms) {
    // Normal equations of the least-squares fit of log v to (1, x_t...).
    std::vector<double> a(terms * terms, 0.0), b(terms, 0.0), c;
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<double> f(terms, 1.0);
      for (std::size_t j = 1; j < terms; ++j) f[j] = xs_[i][used_[j - 1]];
      for (std::size_t r = 0; r < terms; ++r) {
        b[r] += f[r] * std::log(values_[i]);
        for (std::size_t s = 0; s < terms; ++s) a[r * terms + s] += f[r] * f[s];
      }
    }
    if (solve(a, b, c)) coef_ = c;
  }
  if (coef_.size() != terms) used_.clear();
  lo_.assign(used_.size(), 1e300);
  hi_.assign(used_.size(), -1e300);
  for (std::size_t j = 0; j < used_.size(); ++j)
    for (const auto& x : xs_) {
      lo_[j] = std::min(lo_[j], x[used_[j]]);
      hi_[j] = std::max(hi_[j], x[used_[j]]);
    }
  residuals_.resize(n);
  for (std::size_t i = 0; i < n; ++i) residuals_[i] = std::log(values_[i]) - trend_at(xs_[i]);
}

double RateTable::at(const std::vector<double>& shape) const {
  STEPSIM_CHECK(!values_.empty() && residuals_.size() == values_.size(), "table not fitted");
  const std::vector<double> x = logs(shape);
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < xs_.size(); ++i) {
    double d2 = 0.0;
    for (int j = 0; j < dims_; ++j) d2 += (x[j] - xs_[i][j]) * (x[j] - xs_[i][j]);
    if (d2 < 1e-18) return values_[i];
    num += residuals_[i] / d2;
    den += 1.0 / d2;
  }
  return std::min(max_value_, std::exp(trend_at(x) + num / den));
}

std::size_t RateTable::nearest(const std::vector<double>& shape) const {
  const std::vector<double> x = logs(shape);
  std::size_t best = 0;
  double best_d2 = 1e300;
  for (std::size_t i = 0; i < xs_.size(); ++i) {
    double d2 = 0.0;
    for (int j = 0; j < dims_; ++j) d2 += (x[j] - xs_[i][j]) * (x[j] - xs_[i][j]);
    if (d2 < best_d2) best = i, best_d2 = d2;
  }
  return best;
}

bool RateTable::exact(const std::vector<double>& shape) const {
  return !xs_.empty() && [&] {
    const std::vector<double> x = logs(shape);
    const auto& n = xs_[nearest(shape)];
    for (int j = 0; j < dims_; ++j)
      if (std::abs(n[j] - x[j]) > 1e-9) return false;
    return true;
  }();
}

}  // namespace stepsim::hw
