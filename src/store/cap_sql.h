// The SQL of the stored budget caps (Store::set_cap, caps, cap_changes), written once for both
// dialects: each runs these statements unchanged (positional "?" parameters; the PostgreSQL
// side turns them into $n). A removed or absent value in the audit is stored as -1 (a cap is
// never negative), so neither side binds NULL.
#pragma once

namespace burst::store_sql {

inline constexpr const char* kCapOld =
    "SELECT usd FROM budget_caps WHERE scope = ? AND subject = ? AND period = ?";
inline constexpr const char* kCapUpsert =
    "INSERT INTO budget_caps (scope, subject, period, usd, set_by, set_ms) VALUES "
    "(?, ?, ?, ?, ?, ?) ON CONFLICT (scope, subject, period) DO UPDATE SET usd = excluded.usd, "
    "set_by = excluded.set_by, set_ms = excluded.set_ms";
inline constexpr const char* kCapDelete =
    "DELETE FROM budget_caps WHERE scope = ? AND subject = ? AND period = ?";
inline constexpr const char* kCapAudit =
    "INSERT INTO budget_cap_changes (scope, subject, period, old_usd, new_usd, set_by, at_ms) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)";
inline constexpr const char* kCapList =
    "SELECT scope, subject, period, usd, set_by, set_ms FROM budget_caps "
    "ORDER BY scope, subject, period";
inline constexpr const char* kCapChanges =
    "SELECT scope, subject, period, old_usd, new_usd, set_by, at_ms FROM budget_cap_changes "
    "ORDER BY seq DESC LIMIT ?";

// -1 in the audit: no value (util for both readers).
inline constexpr double kNoCap = -1;

}  // namespace burst::store_sql
