"""Reads ember_bench's Google Benchmark JSON for the report scripts: one entry per benchmark, the
median of its repetitions (ember_bench repeats each five times by default; the PyTorch figures
are medians too), else its only run, or its error when every repetition failed."""
import json


def median_runs(path):
    """[benchmark dict] with "name" the benchmark's own name (no _median suffix)."""
    benchmarks = json.load(open(path))["benchmarks"]
    with_median = {b["run_name"] for b in benchmarks if b.get("aggregate_name") == "median"}
    out, seen = [], set()
    for b in benchmarks:
        name = b.get("run_name", b["name"])
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                out.append(dict(b, name=name))
        elif name not in with_median and name not in seen:
            seen.add(name)
            out.append(dict(b, name=name))
    return out
