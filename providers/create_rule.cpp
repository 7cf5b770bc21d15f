#include "create_rule.h"

namespace burst {

AfterFailedCreate after_failed_create(Error last, const std::string& name, const CreateWords& w,
                                      const std::function<Result<std::optional<Pod>>()>& find) {
  AfterFailedCreate out;
  const ErrorCode c = last.code;
  if (c == ErrorCode::kTimeout || c == ErrorCode::kUnavailable) {
    // The create may have reached the provider: a pod with this unique name decides.
    auto mine = find();
    if (!mine.ok()) {
      last.message +=
          std::string("; and listing ") + w.plural + " to check failed: " + mine.error().message;
    } else if (mine->has_value()) {
      out.next = CreateNext::kFound;
      out.pod = **mine;
      return out;
    } else if (c == ErrorCode::kTimeout) {
      last.message += std::string("; no ") + w.noun + " " + w.named + " " + name +
                      " is listed yet, so the " + w.verb +
                      " was not repeated (`burst reap` checks again)";
    } else {
      out.next = CreateNext::kRetry;
    }
  }
  out.error = std::move(last);
  return out;
}

}  // namespace burst
