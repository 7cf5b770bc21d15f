#include "spec/spec_shape_fields.h"

#include <climits>
#include <optional>
#include <string>

namespace burst::spec {
namespace {

using namespace burst::yaml;

// Two fields that mean nothing apart: reports the one given (and read, `first_read`,
// `second_read`) without the other, at its line. True when both or neither are given.
bool given_together(Fields& w, const char* first, bool first_read, const char* second,
                    bool second_read) {
  const std::optional<yaml::Node> a = w.get(first), b = w.get(second);
  if (a && !b && first_read)
    w.problems().add(pos_of(*a), w.path_of(first), std::string("give ") + second + " with it");
  if (b && !a && second_read)
    w.problems().add(pos_of(*b), w.path_of(second), std::string("give ") + first + " with it");
  return a.has_value() == b.has_value();
}

// workload.experts and experts_per_token: both or neither, at most as many used as there are,
// and a model or active_params_b to tell the experts' weights from the shared ones.
void parse_experts(Fields& w, Workload& out) {
  out.experts = w.integer("experts", 1, 1 << 20);
  out.experts_per_token = w.integer("experts_per_token", 1, 1 << 20);
  if (!given_together(w, "experts", out.experts.has_value(), "experts_per_token",
                      out.experts_per_token.has_value()))
    return;
  if (out.experts && out.experts_per_token && *out.experts_per_token > *out.experts) {
    w.problems().add(pos_of(*w.get("experts_per_token")), w.path_of("experts_per_token"),
                     "is more than experts (" + std::to_string(*out.experts) + ")");
  } else if (out.experts && !out.active_params_b && !w.get("model")) {
    w.problems().add(pos_of(*w.get("experts")), w.path_of("experts"),
                     "needs active_params_b (or a model) to tell the experts' weights from the "
                     "shared ones");
  }
}

// workload.attention_window and window_layers: both or neither, and no more windowed layers
// than the spec's own layers.
void parse_attention_window(Fields& w, Workload& out) {
  out.attention_window = w.integer("attention_window", 1, LONG_MAX);
  out.window_layers = w.integer("window_layers", 0, LONG_MAX);
  if (!given_together(w, "attention_window", out.attention_window.has_value(), "window_layers",
                      out.window_layers.has_value()))
    return;
  if (out.window_layers && out.layers && *out.window_layers > *out.layers) {
    w.problems().add(pos_of(*w.get("window_layers")), w.path_of("window_layers"),
                     "is more than layers (" + std::to_string(*out.layers) + ")");
  }
}

}  // namespace

void parse_shape_fields(Fields& w, Workload& out) {
  parse_experts(w, out);
  parse_attention_window(w, out);
  out.kv_latent = w.integer("kv_latent", 1, LONG_MAX);
}

}  // namespace burst::spec
