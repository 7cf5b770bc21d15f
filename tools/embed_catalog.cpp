// Build-time tool: parses and checks config/gpus.yaml with the same reader `burst` uses for an
// override file, and writes it out as C++ data, so the built-in catalog costs no YAML parse at
// run time (`burst plan` reads it on every run). A bad catalog fails the build with the file,
// line, column and field.
//
//   burst_embed_catalog config/gpus.yaml build/generated/gpu_catalog_data.cpp
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "burst/gpu_catalog.h"

namespace {

std::string literal(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);  // octal: never swallows the next character
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string optional_number(const std::optional<double>& v) {
  return v ? "std::optional<double>(" + number(*v) + ")" : "std::nullopt";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s GPUS_YAML OUTPUT_CPP\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto catalog = burst::parse_gpu_catalog(text.str(), argv[1]);
  if (!catalog.ok()) {
    std::fprintf(stderr, "%s\n", catalog.error().message.c_str());
    return 1;
  }
  std::string out =
      "// Generated from config/gpus.yaml by tools/embed_catalog.cpp. Do not edit.\n"
      "#include \"cost/catalog_sources.h\"\n\n"
      "namespace burst {\n\n"
      "const std::vector<GpuSpec>& builtin_gpu_catalog() {\n"
      "  static const std::vector<GpuSpec> catalog = {\n";
  for (const burst::GpuSpec& g : *catalog) {
    out += "      {" + literal(g.name) + ", " + literal(g.vendor) + ", " + literal(g.segment) +
           ", " + number(g.vram_gb) + ", " + number(g.mem_bw_gbs) + ", " + number(g.fp16_tflops) +
           ", " + optional_number(g.fp8_tflops) + ", " + number(g.tdp_w) + ", " +
           literal(g.interconnect) + ", " + number(g.interconnect_gbs) + ", " +
           optional_number(g.purchase_usd) + ", " + literal(g.source) + ", " + literal(g.memory) +
           ", {";
    for (size_t i = 0; i < g.precisions.size(); ++i)
      out += (i ? ", " : "") + literal(g.precisions[i]);
    out += "}, " + optional_number(g.vram_mib) + "},\n";
  }
  out += "  };\n  return catalog;\n}\n\n}  // namespace burst\n";
  // Written through a temporary name, so an interrupted build never leaves half a file.
  const std::string tmp = std::string(argv[2]) + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << out;
    if (!f) {
      std::fprintf(stderr, "%s: cannot write\n", tmp.c_str());
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), argv[2]) != 0) {
    std::fprintf(stderr, "%s: cannot rename into place\n", argv[2]);
    return 1;
  }
  return 0;
}
