// libpq, loaded on first use (src/util/dynlib.h says why): with its dependencies (Kerberos, LDAP,
// GnuTLS, ...) it is 20+ shared objects that every `burst` command would otherwise load at start,
// though only a team's PostgreSQL store uses it. The PostgreSQL adapter includes
// "store/libpq_calls.h" for the functions; libpq-fe.h gives the types. Every libpq function burst
// calls must be listed in BURST_LIBPQ_FUNCTIONS: a link error "undefined reference to `PQ...`"
// means one is missing here.
#pragma once

#include <libpq-fe.h>

#include "burst/result.h"

#define BURST_LIBPQ_FUNCTIONS(X) \
  X(PQclear)                     \
  X(PQcmdTuples)                 \
  X(PQconnectdb)                 \
  X(PQconnectdbParams)           \
  X(PQerrorMessage)              \
  X(PQexec)                      \
  X(PQexecParams)                \
  X(PQfinish)                    \
  X(PQgetisnull)                 \
  X(PQgetlength)                 \
  X(PQgetvalue)                  \
  X(PQntuples)                   \
  X(PQreset)                     \
  X(PQresultErrorField)          \
  X(PQresultStatus)              \
  X(PQsetNoticeProcessor)        \
  X(PQstatus)

namespace burst::libpq_dl {

struct Api {
#define BURST_LIBPQ_DECLARE(fn) decltype(&::fn) fn = nullptr;
  BURST_LIBPQ_FUNCTIONS(BURST_LIBPQ_DECLARE)
#undef BURST_LIBPQ_DECLARE
};

// Loads libpq and resolves every entry point, once per process (thread-safe). kUnavailable,
// naming the library and where it was looked for, when it is not installed.
Status load();

// The entry points; valid only after load() succeeded.
const Api& api();

}  // namespace burst::libpq_dl
