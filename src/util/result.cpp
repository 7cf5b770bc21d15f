#include "burst/result.h"

namespace burst {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalid:
      return "invalid";
    case ErrorCode::kAuth:
      return "auth";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kNoCapacity:
      return "no capacity";
    case ErrorCode::kRateLimited:
      return "rate limited";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kTimeout:
      return "timeout";
    case ErrorCode::kConnection:
      return "connection";
    case ErrorCode::kInterrupted:
      return "interrupted";
    case ErrorCode::kRemoteFailed:
      return "remote command failed";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "unknown";
}

}  // namespace burst
