#!/usr/bin/env python3
"""Makes the PyTorch-exported ONNX fixtures of tests/import/onnx/fixtures (committed; PyTorch, numpy
and onnx are needed only here, never by the library or CI):

  resnet18_quarter.onnx  torchvision's ResNet with ResNet-18's layout (BasicBlock, [2, 2, 2, 2]:
                         conv-BN-ReLU stem, max pool, 4 stages, global average pool, linear head)
                         at a quarter of the channels (16/32/64/128), so the file stays small;
                         dynamic batch
  transformer.onnx       a small transformer encoder (embedding, 2 nn.TransformerEncoderLayers,
                         d_model 32, 4 heads, GELU feed-forward, a classifier head); dynamic batch
                         and sequence

Each comes with <name>_input_0.pb and <name>_output_0.pb (TensorProtos): a random input and
PyTorch's output for it, in eval mode, and <name>_grad_<param>.pb: the gradient of the output's
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


class SmallTransformer(nn.Module):
    def __init__(self, vocab=50, d_model=32, heads=4, layers=2, classes=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=64, dropout=0.1,
                                           activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, classes)

    def forward(self, tokens):
        h = self.encoder(self.embed(tokens))
        return self.head(self.norm(h))


def randomize_batchnorm(model):
    """Non-trivial running statistics, so the import of BatchNormalization is really tested."""
    g = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=g) * 0.1)


def export(model, x, path, names, dynamic_axes, grads=()):
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
    onnx.checker.check_model(onnx.load(str(path)))
    for kind, t in (("input", x), ("output", y)):
        proto = numpy_helper.from_array(t.numpy(), f"{kind}_0")
        (pathlib.Path(f"{stem}_{kind}_0.pb")).write_bytes(proto.SerializeToString())
    print(f"wrote {path} ({path.stat().st_size} bytes), output {tuple(y.shape)}")


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("--") \
        else ROOT / "tests/import/onnx/fixtures"
    out.mkdir(parents=True, exist_ok=True)
    # The fused fast path of nn.TransformerEncoderLayer has no ONNX export: the composed ops do.
    torch.backends.mha.set_fastpath_enabled(False)
    torch.manual_seed(0)
    resnet = QuarterResNet18()
    randomize_batchnorm(resnet)
    x = torch.randn(2, 3, 64, 64)
    export(resnet, x, out / "resnet18_quarter.onnx", ["image", "logits"],
           {"image": {0: "batch"}, "logits": {0: "batch"}}, grads=("fc.weight", "fc.bias"))
    torch.manual_seed(0)
    tokens = torch.randint(0, 50, (2, 7))
    transformer = SmallTransformer()
    # nn.TransformerEncoder deep-copies one layer: each layer gets its own values (the exporter
    # would otherwise share the identical initializers).
    with torch.no_grad():
        for p in transformer.encoder.layers[1].parameters():
            p.add_(torch.randn_like(p) * 0.05)
    export(transformer, tokens, out / "transformer.onnx", ["tokens", "logits"],
           {"tokens": {0: "batch", 1: "sequence"}, "logits": {0: "batch", 1: "sequence"}},
           grads=("embed.weight", "head.bias"))
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
