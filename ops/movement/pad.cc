// PAD and PAD_V2: constant padding. PAD pads with zero (the zero point for quantized
// tensors); PAD_V2 with its scalar input 2. In the 16x8 mode also TENSOR_QUANT16_SYMM
// (an nncosim extension for TFLite's int16 PAD: zero point 0, PAD_V2's INT32 value
// taken as int16).
#include "hal/half.h"
#include "ops/movement/common.h"
#include "ops/movement/movement.h"
#include "ops/movement/pad_common.h"

namespace nncosim::ops::movement {
namespace {

Status validatePad(const OperationContext& ctx) {
  NNC_TRY(expectUnarySignature(ctx, movementTypes(ctx), {OperandType::TENSOR_INT32}, 2));
  return expectInputRank(ctx, 0, 0, 4);
}

Status validatePadV2(const OperationContext& ctx) {
  NNC_TRY(expectCounts(ctx, 3, 3, 1));
  NNC_TRY(expectInputTypeIn(ctx, 0, movementTypes(ctx)));
  OperandType valueType = OperandType::INT32;
  if (ctx.inputType(0) == OperandType::TENSOR_FLOAT32) valueType = OperandType::FLOAT32;
  if (ctx.inputType(0) == OperandType::TENSOR_FLOAT16) valueType = OperandType::FLOAT16;
  NNC_TRY(expectUnarySignature(ctx, movementTypes(ctx), {OperandType::TENSOR_INT32, valueType}, 3));
  return expectInputRank(ctx, 0, 0, 4);
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  auto p = readPaddings(ctx, 1, in.rank());
  NNC_TRY(p);
  return setOutput(ctx, 0, paddedDims(in.dimensions, *p));
}

// The padding element, in the tensor's own encoding.
std::vector<uint8_t> padValue(const OperationContext& ctx) {
  const OperandType t = ctx.inputType(0);
  const bool v2 = ctx.type() == hal::OperationType::PAD_V2;
  std::vector<uint8_t> v(hal::elementSize(t), 0);
  if (t == OperandType::TENSOR_QUANT8_ASYMM || t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    // NNAPI takes the low byte of the INT32 pad value; PAD uses the zero point.
    const int32_t q = v2 ? ctx.scalar<int32_t>(2) : ctx.outputShape(0).zeroPoint;
    v[0] = static_cast<uint8_t>(q);
  } else if (t == OperandType::TENSOR_QUANT16_SYMM) {
    const int16_t q = static_cast<int16_t>(v2 ? ctx.scalar<int32_t>(2) : 0);
    std::memcpy(v.data(), &q, 2);
  } else if (v2) {
    std::memcpy(v.data(), ctx.inputBytes(2), v.size());
  }
  return v;
}

Status execute(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  auto p = readPaddings(ctx, 1, in.rank());
  NNC_TRY(p);
  const std::vector<uint8_t> value = padValue(ctx);
  padConstant(ctx.inputBytes(0), in.dimensions, *p, value.data(), hal::elementSize(in.type),
              ctx.outputBytes(0));
  return Status::Ok();
}

}  // namespace

void registerPad(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::PAD, &validatePad, &prepare, &execute});
  t.add(OperationDef{hal::OperationType::PAD_V2, &validatePadV2, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
