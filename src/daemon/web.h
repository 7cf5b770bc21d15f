// burstd's pages outside the JSON API (/v1): GET /metrics (daemon/metrics.h) and the dashboard
// under /dashboard (daemon/dashboard.h). Installed into the Api (Api::set_web), so they are
// served on the same listeners with the same auth as the API.
#pragma once

#include <memory>
#include <optional>

#include "daemon/api.h"
#include "daemon/metrics.h"

namespace burst::daemon {

class Dashboard;

class Web {
 public:
  Web(MetricsDeps metrics, std::unique_ptr<Dashboard> dashboard);
  ~Web();
  std::optional<ApiResponse> handle(const ApiRequest& request);
  Metrics& metrics() { return metrics_; }

 private:
  Metrics metrics_;
  std::unique_ptr<Dashboard> dashboard_;
};

}  // namespace burst::daemon
