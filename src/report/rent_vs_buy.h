// Rent vs buy from history: a pipeline's (or a month's) GPU-hours on one GPU type against
// owning that GPU: its catalog purchase price straight-line over `life_years`, plus electricity
// at `usd_per_kwh` for the hours used. Formula and verdict rules: docs/reports.md.
#pragma once

#include <optional>
#include <string>

#include "burst/gpu_catalog.h"

namespace burst {

struct RentVsBuyInput {
  std::string gpu;                // catalog name
  double gpu_hours = 0;           // GPU-hours rented in the period (count x billed hours)
  double rent_usd = 0;            // what those hours cost
  double months = 1;              // the period's length in months (30.44 days)
  const GpuSpec* spec = nullptr;  // catalog entry; null when the type is not in the catalog
  double usd_per_kwh = 0.15;
  double life_years = 3;
};

struct RentVsBuy {
  std::string gpu;
  double gpu_hours_per_month = 0;
  double rent_usd_per_month = 0;
  double rent_usd_per_gpu_hour = 0;
  std::optional<double> own_usd_per_month;          // cards needed x capex/month + power
  std::optional<double> breakeven_hours_per_month;  // per card; unset if renting never costs more
  std::string verdict;                              // one line
};

RentVsBuy rent_vs_buy(const RentVsBuyInput& in);

}  // namespace burst
