#!/usr/bin/env python3
"""Makes the PyTorch-exported ONNX fixtures of tests/import/onnx/fixtures (committed; PyTorch, numpy
and onnx are needed only here, never by the library or CI):

  resnet18_quarter.onnx  torchvision's ResNet with ResNet-18's layout (BasicBlock, [2, 2, 2, 2]:
                         conv-BN-ReLU stem, max pool, 4 stages, global average pool, linear head)
                         at a quarter of the channels (16/32/64/128), so the file stays small;
                         dynamic batch
  transformer.onnx       a small transformer encoder (embedding, 2 pre-norm blocks of 4-head
                         self-attention and a GELU feed-forward, d_model 32, a classifier head);
                         dynamic batch and sequence

  no_cpp_form.onnx       a hand-built graph (onnx.helper) of two ops with data-dependent output
                         shapes (NonZero, Unique), which ember-onnx imports but cannot write as
                         C++: the refusal listing both (tests/import/onnx/cli_test.sh)

Each PyTorch model comes with <name>_input_<i>.pb and <name>_output_<i>.pb (TensorProtos): random inputs (the
second of other dynamic sizes) and PyTorch's outputs for them, in eval mode, and <name>_grad_<param>.pb: the gradient of the output's
sum for a few parameters. Weights are random (seeded), not trained.

Usage: scripts/make_onnx_fixtures.py [out_dir] [--full-resnet18 PATH]
(--full-resnet18 also writes the standard-width ResNet-18, 46 MB, for benchmarks; not committed.)
"""
import pathlib
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn
from torchvision.models.resnet import BasicBlock, ResNet

ROOT = pathlib.Path(__file__).resolve().parent.parent


class QuarterResNet18(ResNet):
    """torchvision's ResNet-18 with every stage's channels divided by 4."""

    def __init__(self, num_classes=10):
        super().__init__(BasicBlock, [2, 2, 2, 2], num_classes=num_classes)
        self.inplanes = 16
        self.conv1 = nn.Conv2d(3, 16, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.layer1 = self._make_layer(BasicBlock, 16, 2)
        self.layer2 = self._make_layer(BasicBlock, 32, 2, stride=2)
        self.layer3 = self._make_layer(BasicBlock, 64, 2, stride=2)
        self.layer4 = self._make_layer(BasicBlock, 128, 2, stride=2)
        self.fc = nn.Linear(128, num_classes)


class Block(nn.Module):
    """A pre-norm transformer encoder block. Its attention reshapes with sizes read from the
    input (x.shape), so the export keeps batch and sequence dynamic (nn.MultiheadAttention's
    export bakes the traced sequence length into a Reshape)."""

    def __init__(self, d_model, heads, ff):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.qkv, self.proj = nn.Linear(d_model, 3 * d_model), nn.Linear(d_model, d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, ff), nn.GELU(), nn.Dropout(0.1),
                                nn.Linear(ff, d_model))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        split = lambda t: t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
        att = torch.softmax(split(q) @ split(k).transpose(-1, -2) / (d // self.heads) ** 0.5, -1)
        x = x + self.proj((att @ split(v)).transpose(1, 2).reshape(b, s, d))
        return x + self.ff(self.norm2(x))


class SmallTransformer(nn.Module):
    def __init__(self, vocab=50, d_model=32, heads=4, layers=2, classes=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.blocks = nn.Sequential(*[Block(d_model, heads, 64) for _ in range(layers)])
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, classes)

    def forward(self, tokens):
        return self.head(self.norm(self.blocks(self.embed(tokens))))


def randomize_batchnorm(model):
    """Non-trivial running statistics, so the import of BatchNormalization is really tested."""
    g = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=g) * 0.1)


def export(model, x, path, names, dynamic_axes, grads=(), other=None):
    """Exports `model` on input `x` with PyTorch's outputs (and `other`, an input of other
    dynamic sizes, as the second pair) and the gradients of the `grads` parameters."""
    model.eval()
    # Gradients of sum(output) for the named parameters (eval mode, as the import runs).
    model.zero_grad()
    model(x).sum().backward()
    params = dict(model.named_parameters())
    stem = path.with_suffix("")
    for name in grads:
        proto = numpy_helper.from_array(params[name].grad.numpy(), name)
        pathlib.Path(f"{stem}_grad_{name}.pb").write_bytes(proto.SerializeToString())
    with torch.no_grad():
        y = model(x)
        torch.onnx.export(model, (x,), str(path), input_names=names[:1], output_names=names[1:],
                          dynamic_axes=dynamic_axes, opset_version=17, dynamo=False)
        pairs = [(x, y)] + ([(other, model(other))] if other is not None else [])
    onnx.checker.check_model(onnx.load(str(path)))
    for i, pair in enumerate(pairs):
        for kind, t in zip(("input", "output"), pair):
            proto = numpy_helper.from_array(t.numpy(), f"{kind}_{i}")
            pathlib.Path(f"{stem}_{kind}_{i}.pb").write_bytes(proto.SerializeToString())
    print(f"wrote {path} ({path.stat().st_size} bytes), output {tuple(y.shape)}")


def write_no_cpp_form(path):
    """Imported at run time, but its output shapes depend on the input's values."""
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("NonZero", ["r"], ["nz"], name="nonzero"),
             helper.make_node("Unique", ["x"], ["u"], name="unique")]
    outs = [helper.make_tensor_value_info("nz", TensorProto.INT64, [1, "k"]),
            helper.make_tensor_value_info("u", TensorProto.FLOAT, ["m"])]
    graph = helper.make_graph(nodes, "no_cpp_form", [x], outs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("--") \
        else ROOT / "tests/import/onnx/fixtures"
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    resnet = QuarterResNet18()
    randomize_batchnorm(resnet)
    x = torch.randn(2, 3, 64, 64)
    export(resnet, x, out / "resnet18_quarter.onnx", ["image", "logits"],
           {"image": {0: "batch"}, "logits": {0: "batch"}}, grads=("fc.weight", "fc.bias"),
           other=torch.randn(3, 3, 64, 64))
    torch.manual_seed(0)
    tokens = torch.randint(0, 50, (2, 7))
    transformer = SmallTransformer()
    export(transformer, tokens, out / "transformer.onnx", ["tokens", "logits"],
           {"tokens": {0: "batch", 1: "sequence"}, "logits": {0: "batch", 1: "sequence"}},
           grads=("embed.weight", "head.bias"), other=torch.randint(0, 50, (3, 11)))
    write_no_cpp_form(out / "no_cpp_form.onnx")
    if "--full-resnet18" in sys.argv:
        from torchvision.models import resnet18
        path = pathlib.Path(sys.argv[sys.argv.index("--full-resnet18") + 1])
        torch.manual_seed(0)
        full = resnet18(weights=None)
        randomize_batchnorm(full)
        export(full, torch.randn(1, 3, 224, 224), path, ["image", "logits"],
               {"image": {0: "batch"}, "logits": {0: "batch"}})


if __name__ == "__main__":
    main()
