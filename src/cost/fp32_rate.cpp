// FP32 (non-tensor) rates per card. Contract: src/cost/fp32_rate.h.
#include "cost/fp32_rate.h"

namespace burst::cost {

namespace {

struct Fp32Rate {
  const char* gpu;     // catalog name
  double tflops;       // peak FP32 TFLOPS, non-tensor, dense, at the boost clock
  const char* source;  // the vendor's figure
};

constexpr Fp32Rate kFp32[] = {
    {"RTX_2080_TI", 13.4,
     "NVIDIA Turing whitepaper, RTX 2080 Ti at its reference boost (1545 MHz)"},
    {"RTX_3060", 12.7, "NVIDIA RTX 3060 spec page: 3584 CUDA cores at 1.78 GHz boost (x 2 FLOP)"},
    {"RTX_3080", 29.8, "NVIDIA Ampere GA102 whitepaper, 'Peak FP32 TFLOPS (non-Tensor)'"},
    {"RTX_3090", 35.6, "NVIDIA Ampere GA102 whitepaper, 'Peak FP32 TFLOPS (non-Tensor)'"},
    {"RTX_A6000", 38.7, "NVIDIA Ampere GA102 whitepaper (RTX A6000 column)"},
    {"RTX_4080", 48.7, "NVIDIA Ada Lovelace whitepaper, 'Peak FP32 TFLOPS (non-Tensor)'"},
    {"RTX_4090", 82.6, "NVIDIA Ada Lovelace whitepaper, 'Peak FP32 TFLOPS (non-Tensor)'"},
    {"RTX_6000_ADA", 91.1, "NVIDIA RTX 6000 Ada Generation datasheet, 'Single-precision'"},
    {"T4", 8.1, "NVIDIA T4 datasheet, 'Single-Precision'"},
    {"V100", 15.7, "NVIDIA V100 datasheet, 'Single-Precision Performance' (SXM2)"},
    {"V100_32GB", 15.7, "NVIDIA V100 datasheet, 'Single-Precision Performance' (SXM2)"},
    {"V100_PCIE", 14.0, "NVIDIA V100 datasheet, 'Single-Precision Performance' (PCIe)"},
    {"A10", 31.2, "NVIDIA A10 datasheet, 'FP32'"},
    {"A40", 37.4, "NVIDIA A40 datasheet, 'FP32'"},
    {"L4", 30.3, "NVIDIA L4 datasheet, 'FP32'"},
    {"L40S", 91.6, "NVIDIA L40S datasheet, 'FP32'"},
    {"A100_40GB", 19.5, "NVIDIA A100 datasheet, 'FP32'"},
    {"A100_80GB", 19.5, "NVIDIA A100 datasheet, 'FP32'"},
    {"A100_80GB_PCIE", 19.5, "NVIDIA A100 datasheet, 'FP32'"},
    {"A100_40GB_PCIE", 19.5, "NVIDIA A100 datasheet, 'FP32'"},
    {"A800_80GB", 19.5, "China Telecom's A800 table (ctyun.cn article 437601152262213), 'FP32'"},
    {"A800_80GB_PCIE", 19.5,
     "China Telecom's A800 table (ctyun.cn article 437601152262213), 'FP32'"},
    {"RTX_PRO_6000", 125.0,
     "NVIDIA RTX PRO 6000 Blackwell Workstation datasheet, 'Single-precision'"},
    {"RTX_PRO_6000_SERVER", 120.0, "NVIDIA RTX PRO 6000 Blackwell Server Edition datasheet, FP32"},
    {"RTX_PRO_6000_MAXQ", 109.7, "NVIDIA RTX Blackwell PRO architecture whitepaper, Table 4"},
    {"H100_SXM", 67.0, "NVIDIA H100 datasheet (SXM), 'FP32'"},
    {"H100_PCIE", 51.0, "NVIDIA H100 datasheet (PCIe), 'FP32'"},
};

}  // namespace

std::optional<double> fp32_tflops(const GpuSpec& gpu) {
  for (const Fp32Rate& r : kFp32)
    if (gpu.name == r.gpu) return r.tflops;
  return std::nullopt;
}

}  // namespace burst::cost
