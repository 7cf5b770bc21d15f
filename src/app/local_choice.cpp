#include "app/local_choice.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace burst {

std::string unchosen_here_provider(const Plan& plan, const std::vector<std::string>& named) {
  std::vector<const Offer*> offers = {&plan.gpu};
  if (plan.cpu) offers.push_back(&*plan.cpu);
  if (plan.prepare && plan.prepare->cpu) offers.push_back(&*plan.prepare->cpu);
  for (const FleetFallback& f : plan.fallbacks) offers.push_back(&f.offer);
  for (const Offer* o : offers)
    if (traits_of(*o).runs_here &&
        std::find(named.begin(), named.end(), o->provider) == named.end())
      return o->provider;
  return "";
}

std::vector<std::string> named_providers(const PipelineSpec& spec,
                                         const std::vector<std::string>& flags) {
  std::vector<std::string> named = flags;
  if (!spec.from_skypilot)
    named.insert(named.end(), spec.resources.providers.begin(), spec.resources.providers.end());
  return named;
}

std::string runs_here_line() {
  std::string user;
  if (passwd* pw = getpwuid(geteuid())) user = pw->pw_name;
  if (user.empty() && std::getenv("USER")) user = std::getenv("USER");
  if (user.empty()) user = "uid " + std::to_string(geteuid());
  return "runs on THIS machine as " + user + ", no GPU";
}

}  // namespace burst
