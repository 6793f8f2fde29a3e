#!/usr/bin/env python3
"""Makes the record tests' fixtures (tests/record/fixtures) with PyTorch and safetensors.

Run from anywhere: python3 tests/record/make_fixtures.py. Needs torch, numpy and safetensors (pip);
CI does not: the small files it writes are committed. Every tensor's values follow a closed form
that the C++ tests compute on their own (value(i) below), so a test checks the loaders against
these formulas, not against the loaders themselves.

  python3 tests/record/make_fixtures.py --check-ember FILE.safetensors
checks a file Ember wrote (the test Safetensors.WritesWhatPythonReads leaves one where
EMBER_RECORD_EXPORT_DIR points) with the safetensors package.
"""
import argparse
import collections
import io
import math
import os
import pickle
import sys
import zipfile

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


def value(i, k):
    """Element i of the k-th formula tensor: sin(0.37 i + k) * (1 + k / 8), exact in f32 math done
    in double and rounded once."""
    return math.sin(0.37 * i + k) * (1 + k / 8)


def formula(shape, k, dtype=torch.float32):
    n = math.prod(shape)
    return torch.tensor([value(i, k) for i in range(n)], dtype=torch.float64).reshape(shape).to(dtype)


def dtype_tensors():
    """One tensor of every dtype Ember has (the same dict goes to .safetensors and .pt)."""
    return collections.OrderedDict(
        f32=formula((3, 4), 0),
        f16=formula((2, 3), 1, torch.float16),
        bf16=formula((4,), 2, torch.bfloat16),
        f64=formula((5,), 3, torch.float64),
        i32=(torch.arange(6, dtype=torch.int32) - 3).reshape(3, 2),
        i64=torch.tensor([2**40, -5, 7], dtype=torch.int64),
        u8=torch.tensor([0, 1, 255], dtype=torch.uint8),
        boolean=torch.tensor([True, False, True]),
    )


def make_safetensors():
    from safetensors.torch import save_file

    save_file(dtype_tensors(), os.path.join(OUT, "dtypes.safetensors"), metadata={"source": "make_fixtures.py"})
    save_file({"int8": torch.tensor([1, -2], dtype=torch.int8)}, os.path.join(OUT, "int8.safetensors"))


def make_pt():
    sd = dtype_tensors()
    base = formula((20,), 4)
    sd["transposed"] = formula((3, 4), 5).t()          # strides (1, 4): not contiguous
    sd["offset"] = base[5:11]                          # storage offset 5, shares base's storage
    sd["base"] = base
    sd["strided"] = formula((6, 4), 6)[::2, 1::2]       # strides (8, 2), offset 1
    sd["param"] = torch.nn.Parameter(formula((2, 2), 7))
    sd["nested"] = {"inner": {"x": formula((3,), 8)}, "list": [formula((2,), 9), formula((1,), 10)]}
    sd["epoch"] = 3
    sd["name"] = "fixture"
    torch.save(sd, os.path.join(OUT, "dtypes.pt"))


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(3)
        self.fc = torch.nn.Linear(3 * 4 * 4, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).flatten(1))


def train(model, x, y, steps=5):
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    model.eval()


def make_trained():
    """Small models trained a few steps; their state dicts, fixed inputs and eval outputs."""
    from safetensors.torch import save_file

    torch.manual_seed(0)
    mlp = Mlp()
    x = formula((5, 4), 11)
    train(mlp, x, formula((5, 3), 12))
    torch.save(mlp.state_dict(), os.path.join(OUT, "mlp.pt"))
    with torch.no_grad():
        save_file({"x": x, "y": mlp(x)}, os.path.join(OUT, "mlp_io.safetensors"))

    cnn = Cnn()
    xc = formula((3, 2, 4, 4), 13)
    train(cnn, xc, formula((3, 2), 14))
    torch.save(cnn.state_dict(), os.path.join(OUT, "cnn.pt"))
    with torch.no_grad():
        save_file({"x": xc, "y": cnn(xc)}, os.path.join(OUT, "cnn_io.safetensors"))


def resnet18_state_dict(width):
    """torchvision's resnet18().state_dict() key structure with every width divided (64 -> width),
    each tensor set to formula k (k counts the tensors in order), num_batches_tracked = k."""
    shapes = [("conv1.weight", (width, 3, 7, 7))]

    def bn(prefix, c):
        return [(f"{prefix}.weight", (c,)), (f"{prefix}.bias", (c,)), (f"{prefix}.running_mean", (c,)),
                (f"{prefix}.running_var", (c,)), (f"{prefix}.num_batches_tracked", ())]

    shapes += bn("bn1", width)
    c_in = width
    for layer, c in enumerate([width, 2 * width, 4 * width, 8 * width], start=1):
        for block in range(2):
            p = f"layer{layer}.{block}"
            first_in = c_in if block == 0 else c
            shapes += [(f"{p}.conv1.weight", (c, first_in, 3, 3))] + bn(f"{p}.bn1", c)
            shapes += [(f"{p}.conv2.weight", (c, c, 3, 3))] + bn(f"{p}.bn2", c)
            if block == 0 and layer > 1:
                shapes += [(f"{p}.downsample.0.weight", (c, first_in, 1, 1))] + bn(f"{p}.downsample.1", c)
        c_in = c
    shapes += [("fc.weight", (10, 8 * width)), ("fc.bias", (10,))]
    sd = collections.OrderedDict()
    for k, (name, shape) in enumerate(shapes):
        if name.endswith("num_batches_tracked"):
            sd[name] = torch.tensor(k, dtype=torch.int64)
        elif name.endswith("running_var"):
            sd[name] = formula(shape, k).abs() + 0.5
        else:
            sd[name] = formula(shape, k)
    return sd


def make_resnet():
    torch.save(resnet18_state_dict(2), os.path.join(OUT, "resnet18_w2.pt"))


def torch_zip(path, pkl, storages=()):
    """A zip laid out as torch.save's, with a hand-made pickle (hostile fixtures)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        z.writestr(f"{stem}/data.pkl", pkl)
        z.writestr(f"{stem}/byteorder", "little")
        for key, data in storages:
            z.writestr(f"{stem}/data/{key}", data)
        z.writestr(f"{stem}/version", "3\n")


class Evil:
    def __reduce__(self):
        return (os.system, ("echo ember-executed-pickled-code > /tmp/ember_pwned",))


def make_hostile():
    torch_zip(os.path.join(OUT, "evil_global.pt"), pickle.dumps({"w": Evil()}, protocol=2))
    # A storage that claims more elements than its data holds.
    buf = io.BytesIO()
    torch.save({"w": torch.zeros(4)}, buf)
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        names = z.namelist()
        stem = names[0].split("/")[0]
        pkl = z.read(f"{stem}/data.pkl")
    torch_zip(os.path.join(OUT, "short_storage.pt"), pkl, [("0", b"\0" * 8)])


def check_ember(path):
    from safetensors import safe_open

    with safe_open(path, framework="pt") as f:
        want = dtype_tensors()
        got_keys = sorted(f.keys())
        assert got_keys == sorted(want.keys()), (got_keys, sorted(want.keys()))
        for k, w in want.items():
            t = f.get_tensor(k)
            assert t.dtype == w.dtype and t.shape == w.shape and torch.equal(t, w), k
        meta = f.metadata()
    print(f"{path}: {len(got_keys)} tensors equal to the fixture's, metadata keys {sorted(meta)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check-ember", metavar="FILE")
    args = ap.parse_args()
    if args.check_ember:
        check_ember(args.check_ember)
        return
    os.makedirs(OUT, exist_ok=True)
    make_safetensors()
    make_pt()
    make_trained()
    make_resnet()
    make_hostile()
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"fixtures in {OUT}: {sorted(os.listdir(OUT))}, {total} bytes")


if __name__ == "__main__":
    sys.exit(main())
