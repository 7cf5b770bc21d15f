#include "report/rent_vs_buy.h"

#include <cmath>

#include "report/report_format.h"

namespace burst {
using report_fmt::fixed;
using report_fmt::money;

namespace {
constexpr double kHoursPerMonth = 730;  // 8760 / 12
}

RentVsBuy rent_vs_buy(const RentVsBuyInput& in) {
  RentVsBuy r;
  r.gpu = in.gpu;
  const double months = in.months > 0 ? in.months : 1;
  r.gpu_hours_per_month = in.gpu_hours / months;
  r.rent_usd_per_month = in.rent_usd / months;
  r.rent_usd_per_gpu_hour = in.gpu_hours > 0 ? in.rent_usd / in.gpu_hours : 0;
  const std::string use = fixed(r.gpu_hours_per_month, 1) + " GPU-h/month";
  if (!in.spec || !in.spec->purchase_usd) {
    r.verdict = "rent: " + use + "; no purchase price for " + in.gpu + " in the catalog";
    return r;
  }
  const double capex_month = *in.spec->purchase_usd / (in.life_years * 12);
  const double power_h = in.spec->tdp_w / 1000.0 * in.usd_per_kwh;
  const double cards = std::max(1.0, std::ceil(r.gpu_hours_per_month / kHoursPerMonth));
  r.own_usd_per_month = cards * capex_month + power_h * r.gpu_hours_per_month;
  if (r.rent_usd_per_gpu_hour > power_h)
    r.breakeven_hours_per_month = capex_month / (r.rent_usd_per_gpu_hour - power_h);
  const std::string costs = "renting costs " + money(r.rent_usd_per_month) + "/month, owning " +
                            money(*r.own_usd_per_month) + "/month";
  if (!r.breakeven_hours_per_month) {
    r.verdict = "rent: at " + money(r.rent_usd_per_gpu_hour) +
                "/GPU-h renting costs no more than the electricity of owning";
  } else if (*r.own_usd_per_month < r.rent_usd_per_month) {
    r.verdict = "buy: " + use + " is above the break-even of " +
                fixed(*r.breakeven_hours_per_month, 0) + " h/month; " + costs;
  } else {
    r.verdict = "rent: " + use + " is below the break-even of " +
                fixed(*r.breakeven_hours_per_month, 0) + " h/month; " + costs;
  }
  return r;
}

}  // namespace burst
