#!/usr/bin/env python3
"""Reads the event files of write_events with TensorBoard's own reader (EventAccumulator) and
checks every scalar. Exits 77 (skipped) when the tensorboard package is not installed:
`pip install tensorboard` to run it; CI runs the C++ reader of event_file_test.cc instead."""
import os
import subprocess
import sys
import tempfile

try:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
except ImportError:
    print("tensorboard is not installed: skipped")
    sys.exit(77)


def scalars(run_dir, tag):
    acc = EventAccumulator(run_dir)
    acc.Reload()
    return [(e.step, e.value) for e in acc.Scalars(tag)], acc.Tags()["scalars"]


def main():
    writer = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([writer, tmp], check=True)
        loss, tags = scalars(os.path.join(tmp, "train"), "Loss")
        assert tags == ["Loss"], tags
        assert [s for s, _ in loss] == [1, 2, 3, 4, 5], loss
        for step, value in loss:
            assert abs(value - 1.0 / step) < 1e-6, (step, value)
        accuracy, tags = scalars(os.path.join(tmp, "valid"), "epoch/Accuracy")
        assert tags == ["epoch/Accuracy"], tags
        assert accuracy == [(1, 10.0), (2, 20.0), (3, 30.0)], accuracy
    print("TensorBoard read every scalar back")


if __name__ == "__main__":
    main()
