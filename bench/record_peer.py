#!/usr/bin/env python3
"""The Python peers of bench/record_bench.cc: saving and loading the same 1 GiB state (16 f32
tensors of 4096 x 4096) with safetensors.torch (save_file / load_file) and torch.save /
torch.load, in the same directory (default /tmp, as EMBER_RECORD_BENCH_DIR there), CPU only.
Prints the median of the repetitions (wall and process CPU time) in GB/s (1e9 bytes).

  python3 bench/record_peer.py [--mib 1024] [--reps 3] [--dir /tmp]
"""
import argparse
import os
import statistics
import time

import torch
from safetensors.torch import load_file, save_file


def timed(fn, reps):
    """Median wall and process CPU seconds (CPU time is steadier on a shared machine)."""
    walls, cpus = [], []
    for _ in range(reps):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=int(os.environ.get("EMBER_RECORD_BENCH_MIB", 1024)))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default=os.environ.get("EMBER_RECORD_BENCH_DIR", "/tmp"))
    args = ap.parse_args()
    torch.set_num_threads(1)
    rows = max(1, args.mib * 1024 * 1024 // 16 // 4096 // 4)
    state = {f"tensors.{i}.w": torch.randn(rows, 4096) for i in range(16)}
    nbytes = sum(t.numel() * 4 for t in state.values())
    st = os.path.join(args.dir, "peer_record_bench.safetensors")
    pt = os.path.join(args.dir, "peer_record_bench.pt")

    def st_load():
        d = load_file(st)
        assert d["tensors.0.w"].shape == (rows, 4096)

    # load_file may map the file and defer reading it; Ember's load leaves every value in the
    # model's tensors, so the fair peer also makes its own copy of each tensor.
    def st_load_copy():
        d = {k: v.clone() for k, v in load_file(st).items()}
        assert d["tensors.0.w"].shape == (rows, 4096)

    def pt_load():
        d = torch.load(pt)
        assert d["tensors.0.w"].shape == (rows, 4096)

    results = [
        ("save/safetensors(py)", timed(lambda: save_file(state, st), args.reps)),
        ("load/safetensors(py)", timed(st_load, args.reps)),
        ("load+copy/safetensors(py)", timed(st_load_copy, args.reps)),
        ("save/torch.save", timed(lambda: torch.save(state, pt), args.reps)),
        ("load/torch.load", timed(pt_load, args.reps)),
    ]
    for path in (st, pt):
        os.remove(path)
    print(f"state: {nbytes / 2**20:.0f} MiB in 16 f32 tensors, dir {args.dir}, median of {args.reps}")
    for name, (wall, cpu) in results:
        print(f"{name:26s} {wall * 1e3:9.1f} ms wall {nbytes / wall / 1e9:6.2f} GB/s"
              f"   {cpu * 1e3:9.1f} ms CPU {nbytes / max(cpu, 1e-9) / 1e9:6.2f} GB/s")


if __name__ == "__main__":
    main()
