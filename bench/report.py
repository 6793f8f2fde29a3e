#!/usr/bin/env python3
"""Joins Google Benchmark JSON from ember_bench (one file per device) and the JSON printed by
torch_reference.py into one Markdown table: workload x device x {fused, unfused, speed-up}, and
the PyTorch eager / torch.compile figures with Ember fused's speed-up over them.

  python3 bench/report.py ember_bench_vulkan.json ember_bench_cuda.json [torch.json] > table.md
"""
import json
import re
import sys

from bench_json import median_runs


notes = {}  # workload -> why Ember skipped it


def load_ember(path):
    """{(workload, device): {"fused": ms, "unfused": ms, "gbps"/"tflops": value}}, medians"""
    rows = {}
    for b in median_runs(path):
        m = re.match(r"BM_(\w+)/fused:(\d)", b["name"])
        if not m:
            continue
        if b.get("error_occurred"):
            notes.setdefault(m.group(1), b.get("error_message", "skipped"))
            continue
        device, mode, *note = b.get("label", "? ?").split()
        ms = b["real_time"] if b.get("time_unit") == "ms" else b["real_time"] / 1e6
        entry = rows.setdefault((m.group(1), device), {})
        entry[mode] = ms
        if mode == "fused" and "peak_MiB" in b:
            entry["peak_gib"] = b["peak_MiB"] / 1024
        if mode == "fused":
            for key, unit in (("GB", "GB/s"), ("TFLOP", "TFLOP/s")):
                if key in b:
                    entry["rate"] = f"{b[key]:.0f} {unit}" if key == "GB" else f"{b[key]:.1f} {unit}"
            if "plain-f32" in note:  # a TF32 workload without TF32 tensor cores
                entry["rate"] = entry.get("rate", "") + " (plain f32: no TF32 here)"
    return rows


def load_start(path):
    """[(device, "cold"|"warm", ms, compiles)] from BM_start, medians of its starts."""
    rows = []
    for b in median_runs(path):
        m = re.match(r"BM_start/warm:(\d)", b["name"])
        if m and b.get("error_occurred"):
            notes.setdefault("start", b.get("error_message", "failed"))
        elif m:
            device = b.get("label", "?").split()[0]
            ms = b["real_time"] if b.get("time_unit") == "ms" else b["real_time"] / 1e6
            rows.append((device, "warm" if m.group(1) == "1" else "cold", ms, b.get("compiles", 0)))
    return rows


# Steps whose peak memory the table shows (BENCHMARKS.md reports it for these).
PEAK_WORKLOADS = {"transformer_block", "mlp_train_step"}


def main(paths):
    ember, torch, torch_peak, start = {}, {}, {}, []
    for p in paths:
        data = json.load(open(p))
        if "benchmarks" in data:
            ember.update(load_ember(p))
            start += load_start(p)
        else:
            for r in data.get("results", []):
                if "median_ms" in r:
                    torch[(r["name"], r["mode"])] = r["median_ms"]
                if "peak_gib" in r:
                    torch_peak[(r["name"], r["mode"])] = r["peak_gib"]
    print("| workload | device | Ember fused | Ember unfused | fused speed-up | torch eager | torch.compile | fused vs compile |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (name, device), e in sorted(ember.items()):
        fused, unfused = e.get("fused"), e.get("unfused")
        speed = f"{unfused / fused:.1f}x" if fused and unfused else ""
        eager, comp = torch.get((name, "eager")), torch.get((name, "compile"))
        vs = f"{comp / fused:.2f}x" if fused and comp else ""
        rate = f", {e['rate']}" if "rate" in e else ""
        if name in PEAK_WORKLOADS and "peak_gib" in e:
            rate += f", peak {e['peak_gib']:.2f} GiB"
        fmt = lambda v: f"{v:.3f} ms" if v is not None else ""
        comp_cell = fmt(comp)
        if name in PEAK_WORKLOADS and (name, "compile") in torch_peak and comp is not None:
            comp_cell = f"{comp:.3f} ms, peak {torch_peak[(name, 'compile')]:.2f} GiB"
        print(f"| `{name}` | {device} | {fmt(fused)}{rate} | {fmt(unfused)} | {speed} | "
              f"{fmt(eager)} | {comp_cell} | {vs} |")
    for name, why in sorted(notes.items()):
        eager = torch.get((name, "eager"))
        print(f"| `{name}` | | not run: {why} | | | {eager:.3f} ms |  |  |" if eager is not None
              else f"| `{name}` | | not run: {why} | | |  |  |  |")
    if start:
        print("\n| start of a training step | device | time to first result | kernels compiled |")
        print("| --- | --- | --- | --- |")
        for device, kind, ms, compiles in start:
            print(f"| {kind} | {device} | {ms:.1f} ms | {compiles:.0f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
