#!/usr/bin/env python3
"""Writes a ResNet-50-shaped quantized network in the nncosim model format
(docs/model-format.md) with synthetic, seed-deterministic weights, and optionally a
synthetic input image for `nncosim run MODEL --inputs FILE`.

The layer shapes are ResNet-50's (He et al. 2016, the "v1.5" variant with the stride on
the 3x3 convolution): CONV_2D 7x7/2 to 64 channels with ReLU, MAX_POOL_2D 3x3/2, four
stages of 3, 4, 6 and 3 bottlenecks of width 64, 128, 256, 512 (CONV_2D 1x1 to the width
with ReLU, CONV_2D 3x3 of the stage's stride in its first block with ReLU, a linear
CONV_2D 1x1 to 4x the width, a residual ADD with ReLU; the first block of each stage adds
a linear CONV_2D 1x1 projection of its input, of the same stride), a global
AVERAGE_POOL_2D, FULLY_CONNECTED to the classes, DEQUANTIZE and a float SOFTMAX.
--width-multiplier scales every width.

Weights, the folded batch normalization, the quantization from propagated statistics
and the options are those of gen_mobilenet_v1.py (whose builder this uses; see its
docstring); ReLU outputs cover [0, max mean + 4.5 sd], linear ones both sides of zero.
--stats is not available (the Python simulation has no ADD or MAX_POOL_2D). The full
network (25.5 M weights) takes a few minutes of Python to write.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_mobilenet_v1 as v1  # noqa: E402

STAGES = [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]  # width, blocks, stride
STEM_CHANNELS, EXPANSION = 64, 4


def build(args, qtype, image):
    width = lambda c: max(1, int(c * args.width_multiplier + 1e-9))  # noqa: E731
    b = v1.Builder(args, qtype, image)
    b.conv_like("conv", "conv1", width(STEM_CHANNELS), 7, 2, act="relu")
    b.max_pool(3, 2)
    for stage, (c, n, s) in enumerate(STAGES, 2):
        for i in range(n):
            name = "res%d.%d" % (stage, i + 1)
            stride = s if i == 0 else 1
            entry = b.state()
            if i == 0:
                b.conv_like("conv", name + ".shortcut", width(c) * EXPANSION, 1, stride, act="none")
                shortcut = b.state()
                b.restore(entry)
            else:
                shortcut = entry
            b.conv_like("conv", name + ".a", width(c), 1, 1, act="relu")
            b.conv_like("conv", name + ".b", width(c), 3, stride, act="relu")
            b.conv_like("conv", name + ".c", width(c) * EXPANSION, 1, 1, act="none")
            b.add(name + ".add", shortcut, act="relu")
    return b, b.classifier(args.classes)


if __name__ == "__main__":
    v1.main(build, __doc__)
