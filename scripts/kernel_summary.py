#!/usr/bin/env python3
"""Sums an EMBER_LOG=kernels log (one workload): the last `--kernels` launches (one step), grouped
by kernel name with the trailing hash dropped, largest total time first. Where a step's device
time goes, for comparing with scripts/torch_profile.py's table."""
import argparse
import collections
import re
import sys

LINE = re.compile(r"^ember kernel (\S+): (\d+) ops fused, (\d+) workgroups, ([\d.]+) ms, "
                  r"([\d.]+) GB/s(?:, writes (.*))?")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--kernels", type=int, required=True, help="launches in one step")
    ap.add_argument("--top", type=int, default=40)
    args = ap.parse_args()
    launches = []
    with open(args.log, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                name = m.group(1) + (" " + m.group(6) if m.group(6) else "")
                launches.append((name, int(m.group(3)), float(m.group(4)), float(m.group(5))))
    step = launches[-args.kernels:]
    groups = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for name, _, ms, gbs in step:
        key = name
        g = groups[key]
        g[0] += 1
        g[1] += ms
        g[2] += ms * gbs  # GB/s weighted by time
    total = sum(ms for _, _, ms, _ in step)
    print(f"{len(step)} launches, {total:.3f} ms summed (each launch timed on its own)")
    print(f"{'kernel':60s} {'count':>5s} {'ms':>8s} {'share':>6s} {'GB/s':>7s}")
    for key, (n, ms, w) in sorted(groups.items(), key=lambda kv: -kv[1][1])[:args.top]:
        print(f"{key[:60]:60s} {n:5d} {ms:8.3f} {100 * ms / total:5.1f}% {w / ms if ms else 0:7.0f}")
    print("slowest single launches:")
    for name, wg, ms, gbs in sorted(step, key=lambda s: -s[2])[:25]:
        print(f"  {name[:70]:70s} {wg:7d} wg {ms:8.3f} ms {gbs:7.0f} GB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
