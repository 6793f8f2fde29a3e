#!/usr/bin/env python3
"""dataloader_images: Ember's DataLoader against PyTorch's on the same 10k 64x64 JPEGs, batch 64,
with 1 and 2 workers. The images are written once by `ember_data_bench write-images`; then each
round runs Ember and PyTorch alternately for each worker count (a busy machine weighs on both
alike), and the medians of the rounds are printed with the ratio.

    dataloader_images.py BUILD_DIR [--rounds R] [--count N] [--dir DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--count", type=int, default=10000)
    p.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "ember-dataloader-images"))
    a = p.parse_args()
    bench = os.path.join(a.build, "bench", "ember_data_bench")
    if not os.path.isdir(a.dir):
        print(json.dumps(run([bench, "write-images", a.dir, "--count", str(a.count)])))
    results = {}
    for r in range(a.rounds):
        for workers in (1, 2):
            for impl, cmd in (
                ("ember", [bench, "images", a.dir, "--workers", str(workers)]),
                ("torch", [sys.executable, os.path.join(HERE, "dataloader_images_torch.py"), a.dir,
                           "--workers", str(workers)]),
            ):
                res = run(cmd)
                print(json.dumps({"round": r, **res}), flush=True)
                results.setdefault((impl, workers), []).append(res["items_per_s"])
    for workers in (1, 2):
        ember = statistics.median(results[("ember", workers)])
        torch = statistics.median(results[("torch", workers)])
        print(f"dataloader_images workers={workers}: ember {ember:.0f} items/s, "
              f"torch {torch:.0f} items/s, ember/torch {ember / torch:.2f}x")


if __name__ == "__main__":
    main()
