#!/usr/bin/env python3
"""The autotune tables of scripts/gpu-autotune.sh: square matmuls, row kernels (softmax,
layer norm) and elementwise workloads (gelu, adam, copy: pointwise kernels) with the heuristic variant (EMBER_AUTOTUNE=off) and the tuned one (=on), from
ember_bench JSON (medians of the repetitions), with each key's winner and candidate times from
`ember-autotune export` JSON.

  python3 bench/autotune_report.py autotune_*_off.json autotune_*_on.json autotune_*_cache.json
"""
import json
import re
import sys

from bench_json import median_runs

# The reductions each row workload's key names (its flags end with them).
ROW_REDUCTIONS = {"softmax": "max+sum", "layernorm": "sum+sum"}


def main(paths):
    times, rows, pointwise, entries = {}, {}, {}, []
    for p in paths:
        data = json.load(open(p))
        if isinstance(data, list):
            entries += data
            continue
        mode = "on" if p.endswith("_on.json") else "off"
        for b in median_runs(p):
            r = re.match(r"BM_(softmax|layernorm)_(\d+)x(\d+)/fused:1", b["name"])
            if r and not b.get("error_occurred"):
                device = b.get("label", "?").split()[0]
                rows[(device, r.group(1), int(r.group(2)), int(r.group(3)), mode)] = (
                    b["real_time"], b.get("GB", 0))
            w = re.match(r"BM_(gelu_64M|adam_64M|copy_1GiB)/fused:1", b["name"])
            if w and not b.get("error_occurred"):
                device = b.get("label", "?").split()[0]
                pointwise[(device, w.group(1), mode)] = (b["real_time"], b.get("GB", 0))
            m = re.match(r"BM_matmul_square/n:(\d+)/type:(\d)", b["name"])
            if not m or b.get("error_occurred"):
                continue
            device = b.get("label", "?").split()[0]
            dtype = ["f32", "bf16", "tf32"][int(m.group(2))]
            times[(device, int(m.group(1)), dtype, mode)] = (b["real_time"], b.get("TFLOP", 0))
    print("| device | size | dtype | heuristic | autotuned | speed-up | winner | candidates (ms) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (device, n, dtype, mode) in sorted(times):
        if mode != "off" or (device, n, dtype, "on") not in times:
            continue
        off, on = times[(device, n, dtype, "off")], times[(device, n, dtype, "on")]
        tag = f"|{n}x{n}x{n}x1|"
        backend = "cuda" if device.startswith("cuda") else "vulkan"
        winner, cands = "", ""
        for e in entries:
            family = e["key"].split("|")[0]
            if tag in e["key"] and e["key"].endswith("|" + dtype) and family in (
                    "matmul", "matmul_mma") and e["key"].split("|")[1].startswith(backend):
                winner = e["winner"]
                cands = ", ".join(f"{c['config'].split('=')[-1]}: {c['time_ms']:.3f}" for c in e["candidates"])
        print(f"| {device} | {n} | {dtype} | {off[0]:.3f} ms, {off[1]:.1f} TFLOP/s | "
              f"{on[0]:.3f} ms, {on[1]:.1f} TFLOP/s | {off[0] / on[0]:.2f}x | {winner} | {cands} |")

    if rows:
        print()
        print("| device | row kernel | heuristic | autotuned | speed-up | winner | candidates (ms) |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
    for (device, name, r, n, mode) in sorted(rows):
        if mode != "off" or (device, name, r, n, "on") not in rows:
            continue
        off, on = rows[(device, name, r, n, "off")], rows[(device, name, r, n, "on")]
        backend = "cuda" if device.startswith("cuda") else "vulkan"
        winner, cands = "", ""
        for e in entries:
            parts = e["key"].split("|")
            if (parts[0] == "row" and parts[2] == f"{r}x{n}" and parts[1].startswith(backend)
                    and parts[-1].endswith("," + ROW_REDUCTIONS[name])):
                winner = e["winner"]
                cands = ", ".join(f"{c['config'].split('=')[-1]}: {c['time_ms']:.3f}" for c in e["candidates"])
        print(f"| {device} | {name} {r}x{n} | {off[0]:.3f} ms, {off[1]:.1f} GB/s | "
              f"{on[0]:.3f} ms, {on[1]:.1f} GB/s | {off[0] / on[0]:.2f}x | {winner} | {cands} |")

    if pointwise:
        print()
        print("| device | elementwise workload | heuristic | autotuned | speed-up |")
        print("| --- | --- | --- | --- | --- |")
    for (device, name, mode) in sorted(pointwise):
        if mode != "off" or (device, name, "on") not in pointwise:
            continue
        off, on = pointwise[(device, name, "off")], pointwise[(device, name, "on")]
        print(f"| {device} | {name} | {off[0]:.3f} ms, {off[1]:.1f} GB/s | "
              f"{on[0]:.3f} ms, {on[1]:.1f} GB/s | {off[0] / on[0]:.2f}x |")
    keys = [e for e in entries if e["key"].split("|")[0] == "pointwise"]
    if keys:
        print()
        print("| pointwise key (elements, flags) | winner | fastest / slowest candidate (ms) |")
        print("| --- | --- | --- |")
    for e in keys:
        parts = e["key"].split("|")
        times = [c["time_ms"] for c in e["candidates"] if c["time_ms"] > 0]
        spread = f"{min(times):.3f} / {max(times):.3f}" if times else ""
        print(f"| {parts[2]} {parts[-1]} | {e['winner']} | {spread} |")


if __name__ == "__main__":
    main(sys.argv[1:])
