// CronExpr::parse: cronie's grammar (src/entry.c in cronie: get_list/get_range/get_number), with
// errors that name the field and column. Facts about cronie's behaviour, not its code.
#include <cctype>
#include <string>
#include <vector>

#include "schedule/civil.h"
#include "schedule/cron.h"

namespace burst::schedule {
namespace {

struct FieldSpec {
  CronField field;
  int min, max;              // accepted numbers; day-of-week accepts 7 (Sunday) as cronie does
  const char* const* names;  // 3-letter names, names[0] meaning `name_base`; or nullptr
  int name_base;
};

constexpr const char* kMonthNames[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",  "JUL",
                                       "AUG", "SEP", "OCT", "NOV", "DEC", nullptr};
constexpr const char* kDayNames[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", nullptr};

constexpr FieldSpec kFields[] = {
    {CronField::kMinute, 0, 59, nullptr, 0},     {CronField::kHour, 0, 23, nullptr, 0},
    {CronField::kDayOfMonth, 1, 31, nullptr, 0}, {CronField::kMonth, 1, 12, kMonthNames, 1},
    {CronField::kDayOfWeek, 0, 7, kDayNames, 0},
};

struct Shorthand {
  const char* name;
  const char* fields;
};
constexpr Shorthand kShorthands[] = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

constexpr char kShape[] =
    "expected 5 fields (minute hour day-of-month month day-of-week) or "
    "@hourly/@daily/@weekly/@monthly/@yearly, got ";

bool lower_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

// Reads one field at a time into a CronExpr; the first problem stops it.
class CronParser {
 public:
  explicit CronParser(CronError* error) : error_(error) {}

  bool fail(CronField field, size_t column, std::string message) {
    if (error_) *error_ = CronError{field, static_cast<int>(column), std::move(message)};
    return false;
  }

  // `text` is one field starting at 1-based `column` of the expression.
  bool field(const FieldSpec& spec, std::string_view text, size_t column, uint64_t& bits) {
    size_t i = 0;
    while (true) {
      size_t item_start = i;
      if (i >= text.size() || text[i] == ',')
        return fail(spec.field, column + i, "empty list item");
      int low = spec.min, high = spec.max;
      bool star = text[i] == '*';
      if (star) {
        ++i;
      } else {
        if (!value(spec, text, i, column, low)) return false;
        high = low;
        if (i < text.size() && text[i] == '-') {
          ++i;
          if (!value(spec, text, i, column, high)) return false;
          if (high < low) {
            return fail(spec.field, column + item_start,
                        "range " + std::string(text.substr(item_start, i - item_start)) +
                            " runs backwards; write it as two ranges (" + std::to_string(low) +
                            "-" + std::to_string(spec.max == 7 ? 6 : spec.max) + "," +
                            std::to_string(spec.min) + "-" + std::to_string(high) + ")");
          }
        } else if (i < text.size() && text[i] == '/') {
          high = spec.max;  // "a/n" means a-max/n, as in cronie
        }
      }
      int step = 1;
      if (i < text.size() && text[i] == '/') {
        size_t step_at = ++i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        if (i == step_at) {
          return fail(spec.field, column + step_at,
                      "expected a step (a number) after '/', got \"" + rest(text, step_at) + "\"");
        }
        long n = std::stol(std::string(text.substr(step_at, std::min<size_t>(i - step_at, 6))));
        if (n == 0) return fail(spec.field, column + step_at, "step must be at least 1, got 0");
        step = static_cast<int>(n);
      }
      if (i < text.size() && text[i] != ',') {
        return fail(spec.field, column + i,
                    std::string("unexpected \"") + text[i] + "\" after \"" +
                        std::string(text.substr(item_start, i - item_start)) + "\"");
      }
      for (int v = low; v <= high; v += step)
        bits |= uint64_t{1} << (v == 7 && spec.max == 7 ? 0 : v);
      if (i >= text.size()) return true;
      ++i;  // the comma
    }
  }

  // A number or (month, day-of-week) name at text[i], advancing i.
  bool value(const FieldSpec& spec, std::string_view text, size_t& i, size_t column, int& out) {
    size_t start = i;
    std::string what = spec.names ? "a number or a name" : "a number";
    if (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      std::string digits(text.substr(start, i - start));
      long n = digits.size() > 6 ? 9999999 : std::stol(digits);
      if (n < spec.min || n > spec.max) {
        return fail(spec.field, column + start,
                    digits + " is out of range " + std::to_string(spec.min) + "-" +
                        std::to_string(spec.max) + (spec.max == 7 ? " (0 and 7 are Sunday)" : ""));
      }
      out = static_cast<int>(n);
      return true;
    }
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string word(text.substr(start, i - start));
    if (word.empty()) {
      return fail(spec.field, column + start,
                  "expected " + what + ", got \"" + rest(text, start) + "\"");
    }
    if (!spec.names)
      return fail(spec.field, column + start, "expected a number, got \"" + word + "\"");
    for (int n = 0; spec.names[n]; ++n) {
      if (lower_equal(word, spec.names[n])) {
        out = n + spec.name_base;
        return true;
      }
    }
    return fail(
        spec.field, column + start,
        "unknown name \"" + word + "\" (" +
            (spec.field == CronField::kMonth ? "use JAN-DEC or 1-12)" : "use SUN-SAT or 0-7)"));
  }

  static std::string rest(std::string_view text, size_t at) {
    return at >= text.size() ? std::string() : std::string(text.substr(at));
  }

  std::optional<CronExpr> parse(std::string_view text) {
    struct Word {
      std::string_view text;
      size_t column;
    };
    std::vector<Word> words;
    for (size_t i = 0; i < text.size();) {
      if (text[i] == ' ' || text[i] == '\t') {
        ++i;
        continue;
      }
      size_t start = i;
      while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
      words.push_back({text.substr(start, i - start), start + 1});
    }
    if (!words.empty() && words[0].text.starts_with('@'))
      return shorthand(text, words[0].text, words.size());
    if (words.size() != 5) {
      size_t column = words.size() > 5 ? words[5].column : 1;
      fail(CronField::kExpression, column,
           kShape + std::to_string(words.size()) + (words.size() == 1 ? " field" : " fields"));
      return std::nullopt;
    }
    CronExpr expr;
    expr.text_ = std::string(text);
    uint64_t bits[5] = {};
    for (int f = 0; f < 5; ++f) {
      if (!field(kFields[f], words[f].text, words[f].column, bits[f])) return std::nullopt;
    }
    expr.minutes_ = bits[0];
    expr.hours_ = static_cast<uint32_t>(bits[1]);
    expr.days_ = static_cast<uint32_t>(bits[2]);
    expr.months_ = static_cast<uint16_t>(bits[3]);
    expr.weekdays_ = static_cast<uint8_t>(bits[4]);
    expr.minute_star_ = words[0].text.starts_with('*');
    expr.hour_star_ = words[1].text.starts_with('*');
    expr.day_star_ = words[2].text.starts_with('*');
    expr.weekday_star_ = words[4].text.starts_with('*');
    // With day-of-week unrestricted only the day-of-month selects days; it must exist somewhere.
    if (!expr.day_star_ && expr.weekday_star_ && !some_day_exists(expr)) {
      fail(CronField::kDayOfMonth, words[2].column,
           "\"" + std::string(words[2].text) +
               "\" never occurs in the selected months, so the schedule would never fire");
      return std::nullopt;
    }
    return expr;
  }

 private:
  static bool some_day_exists(const CronExpr& expr) {
    for (int m = 1; m <= 12; ++m) {
      if (!(expr.months_ >> m & 1)) continue;
      for (int d = 1; d <= days_in_month(2000, m); ++d) {  // 2000: a leap year, Feb has 29
        if (expr.days_ >> d & 1) return true;
      }
    }
    return false;
  }

  std::optional<CronExpr> shorthand(std::string_view text, std::string_view word, size_t count) {
    size_t column = text.find('@') + 1;
    if (lower_equal(word, "@reboot")) {
      fail(CronField::kExpression, column,
           "@reboot runs a job when cron starts, which is not a schedule; use five fields or "
           "@hourly, @daily, @weekly, @monthly or @yearly");
      return std::nullopt;
    }
    for (const Shorthand& s : kShorthands) {
      if (!lower_equal(word, s.name)) continue;
      if (count > 1) {
        fail(CronField::kExpression, text.find_first_not_of(" \t", column - 1 + word.size()) + 1,
             "expected nothing after " + std::string(word));
        return std::nullopt;
      }
      std::optional<CronExpr> expr = parse(s.fields);
      if (expr) expr->text_ = std::string(text);
      return expr;
    }
    fail(CronField::kExpression, column,
         "unknown shorthand \"" + std::string(word) +
             "\"; expected @hourly, @daily, @midnight, @weekly, @monthly, @yearly or @annually");
    return std::nullopt;
  }

  CronError* error_;
};

std::optional<CronExpr> CronExpr::parse(std::string_view text, CronError* error) {
  return CronParser(error).parse(text);
}

const char* to_string(CronField field) {
  switch (field) {
    case CronField::kMinute:
      return "minute";
    case CronField::kHour:
      return "hour";
    case CronField::kDayOfMonth:
      return "day-of-month";
    case CronField::kMonth:
      return "month";
    case CronField::kDayOfWeek:
      return "day-of-week";
    case CronField::kExpression:
      break;
  }
  return "expression";
}

std::string CronError::text() const {
  return field == CronField::kExpression ? message : std::string(to_string(field)) + ": " + message;
}

}  // namespace burst::schedule
