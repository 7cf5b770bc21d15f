// The catalog and price table a command plans with: the config dir's files when present, else
// the built-in ones.
#include "burst/gpu_catalog.h"
#include "cost/catalog_sources.h"

namespace burst {

Result<std::vector<GpuSpec>> load_gpu_catalog(const std::string& config_dir) {
  std::string path;
  std::optional<Error> error;
  std::optional<std::string> text = read_catalog_override(config_dir, "gpus.yaml", &path, &error);
  if (error) return *error;
  if (text) return parse_gpu_catalog(*text, path);
  return builtin_gpu_catalog();
}

Result<PriceTable> load_price_table(const std::string& config_dir,
                                    const std::vector<std::string>& providers) {
  Result<std::vector<GpuSpec>> catalog = load_gpu_catalog(config_dir);
  if (!catalog) return catalog.error();
  std::string path;
  std::optional<Error> error;
  std::optional<std::string> text = read_catalog_override(config_dir, "prices.yaml", &path, &error);
  if (error) return *error;
  // Checked against the catalog in use, which may be the config dir's.
  return parse_price_table(text ? *text : std::string(kEmbedded_prices_yaml),
                           text ? path : "<built-in prices.yaml>", providers, &*catalog);
}

}  // namespace burst
