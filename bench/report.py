#!/usr/bin/env python3
"""Joins Google Benchmark JSON from ember_bench (one file per device) and the JSON printed by
torch_reference.py into one Markdown table: workload x device x {fused, unfused, speed-up}, and
the PyTorch eager / torch.compile figures with Ember fused's speed-up over them.

  python3 bench/report.py ember_bench_vulkan.json ember_bench_cuda.json [torch.json] > table.md
"""
import json
import re
import sys


def load_ember(path):
    """{(workload, device): {"fused": ms, "unfused": ms, "gbps"/"tflops": value}}"""
    rows = {}
    for b in json.load(open(path))["benchmarks"]:
        m = re.match(r"BM_(\w+)/fused:(\d)", b["name"])
        if not m or b.get("run_type") == "aggregate":
            continue
        device, mode = b.get("label", "? ?").split()[:2]
        ms = b["real_time"] if b.get("time_unit") == "ms" else b["real_time"] / 1e6
        entry = rows.setdefault((m.group(1), device), {})
        entry[mode] = ms
        if mode == "fused":
            for key, unit in (("GB", "GB/s"), ("TFLOP", "TFLOP/s")):
                if key in b:
                    entry["rate"] = f"{b[key]:.0f} {unit}" if key == "GB" else f"{b[key]:.1f} {unit}"
    return rows


def main(paths):
    ember, torch = {}, {}
    for p in paths:
        data = json.load(open(p))
        if "benchmarks" in data:
            ember.update(load_ember(p))
        else:
            for r in data.get("results", []):
                if "median_ms" in r:
                    torch[(r["name"], r["mode"])] = r["median_ms"]
    print("| workload | device | Ember fused | Ember unfused | fused speed-up | torch eager | torch.compile | fused vs compile |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (name, device), e in sorted(ember.items()):
        fused, unfused = e.get("fused"), e.get("unfused")
        speed = f"{unfused / fused:.1f}x" if fused and unfused else ""
        eager, comp = torch.get((name, "eager")), torch.get((name, "compile"))
        vs = f"{comp / fused:.2f}x" if fused and comp else ""
        rate = f", {e['rate']}" if "rate" in e else ""
        fmt = lambda v: f"{v:.3f} ms" if v is not None else ""
        print(f"| `{name}` | {device} | {fmt(fused)}{rate} | {fmt(unfused)} | {speed} | "
              f"{fmt(eager)} | {fmt(comp)} | {vs} |")


if __name__ == "__main__":
    main(sys.argv[1:])
