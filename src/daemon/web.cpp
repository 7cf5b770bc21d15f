#include "daemon/web.h"

#include "daemon/dashboard.h"

namespace burst::daemon {

Web::Web(MetricsDeps metrics, std::unique_ptr<Dashboard> dashboard)
    : metrics_(std::move(metrics)), dashboard_(std::move(dashboard)) {}

Web::~Web() = default;

std::optional<ApiResponse> Web::handle(const ApiRequest& r) {
  if (r.path == "/metrics" && r.method == "GET") {
    ApiResponse out;
    out.body = metrics_.render();
    out.content_type = Metrics::kContentType;
    return out;
  }
  if (dashboard_ &&
      (r.path == "/" || r.path == "/favicon.ico" || r.path.rfind("/dashboard", 0) == 0))
    return dashboard_->handle(r);
  return std::nullopt;
}

}  // namespace burst::daemon
