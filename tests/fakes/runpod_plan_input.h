// The planner input most history tests start from: one live RunPod RTX 4090 offer at $0.69/h
// (the registry row's traits attached, as offers.cpp does), RunPod the only allowed provider.
#pragma once

#include "burst/provider.h"
#include "plan/planner.h"
#include "registry.h"

namespace burst {

inline PlanInput runpod_4090_plan_input(int max_workers = PlanInput{}.max_workers) {
  PlanInput in;
  in.providers = {"runpod"};
  in.max_workers = max_workers;
  Offer o;
  o.provider = "runpod";
  o.traits = find_provider_traits("runpod");
  o.gpu_type = "RTX_4090";
  o.gpu_count = 1;
  o.vram_gb = 24;
  o.usd_per_hour = 0.69;
  o.price_source = "live offer";
  in.gpu_offers = {o};
  return in;
}

}  // namespace burst
