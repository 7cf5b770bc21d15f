// What the PostgreSQL adapter (and its test server) includes instead of calling libpq directly:
// libpq-fe.h's types and constants, with each function name redirected to the table loaded by
// libpq_dl::load(). Call load() before the first of them (pg::connect does).
#pragma once

#include "store/libpq_api.h"

// clang-format off
#define PQclear (::burst::libpq_dl::api().PQclear)
#define PQcmdTuples (::burst::libpq_dl::api().PQcmdTuples)
#define PQconnectdb (::burst::libpq_dl::api().PQconnectdb)
#define PQconnectdbParams (::burst::libpq_dl::api().PQconnectdbParams)
#define PQerrorMessage (::burst::libpq_dl::api().PQerrorMessage)
#define PQexec (::burst::libpq_dl::api().PQexec)
#define PQexecParams (::burst::libpq_dl::api().PQexecParams)
#define PQfinish (::burst::libpq_dl::api().PQfinish)
#define PQgetisnull (::burst::libpq_dl::api().PQgetisnull)
#define PQgetlength (::burst::libpq_dl::api().PQgetlength)
#define PQgetvalue (::burst::libpq_dl::api().PQgetvalue)
#define PQntuples (::burst::libpq_dl::api().PQntuples)
#define PQreset (::burst::libpq_dl::api().PQreset)
#define PQresultErrorField (::burst::libpq_dl::api().PQresultErrorField)
#define PQresultStatus (::burst::libpq_dl::api().PQresultStatus)
#define PQsetNoticeProcessor (::burst::libpq_dl::api().PQsetNoticeProcessor)
#define PQstatus (::burst::libpq_dl::api().PQstatus)
// clang-format on
