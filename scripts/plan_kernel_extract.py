#!/usr/bin/env python3
"""From EMBER_DUMP=plan files (a directory of plan_*.txt): the kernel descriptions whose name
contains --name, the --largest ones by statement count, with the plan's lines over the same
index space. For reading a plan that only a GPU produces (the CUDA families) off the machine."""
import argparse
import glob
import os
import re


def blocks(text):
    """(header, lines) per kernel description: a block starts at 'kernel <name>: N buffers'."""
    out, cur = [], None
    for line in text.splitlines():
        if re.match(r"^kernel \S+: \d+ buffers", line):
            cur = [line]
            out.append(cur)
        elif re.match(r"^kernel \d+: ", line):
            cur = None
        elif cur is not None:
            cur.append(line)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--name", required=True)
    ap.add_argument("--largest", type=int, default=1)
    args = ap.parse_args()
    found = []
    for path in glob.glob(os.path.join(args.dir, "plan_*.txt")):
        text = open(path, errors="replace").read()
        plan_lines = [l for l in text.splitlines() if re.match(r"^kernel \d+: ", l)]
        for b in blocks(text):
            if args.name in b[0]:
                found.append((len(b), os.path.basename(path), b, plan_lines))
    found.sort(key=lambda f: -f[0])
    print(f"{len(found)} kernels named *{args.name}*; sizes {[f[0] for f in found[:20]]}")
    for n, path, b, plan_lines in found[:args.largest]:
        print(f"== {path}: {n} lines")
        print("\n".join(b))
        print("== the plan's kernels in that file (index space and stores):")
        print("\n".join(plan_lines))


if __name__ == "__main__":
    main()
