#!/usr/bin/env python3
"""Writes a MobileNet-v1-shaped quantized network in the nncosim model format
(docs/model-format.md) with synthetic, seed-deterministic weights, and optionally a
synthetic input image for `nncosim run MODEL --inputs FILE`.

The layer shapes are MobileNet v1's (Howard et al. 2017): CONV_2D 3x3/2 to 32 channels,
13 depthwise-separable blocks (DEPTHWISE_CONV_2D 3x3 + CONV_2D 1x1, ReLU6 after each),
a global AVERAGE_POOL_2D, FULLY_CONNECTED to the classes, then DEQUANTIZE and a float
SOFTMAX. Convolution and depthwise filters are TENSOR_QUANT8_SYMM_PER_CHANNEL; the FC
weights are per-tensor, of the activation type (int8, or uint8 with zero point 128).

--quant 16x8 writes the same network in nncosim's 16x8 quantization mode
(docs/quantization.md section 10; the model sets "quant16x8": true): TENSOR_QUANT16_SYMM
activations (zero point 0; the image is the same picture, its 8-bit codes times 256),
the same int8 symmetric per-channel filters, TENSOR_QUANT8_SYMM FC weights, int32 biases
at scale input * filter. NNAPI has no DEQUANTIZE of TENSOR_QUANT16_SYMM, so that variant
ends at the FULLY_CONNECTED: its output is the int16 logits.

Quantization without calibration data: every layer's weights are drawn from N(0, 1), and
a synthetic batch normalization is folded into them, as a trained network's converter
does. Its statistics come from propagating per-channel means and variances through the
network (each layer's output mean = sum w * mean(x), variance = sum w^2 * var(x) plus
the covariance of a filter's spatial taps, from a modelled spatial correlation; channels
taken as independent; a clipped Gaussian after ReLU6), starting from the synthetic
image's own per-channel statistics and correlation. The folded BN sets each channel's
pre-activation to about N(beta, gamma^2), beta in [-0.5, 1], gamma in [0.3, 1], so
channels are neither dead nor clipped by ReLU6. Output ranges then follow from the same
estimates: ReLU6 outputs cover [0, min(6, max over channels of beta + 4.5 gamma)] with
the zero point at the type's minimum; the logits cover +-max(|mean| + 4 std). Bias
scales are exactly float(input_scale * filter_scale[c]).

`--stats` runs the generated network on the synthetic image in pure Python with NNAPI's
integer arithmetic (the reference's requantization, bit for bit) and prints each layer's
range use and clamping, and the top classes. It takes about a minute for the full-size
network; a small variant (e.g. --size 96 --width-multiplier 0.25) takes seconds.
"""
import argparse
import json
import math
import os
import random
import struct
import sys

PADDING_SAME, PADDING_VALID = 1, 2
FUSED_NONE, FUSED_RELU, FUSED_RELU6 = 0, 1, 3
ACTIVATIONS = {"none": FUSED_NONE, "relu": FUSED_RELU, "relu6": FUSED_RELU6}
POOL_THRESHOLD = 1024  # constants above this many bytes go to the pool file
POOL_ALIGN = 16

# The 13 depthwise-separable blocks: (depthwise stride, pointwise output channels).
BLOCKS = [(1, 64), (2, 128), (1, 128), (2, 256), (1, 256), (2, 512), (1, 512), (1, 512),
          (1, 512), (1, 512), (1, 512), (2, 1024), (1, 1024)]
FIRST_CHANNELS = 32

# The synthetic batch normalization folded into each layer (see the module docstring).
BN_BETA = (-0.5, 1.0)
BN_GAMMA = (0.3, 1.0)
RELU6_HEADROOM_STD = 4.5  # ReLU6 output range: up to beta + this many gamma
# Neighbouring activations are correlated (rho at distance 1, rho^(|dy|+|dx|) further):
# the image's own rho to start with, then after a KxK layer of stride s, rho^s * RHO_DECAY
# but at least RHO_FLOOR, which follows what --stats measures on the synthetic image.
RHO_DECAY = 0.9
RHO_FLOOR = 0.15
LOGIT_STD = 2.0           # spread of the logits across classes
LOGIT_HEADROOM_STD = 4.0


def f32(x):
    """x rounded to float32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def round_away(x):
    """std::round: halves away from zero."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


class QType:
    """The activation type: TENSOR_QUANT8_ASYMM_SIGNED or TENSOR_QUANT8_ASYMM, or
    TENSOR_QUANT16_SYMM in the 16x8 mode (wide)."""

    def __init__(self, signed, wide=False):
        self.wide = wide
        if wide:
            self.name, self.qmin, self.qmax, self.center, self.pack = (
                "TENSOR_QUANT16_SYMM", -32768, 32767, 0, "h")
            # FC weights: int8 symmetric, zero point 0.
            self.weight_name, self.weight_center, self.weight_pack = "TENSOR_QUANT8_SYMM", 0, "b"
            return
        self.name = "TENSOR_QUANT8_ASYMM_SIGNED" if signed else "TENSOR_QUANT8_ASYMM"
        self.qmin, self.qmax = (-128, 127) if signed else (0, 255)
        self.center = 0 if signed else 128  # zero point of a symmetric range
        self.pack = "b" if signed else "B"
        self.weight_name, self.weight_center, self.weight_pack = self.name, self.center, self.pack


# --- model writer ---------------------------------------------------------------------


class ModelWriter:
    def __init__(self, quant16x8=False):
        self.quant16x8 = quant16x8
        self.operands = []
        self.operations = []
        self.pool = bytearray()
        self.scalars = {}

    def operand(self, type_, dims, scale=0.0, zero_point=0, lifetime="TEMPORARY_VARIABLE",
                name=None, **fields):
        o = {"type": type_, "dimensions": list(dims), "scale": f32(scale),
             "zeroPoint": zero_point, "lifetime": lifetime}
        if name:
            o["name"] = name
        o.update(fields)
        self.operands.append(o)
        return len(self.operands) - 1

    def constant(self, type_, dims, values, packed, scale=0.0, zero_point=0, name=None,
                 channel_quant=None):
        """A constant: inline (CONSTANT_COPY) when small, else in pool 0."""
        fields = {}
        if channel_quant is not None:
            dim, scales = channel_quant
            fields["channelQuant"] = {"channelDim": dim, "scales": [f32(s) for s in scales]}
        if len(packed) > POOL_THRESHOLD:
            self.pool.extend(b"\0" * (-len(self.pool) % POOL_ALIGN))
            fields["location"] = {"pool": 0, "offset": len(self.pool), "length": len(packed)}
            self.pool.extend(packed)
            lifetime = "CONSTANT_REFERENCE"
        else:
            fields["data"] = list(values)
            lifetime = "CONSTANT_COPY"
        return self.operand(type_, dims, scale, zero_point, lifetime, name, **fields)

    def int32(self, v):
        key = ("INT32", v)
        if key not in self.scalars:
            self.scalars[key] = self.operand("INT32", [], lifetime="CONSTANT_COPY", data=[v])
        return self.scalars[key]

    def float32(self, v):
        key = ("FLOAT32", v)
        if key not in self.scalars:
            self.scalars[key] = self.operand("FLOAT32", [], lifetime="CONSTANT_COPY", data=[v])
        return self.scalars[key]

    def op(self, type_, inputs, outputs):
        self.operations.append({"type": type_, "inputs": inputs, "outputs": outputs})

    def write(self, path, inputs, outputs):
        """Writes PATH and, when there are pooled constants, <stem>.pool0.bin beside it."""
        pools = []
        if self.pool:
            stem = os.path.splitext(os.path.basename(path))[0]
            pool_name = stem + ".pool0.bin"
            with open(os.path.join(os.path.dirname(path) or ".", pool_name), "wb") as f:
                f.write(self.pool)
            pools.append({"file": pool_name, "size": len(self.pool)})
        dump = lambda v: json.dumps(v, separators=(", ", ": "))  # noqa: E731
        lines = ['{"format": "nncosim-model/1",',
                 ' "relaxComputationFloat32toFloat16": false,']
        if self.quant16x8:
            lines.append(' "quant16x8": true,')
        lines += [' "pools": ' + dump(pools) + ",",
                  ' "main": {',
                  '  "operands": [']
        lines += ["   " + dump(o) + ("," if i + 1 < len(self.operands) else "")
                  for i, o in enumerate(self.operands)]
        lines += ["  ],", '  "operations": [']
        lines += ["   " + dump(o) + ("," if i + 1 < len(self.operations) else "")
                  for i, o in enumerate(self.operations)]
        lines += ["  ],",
                  '  "inputIndexes": ' + dump(inputs) + ",",
                  '  "outputIndexes": ' + dump(outputs),
                  " },",
                  ' "referenced": []}']
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")


# --- statistics -----------------------------------------------------------------------


def phi(z):
    return math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)


def cdf(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def clipped_normal_moments(mu, sigma, lo, hi):
    """Mean and variance of clip(Y, lo, hi) for Y ~ N(mu, sigma^2)."""
    if sigma <= 1e-12:
        v = min(max(mu, lo), hi)
        return v, 0.0
    a, b = (lo - mu) / sigma, (hi - mu) / sigma
    pa, pb, fa, fb = cdf(a), cdf(b), phi(a), phi(b)
    mean = lo * pa + hi * (1 - pb) + mu * (pb - pa) + sigma * (fa - fb)
    second = (lo * lo * pa + hi * hi * (1 - pb) + (mu * mu + sigma * sigma) * (pb - pa)
              + 2 * mu * sigma * (fa - fb) + sigma * sigma * (a * fa - b * fb))
    return mean, max(second - mean * mean, 0.0)


# --- NNAPI integer arithmetic (ops/quant/fixed_point.h, quant_params.cc) ---------------


def wrap32(x):
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def quantize_multiplier(real):
    if real == 0.0:
        return 0, 0
    q, exponent = math.frexp(real)
    fixed = int(math.floor(q * (1 << 31) + 0.5))
    if fixed == 1 << 31:
        fixed //= 2
        exponent += 1
    if exponent < -31:
        return 0, 0
    return fixed, exponent


def product_multiplier(input_scale, filter_scale, output_scale):
    return f32(input_scale * filter_scale) / output_scale


def srdhm(a, b):
    if a == b == -(1 << 31):
        return (1 << 31) - 1
    n = a * b + ((1 << 30) if a * b >= 0 else 1 - (1 << 30))
    return (abs(n) >> 31) * (1 if n >= 0 else -1)  # division truncating toward zero


def rounding_divide_by_pot(x, exponent):
    mask = (1 << exponent) - 1
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> exponent) + (1 if (x & mask) > threshold else 0)


def requantizer(multiplier, shift, zero_point, lo, hi):
    left, right = max(shift, 0), max(-shift, 0)

    def requant(acc):
        scaled = rounding_divide_by_pot(srdhm(wrap32(wrap32(acc) << left), multiplier), right)
        return max(min(wrap32(scaled + zero_point), hi), lo)
    return requant


def wrap64(x):
    return ((x + (1 << 63)) & 0xFFFFFFFFFFFFFFFF) - (1 << 63)


def requantizer16(multiplier, shift, lo, hi):
    """The 16x8 mode's output stage (quant::multiplyByQuantizedMultiplier64): the Q31
    multiplier reduced to Q15, one rounding shift of the exact int64 sum, low 32 bits."""
    assert -31 <= shift <= 14, "16x8 shift %d outside [-31, 14]" % shift
    reduced = 0x7FFF if multiplier >= 0x7FFF0000 else (multiplier + (1 << 15)) >> 16
    total = 15 - shift

    def requant(acc):
        return max(min(wrap32(wrap64(acc * reduced + (1 << (total - 1))) >> total), hi), lo)
    return requant


def layer_requantizer(qtype, multiplier, shift, zero_point, lo, hi):
    if qtype.wide:
        return requantizer16(multiplier, shift, lo, hi)
    return requantizer(multiplier, shift, zero_point, lo, hi)


def relu6_range(qtype, scale, zero_point):
    """quant::activationRange for ReLU6 (float division, round half away from zero)."""
    return (max(qtype.qmin, zero_point),
            min(qtype.qmax, zero_point + round_away(f32(6.0 / f32(scale)))))


def activation_range(qtype, act, scale, zero_point):
    """quant::activationRange of a fused activation ('none', 'relu', 'relu6')."""
    if act == "relu6":
        return relu6_range(qtype, scale, zero_point)
    if act == "relu":
        return max(qtype.qmin, zero_point), qtype.qmax
    return qtype.qmin, qtype.qmax


def output_quant(qtype, act, pre):
    """Scale and zero point of a layer's output from its channels' expected
    pre-activations N(mean, sd^2): ReLU6 covers [0, min(6, max mean + 4.5 sd)], ReLU
    [0, max mean + 4.5 sd], none the whole [min mean - 4.5 sd, max mean + 4.5 sd] (zero
    inside it); the 16x8 mode's symmetric type covers the larger end."""
    upper = max(mu + RELU6_HEADROOM_STD * sd for mu, sd in pre)
    lower = 0.0 if act != "none" else min(0.0, min(mu - RELU6_HEADROOM_STD * sd for mu, sd in pre))
    upper = max(upper, 1e-3)
    if act == "relu6":
        upper = min(6.0, upper)
    if qtype.wide:
        return f32(max(upper, -lower) / qtype.qmax), 0
    scale = f32((upper - lower) / (qtype.qmax - qtype.qmin))
    zp = max(qtype.qmin, min(qtype.qmax, qtype.qmin + round_away(-lower / scale)))
    return scale, zp


def output_stats(act, pre):
    """Per-channel (mean, variance) after the activation."""
    if act == "relu6":
        return [clipped_normal_moments(mu, sd, 0.0, 6.0) for mu, sd in pre]
    if act == "relu":
        return [clipped_normal_moments(mu, sd, 0.0, 1e30) for mu, sd in pre]
    return [(mu, sd * sd) for mu, sd in pre]


# --- the network ----------------------------------------------------------------------


def synthetic_image(size, seed, qtype):
    """A smooth synthetic picture: a background gradient, a few soft colored blobs and
    stripes, a little noise; real values in [-1, 1), scale 1/128."""
    rng = random.Random(seed * 7919 + 17)
    grad = [(rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), rng.uniform(-0.3, 0.3))
            for _ in range(3)]
    blobs = [(rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.05, 0.25),
              [rng.uniform(-0.9, 0.9) for _ in range(3)]) for _ in range(6)]
    freq, angle = rng.uniform(4, 12), rng.uniform(0, math.pi)
    codes = []
    for y in range(size):
        v = y / max(size - 1, 1)
        for x in range(size):
            u = x / max(size - 1, 1)
            along = u * math.cos(angle) + v * math.sin(angle)
            stripe = 0.15 * math.sin(2 * math.pi * freq * along)
            for c in range(3):
                val = grad[c][0] * (u - 0.5) + grad[c][1] * (v - 0.5) + grad[c][2] + stripe
                for bx, by, r, color in blobs:
                    val += color[c] * math.exp(-((u - bx) ** 2 + (v - by) ** 2) / (2 * r * r))
                val += rng.gauss(0, 0.03)
                q = max(-128, min(127, round_away(val * 128)))
                codes.append(q + qtype.center)
    return codes


def spatial_correlation(codes, size, channels):
    """Mean correlation of horizontally and vertically adjacent pixels of an NHWC image."""
    total = 0.0
    for c in range(channels):
        v = codes[c::channels]
        m = sum(v) / len(v)
        d = [x - m for x in v]
        var = sum(x * x for x in d) / len(d)
        if size < 2 or var == 0:
            continue
        pairs = [(y * size + x, y * size + x + 1) for y in range(size) for x in range(size - 1)]
        pairs += [(y * size + x, (y + 1) * size + x) for y in range(size - 1) for x in range(size)]
        total += sum(d[a] * d[b] for a, b in pairs) / len(pairs) / var
    return min(max(total / channels, 0.0), 0.99)


def channel_stats(codes, channels, scale, zero_point):
    """Per-channel real mean and variance of an NHWC tensor of codes."""
    n = len(codes) // channels
    stats = []
    for c in range(channels):
        vals = [(q - zero_point) * scale for q in codes[c::channels]]
        m = sum(vals) / n
        stats.append((m, max(sum((v - m) ** 2 for v in vals) / n, 0.0)))
    return stats


def quantize_per_channel(rows):
    """Symmetric int8 per row: (codes per row, scale per row), max |w| -> 127."""
    out, scales = [], []
    for row in rows:
        s = f32(max(max(abs(w) for w in row), 1e-30) / 127.0)
        out.append([max(-127, min(127, round_away(w / s))) for w in row])
        scales.append(s)
    return out, scales


class Builder:
    """Builds the network into a ModelWriter and records each layer for the simulator."""

    def __init__(self, args, qtype, image):
        self.args, self.q, self.rng = args, qtype, random.Random(args.seed)
        self.m = ModelWriter(qtype.wide)
        self.layers = []  # for --stats
        # 16x8: the same picture, its codes times 256 at a 256 times finer scale.
        self.in_scale = f32(1.0 / 32768) if qtype.wide else f32(1.0 / 128)
        self.in_zp = qtype.center
        self.x = self.m.operand(qtype.name, [1, args.size, args.size, 3], self.in_scale,
                                self.in_zp, "SUBGRAPH_INPUT", "image")
        self.input_index = self.x
        self.h = self.w = args.size
        self.c = 3
        self.scale, self.zp = self.in_scale, self.in_zp
        self.stats = channel_stats(image, 3, self.in_scale, self.in_zp)
        self.rho = spatial_correlation(image, args.size, 3)

    def bn_fold(self, raw_rows, k, channel_of):
        """Folds a synthetic BN into raw weight rows (taps in (kh, kw, channel) order):
        returns real weights and biases and the expected per-channel pre-activation
        (beta, gamma). The variance counts the covariance of taps on the same input
        channel (spatial correlation), not across channels."""
        corr = [[self.rho ** (abs(a // k - b // k) + abs(a % k - b % k)) for b in range(k * k)]
                for a in range(k * k)]
        rows, biases, pre = [], [], []
        for o, row in enumerate(raw_rows):
            chans = channel_of(o)
            per_tap = len(chans) // (k * k)  # input channels per tap
            mu = sum(w * self.stats[ci][0] for w, ci in zip(row, chans))
            var = 0.0 if k > 1 else sum(w * w * self.stats[ci][1] for w, ci in zip(row, chans))
            for j in range(per_tap if k > 1 else 0):
                ws = row[j::per_tap]
                quad = sum(ws[a] * corr[a][b] * ws[b] for a in range(k * k) for b in range(k * k))
                var += self.stats[chans[j]][1] * quad
            sigma = math.sqrt(var) if var > 1e-12 else 1.0
            beta, gamma = self.rng.uniform(*BN_BETA), self.rng.uniform(*BN_GAMMA)
            g = gamma / sigma
            rows.append([w * g for w in row])
            biases.append(beta - mu * g)
            pre.append((beta, gamma if var > 1e-12 else 0.0))
        return rows, biases, pre

    def conv_like(self, kind, name, out_c, k, stride, act="relu6"):
        """CONV_2D (kind 'conv') or DEPTHWISE_CONV_2D (kind 'dw'), SAME, with the fused
        activation act ('relu6', 'relu' or 'none')."""
        q, m = self.q, self.m
        in_c = self.c
        if kind == "conv":
            raw = [[self.rng.gauss(0, 1) for _ in range(k * k * in_c)] for _ in range(out_c)]
            taps = [t % in_c for t in range(k * k * in_c)]  # filter [O, kh, kw, I]
            rows, biases, pre = self.bn_fold(raw, k, lambda o: taps)
        else:
            assert out_c == in_c
            raw = [[self.rng.gauss(0, 1) for _ in range(k * k)] for _ in range(out_c)]
            rows, biases, pre = self.bn_fold(raw, k, lambda o: [o] * (k * k))
        wq, wscales = quantize_per_channel(rows)
        if kind == "conv":
            flat = [v for row in wq for v in row]
            dims, channel_dim = [out_c, k, k, in_c], 0
        else:  # [1, kh, kw, C]: channel fastest
            flat = [wq[c][t] for t in range(k * k) for c in range(out_c)]
            dims, channel_dim = [1, k, k, out_c], 3
        w = m.constant("TENSOR_QUANT8_SYMM_PER_CHANNEL", dims, flat,
                       struct.pack("<%db" % len(flat), *flat), name=name + ".weights",
                       channel_quant=(channel_dim, wscales))
        bias_q = [round_away(b / f32(self.scale * s)) for b, s in zip(biases, wscales)]
        assert all(-(1 << 31) <= v < (1 << 31) for v in bias_q), name + ": bias beyond int32"
        b = m.constant("TENSOR_INT32", [out_c], bias_q, struct.pack("<%di" % out_c, *bias_q),
                       name=name + ".bias")

        if act == "relu6":  # (MobileNet-v1's own formula, kept bit for bit)
            upper = min(6.0, max(beta + RELU6_HEADROOM_STD * gamma for beta, gamma in pre))
            if q.wide:  # symmetric: [0, upper] uses the positive half
                out_scale, out_zp = f32(upper / q.qmax), 0
            else:
                out_scale, out_zp = f32(upper / (q.qmax - q.qmin)), q.qmin
        else:
            out_scale, out_zp = output_quant(q, act, pre)
        oh, ow = -(-self.h // stride), -(-self.w // stride)
        y = m.operand(q.name, [1, oh, ow, out_c], out_scale, out_zp, name=name)
        pad, s = m.int32(PADDING_SAME), m.int32(stride)
        fused = m.int32(ACTIVATIONS[act])
        if kind == "conv":
            m.op("CONV_2D", [self.x, w, b, pad, s, s, fused], [y])
        else:
            m.op("DEPTHWISE_CONV_2D", [self.x, w, b, pad, s, s, m.int32(1), fused], [y])

        lo, hi = activation_range(q, act, out_scale, out_zp)
        requants = [layer_requantizer(q, *quantize_multiplier(
                        product_multiplier(self.scale, ws, out_scale)), out_zp, lo, hi)
                    for ws in wscales]
        self.layers.append({"kind": kind, "name": name, "k": k, "stride": stride,
                            "in": (self.h, self.w, in_c), "out": (oh, ow, out_c),
                            "in_zp": self.zp, "weights": wq, "bias": bias_q,
                            "requant": requants, "scale": out_scale, "zp": out_zp,
                            "range": (lo, hi),
                            "macs": oh * ow * out_c * k * k * (in_c if kind == "conv" else 1)})
        self.stats = output_stats(act, pre)
        if k > 1:
            self.rho = max(RHO_FLOOR, RHO_DECAY * self.rho ** stride)
        self.x, self.h, self.w, self.c = y, oh, ow, out_c
        self.scale, self.zp = out_scale, out_zp

    def state(self):
        """Where the network is (tensor, shape, quantization, statistics): a branch point."""
        return (self.x, self.h, self.w, self.c, self.scale, self.zp, list(self.stats), self.rho)

    def restore(self, state):
        (self.x, self.h, self.w, self.c, self.scale, self.zp, stats, self.rho) = state
        self.stats = list(stats)

    def add(self, name, other, act="none"):
        """ADD of the current tensor and an earlier one (a residual), fused act. The
        output range follows the sum's statistics (channels of both taken as independent)."""
        q, m = self.q, self.m
        ox, oh, ow, oc, _, _, ostats, orho = other
        assert (oh, ow, oc) == (self.h, self.w, self.c), name + ": shapes differ"
        pre = [(ma + mb, math.sqrt(va + vb))
               for (ma, va), (mb, vb) in zip(self.stats, ostats)]
        out_scale, out_zp = output_quant(q, act, pre)
        y = m.operand(q.name, [1, self.h, self.w, self.c], out_scale, out_zp, name=name)
        m.op("ADD", [ox, self.x, m.int32(ACTIVATIONS[act])], [y])
        self.layers.append({"kind": "add", "name": name, "in": (self.h, self.w, self.c),
                            "out": (self.h, self.w, self.c), "macs": 0})
        self.stats = output_stats(act, pre)
        self.rho = max(self.rho, orho)
        self.x, self.scale, self.zp = y, out_scale, out_zp

    def max_pool(self, k, stride):
        """MAX_POOL_2D kxk, SAME; the output keeps the input's quantization. Statistics:
        the maximum of k*k correlated taps, about mean + 1.5 sd with 0.4 of the variance
        (used only to size later layers' ranges)."""
        q, m = self.q, self.m
        oh, ow = -(-self.h // stride), -(-self.w // stride)
        y = m.operand(q.name, [1, oh, ow, self.c], self.scale, self.zp, name="maxpool")
        m.op("MAX_POOL_2D", [self.x, m.int32(PADDING_SAME), m.int32(stride), m.int32(stride),
                             m.int32(k), m.int32(k), m.int32(FUSED_NONE)], [y])
        self.layers.append({"kind": "maxpool", "name": "maxpool", "in": (self.h, self.w, self.c),
                            "out": (oh, ow, self.c), "macs": 0})
        self.stats = [(mu + 1.5 * math.sqrt(var), 0.4 * var) for mu, var in self.stats]
        self.x, self.h, self.w = y, oh, ow

    def average_pool(self):
        q, m = self.q, self.m
        y = m.operand(q.name, [1, 1, 1, self.c], self.scale, self.zp, name="avgpool")
        m.op("AVERAGE_POOL_2D", [self.x, m.int32(PADDING_VALID), m.int32(1), m.int32(1),
                                 m.int32(self.w), m.int32(self.h), m.int32(FUSED_NONE)], [y])
        self.layers.append({"kind": "avgpool", "name": "avgpool", "in": (self.h, self.w, self.c),
                            "out": (1, 1, self.c), "scale": self.scale, "zp": self.zp,
                            "range": (q.qmin, q.qmax), "macs": 0})
        n = self.h * self.w
        self.stats = [(mean, var / n) for mean, var in self.stats]
        self.x, self.h, self.w = y, 1, 1

    def fully_connected(self, classes):
        q, m = self.q, self.m
        in_c = self.c
        raw = [[self.rng.gauss(0, 1) for _ in range(in_c)] for _ in range(classes)]
        g = LOGIT_STD / math.sqrt(max(sum(mu * mu + var for mu, var in self.stats), 1e-12))
        rows = [[w * g for w in row] for row in raw]
        w_scale = f32(max(abs(w) for row in rows for w in row) / 127.0)
        wq = [[max(-127, min(127, round_away(w / w_scale))) for w in row] for row in rows]
        flat = [v + q.weight_center for row in wq for v in row]
        w = m.constant(q.weight_name, [classes, in_c], flat,
                       struct.pack("<%d%s" % (len(flat), q.weight_pack), *flat),
                       w_scale, q.weight_center, name="fc.weights")
        bias_scale = f32(self.scale * w_scale)
        biases = [self.rng.gauss(0, 0.1 * LOGIT_STD) for _ in range(classes)]
        bias_q = [round_away(v / bias_scale) for v in biases]
        b = m.constant("TENSOR_INT32", [classes], bias_q, struct.pack("<%di" % classes, *bias_q),
                       bias_scale, 0, name="fc.bias")
        # Expected logits: mean and std of each class over the (pooled) input.
        reach = 0.0
        for row, bias in zip(rows, biases):
            mu = bias + sum(wv * s[0] for wv, s in zip(row, self.stats))
            sd = math.sqrt(sum(wv * wv * s[1] for wv, s in zip(row, self.stats)))
            reach = max(reach, abs(mu) + LOGIT_HEADROOM_STD * sd)
        out_scale, out_zp = f32(max(reach, 1e-3) / (q.qmax - q.center)), q.center
        lifetime = "SUBGRAPH_OUTPUT" if q.wide else "TEMPORARY_VARIABLE"
        y = m.operand(q.name, [1, classes], out_scale, out_zp, lifetime, name="logits")
        m.op("FULLY_CONNECTED", [self.x, w, b, m.int32(FUSED_NONE)], [y])
        self.layers.append({"kind": "fc", "name": "fc", "in": (1, 1, in_c), "out": (1, 1, classes),
                            "in_zp": self.zp, "weights": wq, "bias": bias_q,
                            "requant": [layer_requantizer(q, *quantize_multiplier(
                                product_multiplier(self.scale, w_scale, out_scale)),
                                out_zp, q.qmin, q.qmax)],
                            "scale": out_scale, "zp": out_zp, "range": (q.qmin, q.qmax),
                            "macs": classes * in_c})
        self.x, self.c, self.scale, self.zp = y, classes, out_scale, out_zp

    def classifier(self, classes):
        """Global AVERAGE_POOL_2D, FULLY_CONNECTED to the classes, then DEQUANTIZE and a
        float SOFTMAX; the network's output operand (the int16 logits in the 16x8 mode,
        which has no DEQUANTIZE of TENSOR_QUANT16_SYMM)."""
        self.average_pool()
        self.fully_connected(classes)
        return self.x if self.q.wide else self.float_tail(classes)

    def float_tail(self, classes):
        m = self.m
        logits = m.operand("TENSOR_FLOAT32", [1, classes], name="logits.float")
        m.op("DEQUANTIZE", [self.x], [logits])
        probs = m.operand("TENSOR_FLOAT32", [1, classes], lifetime="SUBGRAPH_OUTPUT",
                          name="probabilities")
        m.op("SOFTMAX", [logits, m.float32(1.0)], [probs])
        return probs


def channels(c, alpha):
    return max(1, int(c * alpha + 1e-9))


def build(args, qtype, image):
    b = Builder(args, qtype, image)
    b.conv_like("conv", "conv1", channels(FIRST_CHANNELS, args.width_multiplier), 3, 2)
    for i, (stride, out_c) in enumerate(BLOCKS, 1):
        b.conv_like("dw", "block%d.dw" % i, b.c, 3, stride)
        b.conv_like("conv", "block%d.pw" % i, channels(out_c, args.width_multiplier), 1, 1)
    return b, b.classifier(args.classes)


# --- --stats: the network in NNAPI integer arithmetic ---------------------------------


def run_layer(layer, codes):
    h, w, c = layer["in"]
    oh, ow, oc = layer["out"]
    kind = layer["kind"]
    if kind == "avgpool":
        lo, hi = layer["range"]
        out = []
        n = h * w
        for ch in range(c):
            s = sum(codes[ch::c])
            avg = (s + n // 2) // n if s > 0 else -((-s + n // 2) // n)
            out.append(max(min(avg, hi), lo))
        return out
    zp = layer["in_zp"]
    xc = [v - zp for v in codes]
    weights, bias, requant = layer["weights"], layer["bias"], layer["requant"]
    out = []
    if kind == "fc":
        rq = requant[0]
        return [rq(sum(map(int.__mul__, xc, row)) + bv) for row, bv in zip(weights, bias)]
    k, stride = layer["k"], layer["stride"]
    pad_y = max((oh - 1) * stride + k - h, 0) // 2
    pad_x = max((ow - 1) * stride + k - w, 0) // 2
    zero_row = [0] * c
    rows = [xc[i * c:(i + 1) * c] for i in range(h * w)]
    if kind == "dw":
        taps = [[weights[ch][t] for ch in range(c)] for t in range(k * k)]
    for oy in range(oh):
        for ox in range(ow):
            patch = []
            for fy in range(k):
                iy = oy * stride - pad_y + fy
                for fx in range(k):
                    ix = ox * stride - pad_x + fx
                    inside = 0 <= iy < h and 0 <= ix < w
                    patch.append(rows[iy * w + ix] if inside else zero_row)
            if kind == "dw":
                acc = list(bias)
                for row, tap in zip(patch, taps):
                    acc = list(map(int.__add__, acc, map(int.__mul__, row, tap)))
                out.extend(rq(a) for rq, a in zip(requant, acc))
            else:
                flat = patch[0] if k == 1 else [v for row in patch for v in row]
                out.extend(rq(sum(map(int.__mul__, flat, wrow)) + bv)
                           for wrow, bv, rq in zip(weights, bias, requant))
    return out


def simulate(builder, image, qtype, report):
    codes = image
    table = []
    for layer in builder.layers:
        codes = run_layer(layer, codes)
        lo, hi = layer["range"]
        n = len(codes)
        scale, zp = layer["scale"], layer["zp"]
        real = [(v - zp) * scale for v in codes]
        mean = sum(real) / n
        row = {"name": layer["name"], "shape": list(layer["out"]), "scale": scale, "zeroPoint": zp,
               "min": min(codes), "max": max(codes), "mean": mean,
               "std": math.sqrt(sum((v - mean) ** 2 for v in real) / n),
               "at_low": sum(v == lo for v in codes) / n,
               "at_high": sum(v == hi for v in codes) / n,
               "at_type_max": sum(v == qtype.qmax for v in codes) / n,
               "distinct": len(set(codes))}
        table.append(row)
        if report:
            print("  %-10s %-15s scale %.6f zp %4d  codes [%4d, %4d] %3d distinct  real mean %.3f "
                  "std %.3f  at act min %5.1f%%  at act max %5.1f%%" %
                  (row["name"], "x".join(map(str, row["shape"])), scale, zp, row["min"], row["max"],
                   row["distinct"], mean, row["std"], 100 * row["at_low"], 100 * row["at_high"]))
            sys.stdout.flush()
    last = builder.layers[-1]
    logits = [f32(f32(last["scale"]) * (v - last["zp"])) for v in codes]
    top = max(logits)
    e = [math.exp(v - top) for v in logits]
    probs = [v / sum(e) for v in e]
    return table, codes, logits, probs


# --- main -----------------------------------------------------------------------------


def main(build_network=build, doc=__doc__, default_width=1.0):
    """The command line; gen_mobilenet_v2.py and gen_resnet50.py call it with their own
    network (a function (args, qtype, image) -> (Builder, output operand))."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--output", required=True,
                   help="model JSON to write (pool file beside it)")
    p.add_argument("--inputs-out", metavar="FILE",
                   help="also write the synthetic image as an inputs file")
    p.add_argument("--seed", type=int, default=1, help="weights and image seed (default 1)")
    p.add_argument("--size", type=int, default=224, help="input height and width (default 224)")
    p.add_argument("--width-multiplier", type=float, default=default_width,
                   help="alpha: 1.0, 0.75, 0.5, 0.25 (default 1.0)")
    p.add_argument("--classes", type=int, default=1000, help="output classes (default 1000)")
    p.add_argument("--unsigned", action="store_true",
                   help="TENSOR_QUANT8_ASYMM activations (default TENSOR_QUANT8_ASYMM_SIGNED)")
    p.add_argument("--quant", choices=["8", "16x8"], default="8",
                   help="8: 8-bit activations (default); 16x8: the 16x8 mode "
                        "(quant16x8 = true): int16 activations (TENSOR_QUANT16_SYMM), int8 "
                        "symmetric per-channel weights, int32 bias; the output is the int16 "
                        "logits")
    p.add_argument("--stats", action="store_true",
                   help="run the network in Python (NNAPI integer arithmetic) on the synthetic "
                        "image and print per-layer ranges and the top classes")
    p.add_argument("--stats-json", metavar="FILE",
                   help="write those statistics as JSON (implies --stats)")
    args = p.parse_args()
    if args.size < 1 or args.classes < 1 or not 0 < args.width_multiplier <= 4:
        p.error("--size and --classes must be >= 1, --width-multiplier in (0, 4]")
    if args.quant == "16x8" and args.unsigned:
        p.error("--unsigned is for 8-bit activations; --quant 16x8 is symmetric int16")

    wide = args.quant == "16x8"
    qtype = QType(not args.unsigned, wide)
    image = synthetic_image(args.size, args.seed, QType(True) if wide else qtype)
    if wide:
        image = [v * 256 for v in image]
    builder, probs = build_network(args, qtype, image)
    out_dir = os.path.dirname(args.output)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    builder.m.write(args.output, [builder.input_index], [probs])
    macs = sum(layer["macs"] for layer in builder.layers)
    m = builder.m
    print("wrote %s: %d operands, %d operations, %d MACs, %d pool bytes" %
          (args.output, len(m.operands), len(m.operations), macs, len(m.pool)))

    if args.inputs_out:
        d = os.path.dirname(args.inputs_out)
        if d:
            os.makedirs(d, exist_ok=True)
        with open(args.inputs_out, "w") as f:
            json.dump({"inputs": [{"dimensions": [1, args.size, args.size, 3], "data": image}]}, f)
            f.write("\n")
        print("wrote %s" % args.inputs_out)

    if args.stats or args.stats_json:
        unsupported = sorted({layer["kind"] for layer in builder.layers} - {"conv", "dw", "avgpool", "fc"})
        if unsupported:
            p.error("--stats simulates CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and "
                    "FULLY_CONNECTED only; this network also has " + ", ".join(unsupported))
        print("simulating (NNAPI integer arithmetic) ...")
        table, codes, logits, probs = simulate(builder, image, qtype, report=True)
        order = sorted(range(len(probs)), key=lambda i: -probs[i])
        entropy = -sum(v * math.log(v) for v in probs if v > 0)
        print("top classes: " + ", ".join("%d (%.4f)" % (i, probs[i]) for i in order[:5]) +
              "; entropy %.3f nats (uniform %.3f)" % (entropy, math.log(len(probs))))
        if args.stats_json:
            with open(args.stats_json, "w") as f:
                json.dump({"layers": table, "output_codes": codes, "logits": logits,
                           "probabilities": probs}, f, indent=1)
                f.write("\n")


if __name__ == "__main__":
    main()
