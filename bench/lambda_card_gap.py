#!/usr/bin/env python3
"""Burst's H100/A100 output-throughput ratio on Lambda's one-card vLLM pairs (bench/README.md,
"The H100 and A100 inside one lab"), each run priced as rows 515-538 are: one card, vLLM, the
prompts all at once, their mean lengths. A check, not a set: nothing is fitted on it.

    python3 bench/lambda_card_gap.py . build/burst bench/validation/lambda_pairs.csv

The CSV is the helper's copy of LambdaLabsML/vllm-benchmark's result files
(bench/validation/serving_search.md, "Lambda's vLLM benchmark, one card")."""
import csv, sys, statistics
sys.path.insert(0, sys.argv[1] + "/bench")
import validate_cost_model as v
binary = sys.argv[2]
MODEL = {"mistralai/Mistral-Nemo-Instruct-2407": ("mistral-nemo-12b", "bf16"),
         "mistralai/Mistral-7B-Instruct-v0.3": ("mistral-7b", "bf16"),
         "neuralmagic/Meta-Llama-3.1-8B-FP8": ("llama-3.1-8b", "fp8")}
GPU = {"1xH100-80GB-SXM": "H100_SXM", "1xA100-80GB-SXM": "A100_80GB"}
runs = {}
for r in csv.DictReader(open(sys.argv[3])):
    model, prec = MODEL[r["model_id"]]
    n = int(r["num_prompts"])
    mean_in = int(r["total_input_tokens"]) / n
    mean_out = int(r["total_output_tokens"]) / n
    row = {"id": "x", "category": "e2e_batched", "gpu": GPU[r["gpu"]], "gpus": "1", "engine": "vllm",
           "model": model, "precision": prec, "concurrency": str(n),
           "context": str(round(mean_in + mean_out)), "gen_tokens": str(round(mean_out)),
           "output_tokens": r["total_output_tokens"], "shape": "", "measured": r["output_throughput"],
           "metric": "output_tokens_per_s"}
    pred = v.predict(binary, row)
    runs.setdefault(r["pair"], {})[row["gpu"]] = (float(r["output_throughput"]), pred, row)
ratios = {}
for pair, d in runs.items():
    (mh, ph, rh), (ma, pa, ra) = d["H100_SXM"], d["A100_80GB"]
    meas, burst = mh / ma, ph / pa
    ratios[pair] = burst / meas - 1
    print(f"{pair} {rh['model']} {rh['precision']} c={rh['concurrency']} ctx={rh['context']} gen={rh['gen_tokens']}: "
          f"H100 {mh:.0f} meas / {ph:.0f} burst ({ph/mh-1:+.1%}); A100 {ma:.0f} / {pa:.0f} ({pa/ma-1:+.1%}); "
          f"ratio measured {meas:.2f}, burst {burst:.2f}: burst's ratio {burst/meas-1:+.1%}")
print("median over P2, P6:", f"{statistics.median([ratios['P2'], ratios['P6']]):+.1%}")
