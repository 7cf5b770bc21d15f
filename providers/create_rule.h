// The create rule shared by every HTTP driver (docs/providers.md): a create is never blindly
// retried. After a failed create request this decides, from the error and the provider's own
// list, whether a pod was made after all, whether resending is safe, or whether to stop.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "burst/provider.h"
#include "burst/result.h"

namespace burst {

// How the provider's own words name things, so errors read as the user knows them.
struct CreateWords {
  const char* noun;    // "pod" | "instance"
  const char* plural;  // "pods" | "instances"
  const char* named;   // "named" | "labelled"
  const char* verb;    // "create" | "launch"
};

enum class CreateNext { kFound, kRetry, kFail };

struct AfterFailedCreate {
  CreateNext next = CreateNext::kFail;
  Pod pod;      // kFound: the pod the failed request made after all
  Error error;  // kFail: what to tell the user; kRetry: the last error, should retries run out
};

// `last`: the create request's error. `find`: the pod with this unique name in the provider's
// list, if any. Only a 5xx with no pod listed may be resent: a timeout may still become a pod.
AfterFailedCreate after_failed_create(Error last, const std::string& name, const CreateWords& words,
                                      const std::function<Result<std::optional<Pod>>()>& find);

}  // namespace burst
