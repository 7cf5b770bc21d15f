// What the libcurl adapter includes instead of <curl/curl.h>: the library's own types and
// constants, with each function name redirected to the table loaded by libcurl_dl::load().
#pragma once

#include "http/libcurl_api.h"

// clang-format off
#define curl_easy_cleanup (::burst::libcurl_dl::api().curl_easy_cleanup)
#define curl_easy_getinfo (::burst::libcurl_dl::api().curl_easy_getinfo)
#define curl_easy_init (::burst::libcurl_dl::api().curl_easy_init)
#define curl_easy_perform (::burst::libcurl_dl::api().curl_easy_perform)
#define curl_easy_reset (::burst::libcurl_dl::api().curl_easy_reset)
#define curl_easy_setopt (::burst::libcurl_dl::api().curl_easy_setopt)
#define curl_easy_strerror (::burst::libcurl_dl::api().curl_easy_strerror)
#define curl_free (::burst::libcurl_dl::api().curl_free)
#define curl_global_init (::burst::libcurl_dl::api().curl_global_init)
#define curl_slist_append (::burst::libcurl_dl::api().curl_slist_append)
#define curl_slist_free_all (::burst::libcurl_dl::api().curl_slist_free_all)
#define curl_url (::burst::libcurl_dl::api().curl_url)
#define curl_url_cleanup (::burst::libcurl_dl::api().curl_url_cleanup)
#define curl_url_get (::burst::libcurl_dl::api().curl_url_get)
#define curl_url_set (::burst::libcurl_dl::api().curl_url_set)
// clang-format on
