// The GPU catalog and the offline price table: facts the planner prices against. Both are YAML
// files in config/ (gpus.yaml, prices.yaml), compiled into the binary so it works anywhere, and
// overridable by files of the same name in the config dir. Parsing: src/config/catalog_reader.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

struct GpuSpec {
  std::string name;        // catalog key, e.g. "RTX_4090", "H100_SXM", "MI300X"
  std::string vendor;      // "nvidia" | "amd"
  std::string segment;     // "consumer" | "workstation" | "datacenter"
  double vram_gb = 0;      // per GPU, decimal GB as vendors state it
  double mem_bw_gbs = 0;   // memory bandwidth, GB/s
  double fp16_tflops = 0;  // dense FP16/BF16 tensor TFLOPS as usable for training/inference
                           // (GeForce: the FP32-accumulate rate, half the FP16-accumulate one)
  std::optional<double> fp8_tflops;  // dense FP8 tensor TFLOPS where supported
  double tdp_w = 0;
  std::string interconnect;            // "nvlink" | "pcie" | "infinity-fabric"
  double interconnect_gbs = 0;         // per-GPU GPU-to-GPU bandwidth, GB/s
  std::optional<double> purchase_usd;  // typical street/list price, for rent-vs-buy
  std::string source;                  // where the numbers come from (URL or document)
  std::string memory;                  // "hbm" | "gddr" | "" (unknown: no technology fallback)
  // Number formats the tensor units run natively ("fp32", "fp16", "bf16", "fp8", "int8",
  // "int4"); empty = unknown, every precision accepted.
  std::vector<std::string> precisions;
  // Total memory as the driver reports it (nvidia-smi's "Memory-Usage" total, MiB): what a CUDA
  // program can be given, below the vendor's "GB" where ECC takes its share (an A10's "24 GB" is
  // 23028 MiB, 22.5 GiB). Unset: vram_gb read as GiB (a GeForce RTX 4090's "24 GB" is 24564 MiB).
  std::optional<double> vram_mib;
};

// What the driver reports of one card, in GiB: vram_mib / 1024, else vram_gb read as GiB.
double driver_vram_gib(const GpuSpec& gpu);

// Whether `gpu` runs `precision` natively (true when the catalog does not say).
bool supports_precision(const GpuSpec& gpu, const std::string& precision);

struct PriceEntry {
  std::string provider;  // "runpod" | "lambda" | "vast"
  std::string gpu;       // a GpuSpec name
  int gpu_count = 1;
  double usd_per_hour = 0;  // on-demand, whole instance
  std::optional<double> spot_usd_per_hour;
  std::string region;
};

struct PriceTable {
  std::string as_of;  // "2026-..." date the snapshot was taken
  std::string source;
  std::vector<PriceEntry> entries;
};

// Parse YAML text (`name` only labels error messages: "<name>:<line>:<col>: <field>: <message>").
Result<std::vector<GpuSpec>> parse_gpu_catalog(const std::string& yaml_text,
                                               const std::string& name);
// With `catalog`, every entry's GPU must be in it. `providers`: the names an entry may price (the
// registry's rows with offline prices, providers/registry.h), handed in.
Result<PriceTable> parse_price_table(const std::string& yaml_text, const std::string& name,
                                     const std::vector<std::string>& providers,
                                     const std::vector<GpuSpec>* catalog = nullptr);

// The catalog and price table compiled into the binary (from config/), unless `config_dir`
// holds gpus.yaml / prices.yaml, which then win. The built-in catalog is parsed at build time
// (tools/embed_catalog.cpp), so loading it costs no YAML parse at run time.
Result<std::vector<GpuSpec>> load_gpu_catalog(const std::string& config_dir);
Result<PriceTable> load_price_table(const std::string& config_dir,
                                    const std::vector<std::string>& providers);

const GpuSpec* find_gpu(const std::vector<GpuSpec>& catalog, const std::string& name);

}  // namespace burst
