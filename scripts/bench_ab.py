#!/usr/bin/env python3
"""Prints an A/B table of Google Benchmark JSON files given in pairs (before, after): the median
of each benchmark in both, and their ratio (after / before)."""
import json
import sys


def medians(path):
    out = {}
    for b in json.load(open(path)).get("benchmarks", []):
        name = b["name"]
        if b.get("aggregate_name", "median") != "median":
            continue
        out[name.replace("_median", "")] = (b["real_time"], b.get("time_unit", "ms"), b.get("label", ""))
    return out


def main(paths):
    for before, after in zip(paths[::2], paths[1::2]):
        a, b = medians(before), medians(after)
        print(f"{before} -> {after}")
        for name in sorted(set(a) | set(b)):
            ta, tb = a.get(name), b.get(name)
            ratio = f"{tb[0] / ta[0]:.3f}" if ta and tb and ta[0] > 0 else "-"
            fa = f"{ta[0]:.4g} {ta[1]}" if ta else "-"
            fb = f"{tb[0]:.4g} {tb[1]}" if tb else "-"
            print(f"  {name:55s} {fa:>14s} {fb:>14s}  x{ratio}")


if __name__ == "__main__":
    main(sys.argv[1:])
