// Reading integers out of numbers a provider sent (JSON numbers are doubles, or strings read with
// atof). A static_cast of a double outside the target type's range is undefined behaviour; the
// vast_json fuzzer found one ("num_gpus": 22293372036).
#pragma once

#include <cmath>
#include <limits>
#include <optional>

namespace burst {

// v as T when it is a whole number within T's range (T a signed integer type); nullopt otherwise.
template <typename T>
std::optional<T> whole_number(double v) {
  static_assert(std::numeric_limits<T>::is_integer && std::numeric_limits<T>::is_signed);
  // min() is -2^(bits-1), a double exactly; -min() is max() + 1.
  const double lo = static_cast<double>(std::numeric_limits<T>::min());
  if (!std::isfinite(v) || v != std::trunc(v) || v < lo || v >= -lo) return std::nullopt;
  return static_cast<T>(v);
}

// A TCP port (1-65535) or 0 when v is not one.
inline int port_number(double v) {
  std::optional<int> p = whole_number<int>(v);
  return p && *p >= 1 && *p <= 65535 ? *p : 0;
}

}  // namespace burst
