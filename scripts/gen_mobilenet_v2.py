#!/usr/bin/env python3
"""Writes a MobileNet-v2-shaped quantized network in the nncosim model format
(docs/model-format.md) with synthetic, seed-deterministic weights, and optionally a
synthetic input image for `nncosim run MODEL --inputs FILE`.

The layer shapes are MobileNet v2's (Sandler et al. 2018): CONV_2D 3x3/2 to 32 channels,
17 inverted-residual blocks (t, c, n, s) = (1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2),
(6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1): a CONV_2D 1x1 expansion to
t times the input channels with ReLU6 (not when t = 1), a DEPTHWISE_CONV_2D 3x3 of stride
s with ReLU6, a linear CONV_2D 1x1 projection to c channels (no activation), and a
residual ADD of the block's input when the stride is 1 and the channels agree; then
CONV_2D 1x1 to 1280 with ReLU6, a global AVERAGE_POOL_2D, FULLY_CONNECTED to the classes,
DEQUANTIZE and a float SOFTMAX. Channel counts under --width-multiplier round to
multiples of 8 as the paper's reference implementation does (the last layer keeps 1280
below a multiplier of 1).

Weights, the folded batch normalization, the quantization from propagated statistics
and the options are those of gen_mobilenet_v1.py (whose builder this uses; see its
docstring). The outputs of the linear projections and of the residual ADDs cover their
channels' expected range on both sides of zero. --stats is not available (the Python
simulation has no ADD).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_mobilenet_v1 as v1  # noqa: E402

BOTTLENECKS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
               (6, 160, 3, 2), (6, 320, 1, 1)]
FIRST_CHANNELS, LAST_CHANNELS = 32, 1280


def make_divisible(v, divisor=8):
    """The paper's rounding: to the nearest multiple of divisor, never below 90 % of v."""
    rounded = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


def build(args, qtype, image):
    alpha = args.width_multiplier
    b = v1.Builder(args, qtype, image)
    b.conv_like("conv", "conv1", make_divisible(FIRST_CHANNELS * alpha), 3, 2)
    block = 0
    for t, c, n, s in BOTTLENECKS:
        out_c = make_divisible(c * alpha)
        for i in range(n):
            block += 1
            name = "block%d" % block
            stride = s if i == 0 else 1
            shortcut = b.state() if stride == 1 and b.c == out_c else None
            if t != 1:
                b.conv_like("conv", name + ".expand", b.c * t, 1, 1)
            b.conv_like("dw", name + ".dw", b.c, 3, stride)
            b.conv_like("conv", name + ".project", out_c, 1, 1, act="none")
            if shortcut is not None:
                b.add(name + ".add", shortcut)
    last = make_divisible(LAST_CHANNELS * alpha) if alpha > 1.0 else LAST_CHANNELS
    b.conv_like("conv", "conv_last", last, 1, 1)
    return b, b.classifier(args.classes)


if __name__ == "__main__":
    v1.main(build, __doc__)
