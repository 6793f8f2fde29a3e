#!/usr/bin/env python3
"""PyTorch's peer of `ember_data_bench images`: one epoch of a DataLoader over the same image
tree (class folders, files in name order), decoded by PIL, converted to channels-first float
tensors standardised per channel, batched and shuffled. Prints one JSON line like the Ember run.

    dataloader_images_torch.py DIR [--workers K] [--batch B]

Not a dependency of Ember or its CI (PyTorch and Pillow are pip-installed for benchmarking).
"""
import argparse
import json
import os
import time

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


class ImageFolder(Dataset):
    def __init__(self, root):
        self.items = []
        for label, cls in enumerate(sorted(d for d in os.listdir(root)
                                           if os.path.isdir(os.path.join(root, d)))):
            folder = os.path.join(root, cls)
            for name in sorted(os.listdir(folder)):
                if name.lower().endswith((".png", ".jpg", ".jpeg")):
                    self.items.append((os.path.join(folder, name), label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        with Image.open(path) as img:
            pixels = np.asarray(img.convert("RGB"), dtype=np.float32) / 255.0
        pixels = (pixels - MEAN) / STD
        return torch.from_numpy(pixels.transpose(2, 0, 1).copy()), label


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--batch", type=int, default=64)
    a = p.parse_args()
    torch.set_num_threads(1)
    dataset = ImageFolder(a.dir)
    loader = DataLoader(dataset, batch_size=a.batch, shuffle=True, num_workers=a.workers,
                        generator=torch.Generator().manual_seed(0))
    t0 = time.perf_counter()
    items = 0
    for images, labels in loader:
        items += labels.shape[0]
    s = time.perf_counter() - t0
    print(json.dumps({"bench": "dataloader_images", "impl": "torch", "workers": a.workers,
                      "batch": a.batch, "items": items, "seconds": round(s, 4),
                      "items_per_s": round(items / s, 1)}))


if __name__ == "__main__":
    main()
