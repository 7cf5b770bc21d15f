// libcurl, loaded on first use (src/util/dynlib.h says why). The HTTP adapter includes
// "http/libcurl_calls.h" instead of <curl/curl.h>. Every libcurl function burst calls must be
// listed in BURST_LIBCURL_FUNCTIONS: a link error "undefined reference to `curl_...`" means one
// is missing here.
#pragma once

#include <curl/curl.h>
// curl.h wraps these two in argument-count macros; burst calls them through the table below.
#undef curl_easy_setopt
#undef curl_easy_getinfo

#include "burst/result.h"

#define BURST_LIBCURL_FUNCTIONS(X) \
  X(curl_easy_cleanup)             \
  X(curl_easy_getinfo)             \
  X(curl_easy_init)                \
  X(curl_easy_perform)             \
  X(curl_easy_reset)               \
  X(curl_easy_setopt)              \
  X(curl_easy_strerror)            \
  X(curl_free)                     \
  X(curl_global_init)              \
  X(curl_slist_append)             \
  X(curl_slist_free_all)           \
  X(curl_url)                      \
  X(curl_url_cleanup)              \
  X(curl_url_get)                  \
  X(curl_url_set)

namespace burst::libcurl_dl {

struct Api {
#define BURST_LIBCURL_DECLARE(fn) decltype(&::fn) fn = nullptr;
  BURST_LIBCURL_FUNCTIONS(BURST_LIBCURL_DECLARE)
#undef BURST_LIBCURL_DECLARE
};

// Loads libcurl, resolves every entry point and runs curl_global_init, once per process
// (thread-safe). The error names the library and the loader's message.
Status load();

// The entry points; valid only after load() succeeded.
const Api& api();

}  // namespace burst::libcurl_dl
