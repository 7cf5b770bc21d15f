// What an hour of a GPU you own costs: the one formula `burst estimate`'s rent-vs-buy
// (plan/estimate.h) and your own hosts' offers (providers/ssh/) both price with
// (docs/cost-model.md, "Owning"). Straight-line depreciation over the card's life, spread over the
// hours it is busy, plus its power draw at the electricity price.
#pragma once

namespace burst {

inline constexpr double kHoursPerYear = 8760;

// Electricity for `watts` drawn for one hour at `usd_per_kwh`.
inline double power_cost_per_hour(double watts, double usd_per_kwh) {
  return watts / 1000.0 * usd_per_kwh;
}

// purchase / (life hours x utilization) + power per hour; the purchase share is 0 when the card
// is never busy (utilization or life 0), so a free or unpriced card costs its power alone.
inline double owned_usd_per_hour(double purchase_usd, double life_years, double utilization,
                                 double power_usd_per_hour) {
  const double busy_h = life_years * kHoursPerYear * utilization;
  return (busy_h > 0 ? purchase_usd / busy_h : 0) + power_usd_per_hour;
}

}  // namespace burst
