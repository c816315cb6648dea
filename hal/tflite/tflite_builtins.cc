// The builtin operator table: one mapping per TFLite builtin that has an NNAPI
// equivalent, written as TFLite's NNAPI delegate maps it (inputs in NNAPI's order,
// options as scalar operands, explicit padding computed the way TFLite computes it).
// Builtins missing from the table are refused by the importer with their name.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "tflite_importer.h"

namespace nncosim::tflite {
namespace {

using hal::OperandType;
using hal::OperationType;
using hal::Result;
using hal::Status;
using B = fb::BuiltinOperator;

// NNAPI FuseCode of a TFLite fused activation.
Result<int32_t> fuseCode(const OpContext& c, fb::ActivationFunctionType a) {
  switch (a) {
    case fb::ActivationFunctionType::NONE:
      return 0;
    case fb::ActivationFunctionType::RELU:
      return 1;
    case fb::ActivationFunctionType::RELU_N1_TO_1:
      return 2;
    case fb::ActivationFunctionType::RELU6:
      return 3;
    default:
      return c.fail("fused activation ", fb::EnumNameActivationFunctionType(a),
                    " has no NNAPI FuseCode");
  }
}

// Options of type T, or an error naming what was found instead.
template <typename T>
Result<const T*> options(const OpContext& c) {
  const T* o = c.op().template builtin_options_as<T>();
  if (!o) {
    const char* found = fb::EnumNameBuiltinOptions(c.op().builtin_options_type());
    return c.fail("builtin_options: expected ",
                  fb::EnumNameBuiltinOptions(fb::BuiltinOptionsTraits<T>::enum_value), ", found ",
                  found && *found ? found : "an unknown options table");
  }
  return o;
}

#define NNC_ASSIGN(var, expr)                              \
  auto var##_r_ = (expr);                                  \
  if (!var##_r_.ok()) return hal::Error{var##_r_.error()}; \
  auto var = *var##_r_

// Padding along one axis as TFLite computes it (ComputePaddingHeightWidth): the output
// size from the scheme, then the total padding split with the odd pixel at the end.
struct AxisPadding {
  int32_t before = 0, after = 0;
  uint32_t out = 0;
};
Result<AxisPadding> axisPadding(const OpContext& c, fb::Padding scheme, int32_t in, int32_t filter,
                                int32_t stride, int32_t dilation, const char* axis) {
  if (stride < 1 || dilation < 1 || filter < 1)
    return c.fail(axis, ": stride ", stride, ", dilation ", dilation, ", filter ", filter,
                  " must all be >= 1");
  const int64_t effective = int64_t{filter - 1} * dilation + 1;
  int64_t out = scheme == fb::Padding::SAME ? (int64_t{in} + stride - 1) / stride
                                            : (int64_t{in} - effective + stride) / stride;
  if (out < 0) out = 0;
  const int64_t total = std::max<int64_t>((out - 1) * stride + effective - in, 0);
  AxisPadding p;
  p.before = static_cast<int32_t>(total / 2);
  p.after = static_cast<int32_t>(total - total / 2);
  p.out = static_cast<uint32_t>(out);
  return p;
}

// Dimension d of a tensor (0 when absent: an optional input of -1, or a lower rank).
int32_t dim(const OpContext& c, int32_t tensor, size_t d) {
  if (tensor < 0) return 0;
  const fb::Tensor& t = const_cast<OpContext&>(c).im().tensor(tensor);
  return t.shape() && d < t.shape()->size() ? t.shape()->Get(d) : 0;
}
uint32_t rankOf(OpContext& c, int32_t tensor) {
  if (tensor < 0) return 0;
  const fb::Tensor& t = c.im().tensor(tensor);
  return t.shape() ? t.shape()->size() : 0;
}

// A zero bias for layers whose TFLite bias input is absent (-1).
uint32_t zeroBias(OpContext& c, uint32_t input, uint32_t filter, uint32_t channels) {
  const hal::Operand in = c.im().operand(input);
  const hal::Operand w = c.im().operand(filter);
  if (in.type == OperandType::TENSOR_FLOAT32 || in.type == OperandType::TENSOR_FLOAT16) {
    std::vector<uint8_t> zero(channels * hal::elementSize(in.type), 0);
    return c.im().constant(in.type, {channels}, zero.data(), zero.size());
  }
  std::vector<int32_t> zero(channels, 0);
  const float scale = w.channelQuant ? 0.0f : in.scale * w.scale;
  return c.im().constant(OperandType::TENSOR_INT32, {channels}, zero.data(), zero.size() * 4,
                         scale);
}

// The zero bias is the one constant the importer allocates from a declared shape, so
// its size is bounded: no real layer has this many output channels.
constexpr uint32_t kMaxSynthesizedBias = 1u << 20;

Result<uint32_t> biasOrZero(OpContext& c, size_t i, uint32_t input, uint32_t filter,
                            uint32_t channels) {
  if (c.hasInput(i)) return c.in(i);
  if (channels == 0 || channels > kMaxSynthesizedBias)
    return c.fail("no bias input, and ", channels, " output channels is outside [1, ",
                  kMaxSynthesizedBias, "] for a zero bias");
  return zeroBias(c, input, filter, channels);
}

// Checks the computed output size against the TFLite output tensor.
Status checkSpatial(const OpContext& c, uint32_t outH, uint32_t outW) {
  const int32_t t = c.outputTensor(0);
  if (dim(c, t, 1) != static_cast<int32_t>(outH) || dim(c, t, 2) != static_cast<int32_t>(outW))
    return c.fail("output is ", dim(c, t, 1), "x", dim(c, t, 2),
                  " but the padding, strides and "
                  "dilation give ",
                  outH, "x", outW);
  return Status::Ok();
}

Status conv2d(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 3, 1));
  NNC_ASSIGN(o, options<fb::Conv2DOptions>(c));
  if (rankOf(c, c.inputTensor(0)) != 4 || rankOf(c, c.inputTensor(1)) != 4)
    return c.fail("input and filter must have rank 4");
  const int32_t inC = dim(c, c.inputTensor(0), 3), wC = dim(c, c.inputTensor(1), 3);
  if (inC != wC)
    return c.fail("filter depth ", wC, " differs from the input depth ", inC,
                  " (grouped convolution is not mapped)");
  NNC_ASSIGN(act, fuseCode(c, o->fused_activation_function()));
  NNC_ASSIGN(ph,
             axisPadding(c, o->padding(), dim(c, c.inputTensor(0), 1), dim(c, c.inputTensor(1), 1),
                         o->stride_h(), o->dilation_h_factor(), "height"));
  NNC_ASSIGN(pw,
             axisPadding(c, o->padding(), dim(c, c.inputTensor(0), 2), dim(c, c.inputTensor(1), 2),
                         o->stride_w(), o->dilation_w_factor(), "width"));
  NNC_TRY(checkSpatial(c, ph.out, pw.out));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(w, c.in(1));
  NNC_ASSIGN(bias, biasOrZero(c, 2, in, w, static_cast<uint32_t>(dim(c, c.inputTensor(1), 0))));
  NNC_ASSIGN(out, c.out(0));
  Importer& im = c.im();
  std::vector<uint32_t> ins = {in,
                               w,
                               bias,
                               im.int32Scalar(pw.before),
                               im.int32Scalar(pw.after),
                               im.int32Scalar(ph.before),
                               im.int32Scalar(ph.after),
                               im.int32Scalar(o->stride_w()),
                               im.int32Scalar(o->stride_h()),
                               im.int32Scalar(act)};
  if (o->dilation_w_factor() != 1 || o->dilation_h_factor() != 1) {
    ins.push_back(im.boolScalar(false));
    ins.push_back(im.int32Scalar(o->dilation_w_factor()));
    ins.push_back(im.int32Scalar(o->dilation_h_factor()));
  }
  im.emit(OperationType::CONV_2D, ins, {out});
  return Status::Ok();
}

Status depthwiseConv2d(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 3, 1));
  NNC_ASSIGN(o, options<fb::DepthwiseConv2DOptions>(c));
  if (rankOf(c, c.inputTensor(0)) != 4 || rankOf(c, c.inputTensor(1)) != 4)
    return c.fail("input and filter must have rank 4");
  const int32_t inC = dim(c, c.inputTensor(0), 3), outC = dim(c, c.inputTensor(1), 3);
  // TFLite 2.x derives the multiplier from the shapes (the option is redundant).
  if (inC <= 0 || outC % inC != 0)
    return c.fail("filter depth ", outC, " is not a multiple of the input depth ", inC);
  NNC_ASSIGN(act, fuseCode(c, o->fused_activation_function()));
  NNC_ASSIGN(ph,
             axisPadding(c, o->padding(), dim(c, c.inputTensor(0), 1), dim(c, c.inputTensor(1), 1),
                         o->stride_h(), o->dilation_h_factor(), "height"));
  NNC_ASSIGN(pw,
             axisPadding(c, o->padding(), dim(c, c.inputTensor(0), 2), dim(c, c.inputTensor(1), 2),
                         o->stride_w(), o->dilation_w_factor(), "width"));
  NNC_TRY(checkSpatial(c, ph.out, pw.out));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(w, c.in(1));
  NNC_ASSIGN(bias, biasOrZero(c, 2, in, w, static_cast<uint32_t>(outC)));
  NNC_ASSIGN(out, c.out(0));
  Importer& im = c.im();
  std::vector<uint32_t> ins = {in,
                               w,
                               bias,
                               im.int32Scalar(pw.before),
                               im.int32Scalar(pw.after),
                               im.int32Scalar(ph.before),
                               im.int32Scalar(ph.after),
                               im.int32Scalar(o->stride_w()),
                               im.int32Scalar(o->stride_h()),
                               im.int32Scalar(outC / inC),
                               im.int32Scalar(act)};
  if (o->dilation_w_factor() != 1 || o->dilation_h_factor() != 1) {
    ins.push_back(im.boolScalar(false));
    ins.push_back(im.int32Scalar(o->dilation_w_factor()));
    ins.push_back(im.int32Scalar(o->dilation_h_factor()));
  }
  im.emit(OperationType::DEPTHWISE_CONV_2D, ins, {out});
  return Status::Ok();
}

template <OperationType kType>
Status pool2d(OpContext& c) {
  NNC_TRY(c.checkCounts(1, 1, 1));
  NNC_ASSIGN(o, options<fb::Pool2DOptions>(c));
  if (rankOf(c, c.inputTensor(0)) != 4) return c.fail("input must have rank 4");
  NNC_ASSIGN(act, fuseCode(c, o->fused_activation_function()));
  NNC_ASSIGN(ph, axisPadding(c, o->padding(), dim(c, c.inputTensor(0), 1), o->filter_height(),
                             o->stride_h(), 1, "height"));
  NNC_ASSIGN(pw, axisPadding(c, o->padding(), dim(c, c.inputTensor(0), 2), o->filter_width(),
                             o->stride_w(), 1, "width"));
  NNC_TRY(checkSpatial(c, ph.out, pw.out));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(out, c.out(0));
  Importer& im = c.im();
  im.emit(
      kType,
      {in, im.int32Scalar(pw.before), im.int32Scalar(pw.after), im.int32Scalar(ph.before),
       im.int32Scalar(ph.after), im.int32Scalar(o->stride_w()), im.int32Scalar(o->stride_h()),
       im.int32Scalar(o->filter_width()), im.int32Scalar(o->filter_height()), im.int32Scalar(act)},
      {out});
  return Status::Ok();
}

// FULLY_CONNECTED: NNAPI flattens the input to [batch, inputSize] and produces
// [batch, units]; when TFLite's output has another shape (keep_num_dims, or a rank > 2
// input), a RESHAPE follows into the TFLite output.
Status fullyConnected(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 3, 1));
  NNC_ASSIGN(o, options<fb::FullyConnectedOptions>(c));
  if (o->weights_format() != fb::FullyConnectedOptionsWeightsFormat::DEFAULT)
    return c.fail("shuffled weights (weights_format ",
                  fb::EnumNameFullyConnectedOptionsWeightsFormat(o->weights_format()),
                  ") have no NNAPI equivalent");
  if (rankOf(c, c.inputTensor(1)) != 2) return c.fail("weights must have rank 2");
  NNC_ASSIGN(act, fuseCode(c, o->fused_activation_function()));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(w, c.in(1));
  // Copies: adding operands below may move the operand vector.
  const hal::Operand inOp = c.im().operand(in);
  const hal::Operand wOp = c.im().operand(w);
  if (hal::isFloat(inOp.type) && hal::isQuantized(wOp.type))
    return c.fail("hybrid layer (float input, quantized weights) has no NNAPI equivalent");
  const uint32_t units = static_cast<uint32_t>(dim(c, c.inputTensor(1), 0));
  const uint32_t inputSize = static_cast<uint32_t>(dim(c, c.inputTensor(1), 1));
  NNC_ASSIGN(bias, biasOrZero(c, 2, in, w, units));
  NNC_ASSIGN(out, c.out(0));
  const auto total = hal::elementCount(inOp.dimensions);
  if (!total || inputSize == 0 || *total % inputSize != 0)
    return c.fail("input of ", total ? *total : 0, " elements is not a whole number of rows of ",
                  inputSize);
  const uint32_t batch = static_cast<uint32_t>(*total / inputSize);
  Importer& im = c.im();
  const std::vector<uint32_t> nnapiDims = {batch, units};
  const std::vector<uint32_t> tfliteDims = c.outputDims(0);
  if (tfliteDims == nnapiDims) {
    im.emit(OperationType::FULLY_CONNECTED, {in, w, bias, im.int32Scalar(act)}, {out});
    return Status::Ok();
  }
  const hal::Operand like = im.operand(out);
  const uint32_t tmp = im.temporary(like, nnapiDims);
  im.emit(OperationType::FULLY_CONNECTED, {in, w, bias, im.int32Scalar(act)}, {tmp});
  std::vector<int32_t> shape(tfliteDims.begin(), tfliteDims.end());
  im.emit(OperationType::RESHAPE, {tmp, im.int32Tensor(shape)}, {out});
  return Status::Ok();
}

Status softmax(OpContext& c) {
  NNC_TRY(c.checkCounts(1, 1, 1));
  NNC_ASSIGN(o, options<fb::SoftmaxOptions>(c));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(OperationType::SOFTMAX, {in, c.im().floatScalar(o->beta())}, {out});
  return Status::Ok();
}

// RESHAPE, SQUEEZE and EXPAND_DIMS: all an NNAPI RESHAPE to the output tensor's shape.
Status reshapeToOutput(OpContext& c) {
  if (c.numInputs() < 1 || c.numOutputs() != 1) return c.fail("expected 1 data input and 1 output");
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(out, c.out(0));
  const std::vector<uint32_t> d = c.outputDims(0);
  c.im().emit(OperationType::RESHAPE,
              {in, c.im().int32Tensor(std::vector<int32_t>(d.begin(), d.end()))}, {out});
  return Status::Ok();
}

// ADD, SUB, MUL, DIV: two inputs (broadcast) and a fused activation.
template <OperationType kType, typename Options>
Status binaryWithActivation(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 2, 1));
  int32_t act = 0;
  if (c.op().builtin_options_type() != fb::BuiltinOptions::NONE) {
    NNC_ASSIGN(o, options<Options>(c));
    NNC_ASSIGN(a, fuseCode(c, o->fused_activation_function()));
    act = a;
  }
  NNC_ASSIGN(a, c.in(0));
  NNC_ASSIGN(b, c.in(1));
  NNC_ASSIGN(out, c.out(0));
  if constexpr (std::is_same_v<Options, fb::AddOptions> ||
                std::is_same_v<Options, fb::SubOptions>) {
    // int16 ADD/SUB: nncosim implements TFLite's general scheme (pot_scale_int16 false);
    // the power-of-two scheme is another kernel.
    const auto* o = c.op().template builtin_options_as<Options>();
    if (c.im().operand(a).type == OperandType::TENSOR_QUANT16_SYMM && (!o || o->pot_scale_int16()))
      return c.fail(
          "int16 with pot_scale_int16 (TFLite's power-of-two int16 kernel) is not "
          "implemented; only the general int16 scheme is");
  }
  c.im().emit(kType, {a, b, c.im().int32Scalar(act)}, {out});
  return Status::Ok();
}

// Operations whose NNAPI inputs are the TFLite inputs as they are.
template <OperationType kType, size_t kMinIn, size_t kMaxIn>
Status direct(OpContext& c) {
  NNC_TRY(c.checkCounts(kMinIn, kMaxIn, 1));
  std::vector<uint32_t> ins;
  for (size_t i = 0; i < c.numInputs(); ++i) {
    NNC_ASSIGN(x, c.in(i));
    ins.push_back(x);
  }
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(kType, ins, {out});
  return Status::Ok();
}

Status concatenation(OpContext& c) {
  if (c.numInputs() < 1 || c.numOutputs() != 1) return c.fail("expected inputs and 1 output");
  NNC_ASSIGN(o, options<fb::ConcatenationOptions>(c));
  if (o->fused_activation_function() != fb::ActivationFunctionType::NONE)
    return c.fail("a fused activation on CONCATENATION has no NNAPI equivalent");
  std::vector<uint32_t> ins;
  for (size_t i = 0; i < c.numInputs(); ++i) {
    NNC_ASSIGN(x, c.in(i));
    ins.push_back(x);
  }
  const int32_t rank = static_cast<int32_t>(rankOf(c, c.outputTensor(0)));
  const int32_t axis = o->axis() < 0 ? o->axis() + rank : o->axis();
  NNC_ASSIGN(out, c.out(0));
  ins.push_back(c.im().int32Scalar(axis));
  c.im().emit(OperationType::CONCATENATION, ins, {out});
  return Status::Ok();
}

// PAD, PADV2, MIRROR_PAD: paddings as a constant [rank, 2] TENSOR_INT32.
Status padding(OpContext& c, OperationType type) {
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(pads, c.constInts(1));
  NNC_ASSIGN(out, c.out(0));
  const uint32_t rank = rankOf(c, c.inputTensor(0));
  if (pads.size() != 2 * rank)
    return c.fail("paddings have ", pads.size(), " values for rank ", rank);
  Importer& im = c.im();
  const uint32_t p =
      im.constant(OperandType::TENSOR_INT32, {rank, 2}, pads.data(), pads.size() * 4);
  std::vector<uint32_t> ins = {in, p};
  if (type == OperationType::PAD_V2) {
    // The pad value, a scalar of the input's element kind (INT32 for quantized tensors).
    const hal::Operand x = im.operand(in);
    size_t size = 0;
    const uint8_t* v = c.hasInput(2) ? im.constantBytes(c.inputTensor(2), &size) : nullptr;
    if (!v) return c.fail("input 2 (the pad value) must be a constant");
    if (x.type == OperandType::TENSOR_FLOAT32 && size == 4) {
      float f;
      std::memcpy(&f, v, 4);
      ins.push_back(im.floatScalar(f));
    } else if (hal::isQuantized(x.type) && size == hal::elementSize(x.type)) {
      int32_t q = x.type == OperandType::TENSOR_QUANT8_ASYMM ? int32_t{v[0]}
                  : x.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED
                      ? int32_t{static_cast<int8_t>(v[0])}
                      : 0;
      if (x.type == OperandType::TENSOR_QUANT16_SYMM) {
        int16_t h;
        std::memcpy(&h, v, 2);
        q = h;
      }
      ins.push_back(im.int32Scalar(q));
    } else {
      return c.fail("pad value of ", size, " bytes for ", hal::toString(x.type), " input");
    }
  }
  if (type == OperationType::MIRROR_PAD) {
    NNC_ASSIGN(o, options<fb::MirrorPadOptions>(c));
    ins.push_back(im.int32Scalar(static_cast<int32_t>(o->mode())));
  }
  im.emit(type, ins, {out});
  return Status::Ok();
}
Status pad(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 2, 1));
  return padding(c, OperationType::PAD);
}
Status padV2(OpContext& c) {
  NNC_TRY(c.checkCounts(3, 3, 1));
  return padding(c, OperationType::PAD_V2);
}
Status mirrorPad(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 2, 1));
  return padding(c, OperationType::MIRROR_PAD);
}

// MEAN and the REDUCE_* family: axes as a constant TENSOR_INT32 and keep_dims (INT32 for
// MEAN, BOOL for the others, as NNAPI defines them).
template <OperationType kType>
Status reduce(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 2, 1));
  NNC_ASSIGN(o, options<fb::ReducerOptions>(c));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(axes, c.constInts(1));
  NNC_ASSIGN(out, c.out(0));
  Importer& im = c.im();
  const hal::Operand& x = im.operand(in);
  const hal::Operand& y = im.operand(out);
  if (kType == OperationType::MEAN && hal::isQuantized(x.type) &&
      (x.scale != y.scale || x.zeroPoint != y.zeroPoint))
    return c.fail("quantized MEAN with a rescale (input scale ", x.scale, " zero point ",
                  x.zeroPoint, ", output scale ", y.scale, " zero point ", y.zeroPoint,
                  ") has no NNAPI equivalent: NNAPI's MEAN keeps the input's quantization");
  const uint32_t keep = kType == OperationType::MEAN ? im.int32Scalar(o->keep_dims() ? 1 : 0)
                                                     : im.boolScalar(o->keep_dims());
  im.emit(kType, {in, im.int32Tensor(axes), keep}, {out});
  return Status::Ok();
}

Status transpose(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 2, 1));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(perm, c.constInts(1));
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(OperationType::TRANSPOSE, {in, c.im().int32Tensor(perm)}, {out});
  return Status::Ok();
}

Status stridedSlice(OpContext& c) {
  NNC_TRY(c.checkCounts(4, 4, 1));
  NNC_ASSIGN(o, options<fb::StridedSliceOptions>(c));
  if (o->ellipsis_mask() != 0 || o->new_axis_mask() != 0 || o->offset())
    return c.fail("ellipsis_mask ", o->ellipsis_mask(), ", new_axis_mask ", o->new_axis_mask(),
                  ", offset ", o->offset(), ": NNAPI's STRIDED_SLICE has none of them (must be 0)");
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(begin, c.constInts(1));
  NNC_ASSIGN(end, c.constInts(2));
  NNC_ASSIGN(strides, c.constInts(3));
  NNC_ASSIGN(out, c.out(0));
  Importer& im = c.im();
  im.emit(OperationType::STRIDED_SLICE,
          {in, im.int32Tensor(begin), im.int32Tensor(end), im.int32Tensor(strides),
           im.int32Scalar(o->begin_mask()), im.int32Scalar(o->end_mask()),
           im.int32Scalar(o->shrink_axis_mask())},
          {out});
  return Status::Ok();
}

Status slice(OpContext& c) {
  NNC_TRY(c.checkCounts(3, 3, 1));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(begin, c.constInts(1));
  NNC_ASSIGN(size, c.constInts(2));
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(OperationType::SLICE, {in, c.im().int32Tensor(begin), c.im().int32Tensor(size)},
              {out});
  return Status::Ok();
}

Status gather(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 2, 1));
  NNC_ASSIGN(o, options<fb::GatherOptions>(c));
  if (o->batch_dims() != 0)
    return c.fail("batch_dims ", o->batch_dims(), " (NNAPI has none; must be 0)");
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(idx, c.in(1));
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(OperationType::GATHER, {in, c.im().int32Scalar(o->axis()), idx}, {out});
  return Status::Ok();
}

// SPLIT: TFLite's inputs are (axis, input); NNAPI's (input, axis, num_splits).
Status split(OpContext& c) {
  NNC_ASSIGN(o, options<fb::SplitOptions>(c));
  if (c.numInputs() != 2 || c.numOutputs() != static_cast<size_t>(o->num_splits()))
    return c.fail(c.numInputs(), " inputs and ", c.numOutputs(), " outputs for ", o->num_splits(),
                  " splits");
  NNC_ASSIGN(axis, c.constInts(0));
  if (axis.size() != 1) return c.fail("axis must hold one value");
  NNC_ASSIGN(in, c.in(1));
  std::vector<uint32_t> outs;
  for (size_t k = 0; k < c.numOutputs(); ++k) {
    NNC_ASSIGN(y, c.out(k));
    outs.push_back(y);
  }
  c.im().emit(OperationType::SPLIT,
              {in, c.im().int32Scalar(axis[0]), c.im().int32Scalar(o->num_splits())}, outs);
  return Status::Ok();
}

// "[1, 2, 3]", for messages.
std::string dimsText(const std::vector<uint32_t>& d) {
  std::string t = "[";
  for (size_t i = 0; i < d.size(); ++i) t += (i ? ", " : "") + std::to_string(d[i]);
  return t + "]";
}

// SPLIT_V: (input, size_splits, axis) -> outputs of the sizes along axis (one size may be
// -1: the rest). NNAPI's SPLIT cuts equal parts only, so each output is a SLICE at its
// offset, with the output tensor's shape as the size.
Status splitV(OpContext& c) {
  NNC_ASSIGN(o, options<fb::SplitVOptions>(c));
  if (c.numInputs() != 3 || c.numOutputs() != static_cast<size_t>(o->num_splits()) ||
      o->num_splits() < 1)
    return c.fail(c.numInputs(), " inputs and ", c.numOutputs(), " outputs for ", o->num_splits(),
                  " splits");
  NNC_ASSIGN(axisValues, c.constInts(2));
  if (axisValues.size() != 1) return c.fail("axis must hold one value");
  const int32_t rank = static_cast<int32_t>(rankOf(c, c.inputTensor(0)));
  const int32_t axis = axisValues[0] < 0 ? axisValues[0] + rank : axisValues[0];
  if (axis < 0 || axis >= rank) return c.fail("axis ", axisValues[0], " outside rank ", rank);
  NNC_ASSIGN(in, c.in(0));
  std::vector<uint32_t> inDims;
  for (int32_t d = 0; d < rank; ++d)
    inDims.push_back(static_cast<uint32_t>(dim(c, c.inputTensor(0), d)));
  uint32_t offset = 0;
  for (size_t k = 0; k < c.numOutputs(); ++k) {
    const std::vector<uint32_t> od = c.outputDims(k);
    bool matches = od.size() == inDims.size();
    for (size_t d = 0; matches && d < od.size(); ++d)
      matches = static_cast<int32_t>(d) == axis || od[d] == inDims[d];
    if (!matches || od[axis] > inDims[axis] - offset)
      return c.fail("output ", k, " shape ", dimsText(od), " is not a part of input ",
                    dimsText(inDims), " along axis ", axis, " at offset ", offset);
    std::vector<int32_t> begin(rank, 0), size(od.begin(), od.end());
    begin[axis] = static_cast<int32_t>(offset);
    offset += od[axis];
    NNC_ASSIGN(y, c.out(k));
    Importer& im = c.im();
    im.emit(OperationType::SLICE, {in, im.int32Tensor(begin), im.int32Tensor(size)}, {y});
  }
  if (offset != inDims[axis])
    return c.fail("the outputs cover ", offset, " of the input's ", inDims[axis], " along axis ",
                  axis);
  return Status::Ok();
}

// UNPACK: num outputs, the input cut along axis with that axis dropped: NNAPI's SPLIT
// into num parts, each RESHAPEd to its output.
Status unpack(OpContext& c) {
  NNC_ASSIGN(o, options<fb::UnpackOptions>(c));
  if (c.numInputs() != 1 || c.numOutputs() != static_cast<size_t>(o->num()) || o->num() < 1)
    return c.fail(c.numInputs(), " inputs and ", c.numOutputs(), " outputs for num ", o->num());
  const int32_t rank = static_cast<int32_t>(rankOf(c, c.inputTensor(0)));
  const int32_t axis = o->axis() < 0 ? o->axis() + rank : o->axis();
  if (axis < 0 || axis >= rank) return c.fail("axis ", o->axis(), " outside rank ", rank);
  if (dim(c, c.inputTensor(0), axis) != o->num())
    return c.fail("num ", o->num(), " but the input has ", dim(c, c.inputTensor(0), axis),
                  " along axis ", axis);
  NNC_ASSIGN(in, c.in(0));
  Importer& im = c.im();
  std::vector<uint32_t> partDims;
  for (int32_t d = 0; d < rank; ++d)
    partDims.push_back(d == axis ? 1u : static_cast<uint32_t>(dim(c, c.inputTensor(0), d)));
  std::vector<uint32_t> parts, outs;
  for (size_t k = 0; k < c.numOutputs(); ++k) {
    NNC_ASSIGN(y, c.out(k));
    outs.push_back(y);
    parts.push_back(im.temporary(im.operand(y), partDims));
  }
  im.emit(OperationType::SPLIT, {in, im.int32Scalar(axis), im.int32Scalar(o->num())}, parts);
  for (size_t k = 0; k < outs.size(); ++k) {
    const std::vector<uint32_t> od = c.outputDims(k);
    im.emit(OperationType::RESHAPE,
            {parts[k], im.int32Tensor(std::vector<int32_t>(od.begin(), od.end()))}, {outs[k]});
  }
  return Status::Ok();
}

template <OperationType kType>
Status argMinMax(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 2, 1));
  if (c.im().tensor(c.outputTensor(0)).type() != fb::TensorType::INT32)
    return c.fail("output type ", fb::EnumNameTensorType(c.im().tensor(c.outputTensor(0)).type()),
                  ": NNAPI's ARGMAX/ARGMIN output TENSOR_INT32 only");
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(axis, c.constInts(1));
  if (axis.size() != 1) return c.fail("axis must hold one value");
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(kType, {in, c.im().int32Scalar(axis[0])}, {out});
  return Status::Ok();
}

template <OperationType kType, typename Options>
Status resize(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 2, 1));
  NNC_ASSIGN(o, options<Options>(c));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(size, c.constInts(1));
  if (size.size() != 2) return c.fail("size must hold [height, width]");
  NNC_ASSIGN(out, c.out(0));
  Importer& im = c.im();
  im.emit(kType,
          {in, im.int32Scalar(size[1]), im.int32Scalar(size[0]), im.boolScalar(false),
           im.boolScalar(o->align_corners()), im.boolScalar(o->half_pixel_centers())},
          {out});
  return Status::Ok();
}

template <OperationType kType, typename Options>
Status blockSize(OpContext& c) {
  NNC_TRY(c.checkCounts(1, 1, 1));
  NNC_ASSIGN(o, options<Options>(c));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(kType, {in, c.im().int32Scalar(o->block_size())}, {out});
  return Status::Ok();
}

Status pack(OpContext& c) {
  if (c.numInputs() < 1 || c.numOutputs() != 1) return c.fail("expected inputs and 1 output");
  NNC_ASSIGN(o, options<fb::PackOptions>(c));
  const int32_t rank = static_cast<int32_t>(rankOf(c, c.outputTensor(0)));
  std::vector<uint32_t> ins = {c.im().int32Scalar(o->axis() < 0 ? o->axis() + rank : o->axis())};
  for (size_t i = 0; i < c.numInputs(); ++i) {
    NNC_ASSIGN(x, c.in(i));
    ins.push_back(x);
  }
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(OperationType::PACK, ins, {out});
  return Status::Ok();
}

Status batchMatMul(OpContext& c) {
  NNC_TRY(c.checkCounts(2, 2, 1));
  NNC_ASSIGN(o, options<fb::BatchMatMulOptions>(c));
  NNC_ASSIGN(a, c.in(0));
  NNC_ASSIGN(b, c.in(1));
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(OperationType::BATCH_MATMUL,
              {a, b, c.im().boolScalar(o->adj_x()), c.im().boolScalar(o->adj_y())}, {out});
  return Status::Ok();
}

Status logSoftmax(OpContext& c) {
  NNC_TRY(c.checkCounts(1, 1, 1));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(OperationType::LOG_SOFTMAX, {in, c.im().floatScalar(1.0f), c.im().int32Scalar(-1)},
              {out});
  return Status::Ok();
}

// LEAKY_RELU as PRELU with a constant alpha. Quantized: alpha is one code of value 1 and
// scale alpha, so PRELU's negative-side multiplier in_scale * alpha / out_scale is exactly
// the one TFLite's kernel derives, and (x - zp) * 1 loses nothing: bit-exact. int16 runs
// in the 16x8 mode (PRELU's extension).
Status leakyRelu(OpContext& c) {
  NNC_TRY(c.checkCounts(1, 1, 1));
  NNC_ASSIGN(o, options<fb::LeakyReluOptions>(c));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(out, c.out(0));
  const hal::Operand& x = c.im().operand(in);
  const float alpha = o->alpha();
  uint32_t a = 0;
  switch (x.type) {
    case OperandType::TENSOR_FLOAT32:
      a = c.im().constant(OperandType::TENSOR_FLOAT32, {1}, &alpha, 4);
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT16_SYMM: {
      if (!(alpha > 0) || !std::isfinite(alpha))
        return c.fail("quantized LEAKY_RELU with alpha ", alpha,
                      " is not mapped (alpha must be positive)");
      const int16_t one = 1;
      const size_t bytes = x.type == OperandType::TENSOR_QUANT16_SYMM ? 2 : 1;
      a = c.im().constant(x.type, {1}, &one, bytes, alpha, 0);
      break;
    }
    default:
      return c.fail(hal::toString(x.type), " LEAKY_RELU is not mapped");
  }
  c.im().emit(OperationType::PRELU, {in, a}, {out});
  return Status::Ok();
}

Status transposeConv(OpContext& c) {
  NNC_TRY(c.checkCounts(3, 4, 1));
  NNC_ASSIGN(o, options<fb::TransposeConvOptions>(c));
  NNC_ASSIGN(act, fuseCode(c, o->fused_activation_function()));
  // The output shape: a constant folds into the model, a runtime tensor is passed on
  // (NNAPI's TRANSPOSE_CONV_2D takes either).
  uint32_t shapeOperand = 0;
  if (size_t n = 0; c.hasInput(0) && c.im().constantBytes(c.inputTensor(0), &n)) {
    NNC_ASSIGN(shape, c.constInts(0));
    shapeOperand = c.im().int32Tensor(shape);
  } else {
    NNC_ASSIGN(shape, c.in(0));
    shapeOperand = shape;
  }
  NNC_ASSIGN(w, c.in(1));
  NNC_ASSIGN(in, c.in(2));
  NNC_ASSIGN(bias, biasOrZero(c, 3, in, w, static_cast<uint32_t>(dim(c, c.inputTensor(1), 0))));
  NNC_ASSIGN(out, c.out(0));
  Importer& im = c.im();
  im.emit(OperationType::TRANSPOSE_CONV_2D,
          {in, w, bias, shapeOperand, im.int32Scalar(o->padding() == fb::Padding::SAME ? 1 : 2),
           im.int32Scalar(o->stride_w()), im.int32Scalar(o->stride_h()), im.int32Scalar(act),
           im.boolScalar(false)},
          {out});
  return Status::Ok();
}

Status l2Normalization(OpContext& c) {
  NNC_TRY(c.checkCounts(1, 1, 1));
  if (auto* o = c.op().builtin_options_as_L2NormOptions();
      o && o->fused_activation_function() != fb::ActivationFunctionType::NONE)
    return c.fail("a fused activation on L2_NORMALIZATION has no NNAPI equivalent");
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(out, c.out(0));
  c.im().emit(OperationType::L2_NORMALIZATION, {in}, {out});
  return Status::Ok();
}

Status localResponseNorm(OpContext& c) {
  NNC_TRY(c.checkCounts(1, 1, 1));
  NNC_ASSIGN(o, options<fb::LocalResponseNormalizationOptions>(c));
  NNC_ASSIGN(in, c.in(0));
  NNC_ASSIGN(out, c.out(0));
  Importer& im = c.im();
  im.emit(OperationType::LOCAL_RESPONSE_NORMALIZATION,
          {in, im.int32Scalar(o->radius()), im.floatScalar(o->bias()), im.floatScalar(o->alpha()),
           im.floatScalar(o->beta())},
          {out});
  return Status::Ok();
}

struct Entry {
  B code;
  BuiltinMapper map;
};

const Entry kTable[] = {
    {B::ADD, &binaryWithActivation<OperationType::ADD, fb::AddOptions>},
    {B::SUB, &binaryWithActivation<OperationType::SUB, fb::SubOptions>},
    {B::MUL, &binaryWithActivation<OperationType::MUL, fb::MulOptions>},
    {B::DIV, &binaryWithActivation<OperationType::DIV, fb::DivOptions>},
    {B::AVERAGE_POOL_2D, &pool2d<OperationType::AVERAGE_POOL_2D>},
    {B::MAX_POOL_2D, &pool2d<OperationType::MAX_POOL_2D>},
    {B::L2_POOL_2D, &pool2d<OperationType::L2_POOL_2D>},
    {B::CONCATENATION, &concatenation},
    {B::CONV_2D, &conv2d},
    {B::DEPTHWISE_CONV_2D, &depthwiseConv2d},
    {B::FULLY_CONNECTED, &fullyConnected},
    {B::SOFTMAX, &softmax},
    {B::LOG_SOFTMAX, &logSoftmax},
    {B::RESHAPE, &reshapeToOutput},
    {B::SQUEEZE, &reshapeToOutput},
    {B::EXPAND_DIMS, &reshapeToOutput},
    {B::PAD, &pad},
    {B::PADV2, &padV2},
    {B::MIRROR_PAD, &mirrorPad},
    {B::MEAN, &reduce<OperationType::MEAN>},
    {B::SUM, &reduce<OperationType::REDUCE_SUM>},
    {B::REDUCE_PROD, &reduce<OperationType::REDUCE_PROD>},
    {B::REDUCE_MAX, &reduce<OperationType::REDUCE_MAX>},
    {B::REDUCE_MIN, &reduce<OperationType::REDUCE_MIN>},
    {B::REDUCE_ANY, &reduce<OperationType::REDUCE_ANY>},
    {B::TRANSPOSE, &transpose},
    {B::STRIDED_SLICE, &stridedSlice},
    {B::SLICE, &slice},
    {B::GATHER, &gather},
    {B::SPLIT, &split},
    {B::SPLIT_V, &splitV},
    {B::ARG_MAX, &argMinMax<OperationType::ARGMAX>},
    {B::ARG_MIN, &argMinMax<OperationType::ARGMIN>},
    {B::RESIZE_BILINEAR, &resize<OperationType::RESIZE_BILINEAR, fb::ResizeBilinearOptions>},
    {B::RESIZE_NEAREST_NEIGHBOR,
     &resize<OperationType::RESIZE_NEAREST_NEIGHBOR, fb::ResizeNearestNeighborOptions>},
    {B::SPACE_TO_DEPTH, &blockSize<OperationType::SPACE_TO_DEPTH, fb::SpaceToDepthOptions>},
    {B::DEPTH_TO_SPACE, &blockSize<OperationType::DEPTH_TO_SPACE, fb::DepthToSpaceOptions>},
    {B::PACK, &pack},
    {B::UNPACK, &unpack},
    {B::BATCH_MATMUL, &batchMatMul},
    {B::LEAKY_RELU, &leakyRelu},
    {B::TRANSPOSE_CONV, &transposeConv},
    {B::L2_NORMALIZATION, &l2Normalization},
    {B::LOCAL_RESPONSE_NORMALIZATION, &localResponseNorm},
    {B::QUANTIZE, &direct<OperationType::QUANTIZE, 1, 1>},
    {B::DEQUANTIZE, &direct<OperationType::DEQUANTIZE, 1, 1>},
    {B::LOGISTIC, &direct<OperationType::LOGISTIC, 1, 1>},
    {B::TANH, &direct<OperationType::TANH, 1, 1>},
    {B::RELU, &direct<OperationType::RELU, 1, 1>},
    {B::RELU_N1_TO_1, &direct<OperationType::RELU1, 1, 1>},
    {B::RELU6, &direct<OperationType::RELU6, 1, 1>},
    {B::HARD_SWISH, &direct<OperationType::HARD_SWISH, 1, 1>},
    {B::ELU, &direct<OperationType::ELU, 1, 1>},
    {B::FLOOR, &direct<OperationType::FLOOR, 1, 1>},
    {B::EXP, &direct<OperationType::EXP, 1, 1>},
    {B::LOG, &direct<OperationType::LOG, 1, 1>},
    {B::SQRT, &direct<OperationType::SQRT, 1, 1>},
    {B::RSQRT, &direct<OperationType::RSQRT, 1, 1>},
    {B::SIN, &direct<OperationType::SIN, 1, 1>},
    {B::ABS, &direct<OperationType::ABS, 1, 1>},
    {B::NEG, &direct<OperationType::NEG, 1, 1>},
    {B::CAST, &direct<OperationType::CAST, 1, 1>},
    {B::LOGICAL_NOT, &direct<OperationType::LOGICAL_NOT, 1, 1>},
    {B::LOGICAL_AND, &direct<OperationType::LOGICAL_AND, 2, 2>},
    {B::LOGICAL_OR, &direct<OperationType::LOGICAL_OR, 2, 2>},
    {B::MAXIMUM, &direct<OperationType::MAXIMUM, 2, 2>},
    {B::MINIMUM, &direct<OperationType::MINIMUM, 2, 2>},
    {B::PRELU, &direct<OperationType::PRELU, 2, 2>},
    {B::POW, &direct<OperationType::POW, 2, 2>},
    {B::EQUAL, &direct<OperationType::EQUAL, 2, 2>},
    {B::NOT_EQUAL, &direct<OperationType::NOT_EQUAL, 2, 2>},
    {B::LESS, &direct<OperationType::LESS, 2, 2>},
    {B::LESS_EQUAL, &direct<OperationType::LESS_EQUAL, 2, 2>},
    {B::GREATER, &direct<OperationType::GREATER, 2, 2>},
    {B::GREATER_EQUAL, &direct<OperationType::GREATER_EQUAL, 2, 2>},
    {B::SELECT, &direct<OperationType::SELECT, 3, 3>},
    {B::TILE, &direct<OperationType::TILE, 2, 2>},
    {B::SPACE_TO_BATCH_ND, &direct<OperationType::SPACE_TO_BATCH_ND, 3, 3>},
    {B::REVERSE_V2, &direct<OperationType::REVERSE, 2, 2>},
};

}  // namespace

BuiltinMapper builtinMapper(int32_t code) {
  for (const Entry& e : kTable)
    if (static_cast<int32_t>(e.code) == code) return e.map;
  return nullptr;
}

}  // namespace nncosim::tflite
