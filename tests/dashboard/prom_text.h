// A strict parser of the Prometheus text exposition format 0.0.4, for tests of burstd's /metrics
// (Debian's python3-prometheus-client is not installed everywhere tests run). It refuses what
// Prometheus would refuse and a few things it tolerates but a correct exporter never writes:
// a sample before its family's TYPE, a family split in two, a repeated series, a bad name,
// label or escape, a value that is not a float, a counter below zero, a histogram whose buckets
// are not cumulative or whose +Inf bucket differs from _count, a missing final newline.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace burst::testing {

struct PromSample {
  std::string name;  // as written: "burst_phase_duration_seconds_bucket"
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct PromFamily {
  std::string type;  // counter | gauge | histogram | summary | untyped
  std::string help;
  std::vector<PromSample> samples;
};

struct PromParse {
  std::map<std::string, PromFamily> families;
  std::string error;  // "" when the text is valid; else "line N: why"
  // The value of the one sample with exactly these labels; -1 when absent.
  double value(const std::string& name,
               const std::map<std::string, std::string>& labels = {}) const;
  // The sum over every sample of `name` whose labels include `match`.
  double sum(const std::string& name, const std::map<std::string, std::string>& match = {}) const;
};

PromParse parse_prom_text(const std::string& text);

}  // namespace burst::testing
