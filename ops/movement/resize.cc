// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR, by output size (INT32) or by scale
// (FLOAT32/FLOAT16), with align_corners and half_pixel_centers. Arithmetic follows
// NNAPI's CPU path, which calls TFLite's reference ResizeBilinear: float interpolation
// for float, half (via float) and uint8 (+0.5 then truncation), and the int8 overload's
// 10-bit fixed-point interpolation for int8. Nearest neighbor is NNAPI's own loop.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "hal/half.h"
#include "ops/movement/common.h"
#include "ops/movement/movement.h"

namespace nncosim::ops::movement {
namespace {

constexpr size_t kLayout = 3, kAlignCorners = 4, kHalfPixelCenters = 5;

Status validate(const OperationContext& ctx) {
  const bool bilinear = ctx.type() == hal::OperationType::RESIZE_BILINEAR;
  NNC_TRY(expectCounts(ctx, bilinear ? 3 : 4, 6, 1));
  NNC_TRY(expectRequired(ctx, 3));
  NNC_TRY(expectInputTypeIn(ctx, 0, kFloatQuant8Types));
  const OperandType in = ctx.inputType(0);
  const OperandType scalar = ctx.inputType(1);
  if (scalar != OperandType::INT32) {
    const OperandType want =
        in == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
    if (scalar != want)
      return hal::fail("input 1: expected INT32 or ", hal::toString(want), ", got ",
                       hal::toString(scalar));
  }
  NNC_TRY(expectInputType(ctx, 2, scalar));
  for (size_t i = 3; i < ctx.numInputs(); ++i) NNC_TRY(expectInputType(ctx, i, OperandType::BOOL));
  NNC_TRY(expectOutputType(ctx, 0, in));
  NNC_TRY(expectSameQuant(ctx, 0, 0));
  NNC_TRY(expectInputRank(ctx, 0, 4, 4));
  if (optionalBool(ctx, kAlignCorners) && optionalBool(ctx, kHalfPixelCenters))
    return hal::fail("inputs 4 and 5: align_corners and half_pixel_centers cannot both be true");
  return Status::Ok();
}

Status prepare(OperationContext& ctx) {
  const Shape& in = ctx.inputShape(0);
  if (in.rank() != 4) return hal::fail("input 0: expected rank 4, got ", toString(in.dimensions));
  const bool nchw = optionalBool(ctx, kLayout);
  if (optionalBool(ctx, kAlignCorners) && optionalBool(ctx, kHalfPixelCenters))
    return hal::fail("inputs 4 and 5: align_corners and half_pixel_centers cannot both be true");
  const std::vector<uint32_t> d = nchw ? toNhwc(in.dimensions) : in.dimensions;
  if (d[1] == 0 || d[2] == 0 || d[3] == 0)
    return hal::fail("input 0: height, width and depth must be non-zero, got shape ",
                     toString(in.dimensions));
  // Output width and height: given, or floor(input size * scale).
  float w, h;
  switch (ctx.inputType(1)) {
    case OperandType::INT32:
      w = static_cast<float>(ctx.scalar<int32_t>(1));
      h = static_cast<float>(ctx.scalar<int32_t>(2));
      break;
    case OperandType::FLOAT32:
      w = std::floor(static_cast<float>(d[2]) * ctx.scalar<float>(1));
      h = std::floor(static_cast<float>(d[1]) * ctx.scalar<float>(2));
      break;
    default:
      w = std::floor(static_cast<float>(d[2]) * hal::halfBitsToFloat(ctx.scalar<uint16_t>(1)));
      h = std::floor(static_cast<float>(d[1]) * hal::halfBitsToFloat(ctx.scalar<uint16_t>(2)));
  }
  // Written as !(in range) so that nan fails too.
  if (!(w >= 1 && h >= 1 && w < 2147483648.0f && h < 2147483648.0f))
    return hal::fail("inputs 1 and 2: output size ", h, "x", w,
                     " (height x width) must be positive and fit in int32");
  const std::vector<uint32_t> out = {d[0], static_cast<uint32_t>(h), static_cast<uint32_t>(w),
                                     d[3]};
  // The fixed-point int8 path multiplies positions by 1024 in int32.
  if (ctx.inputType(0) == OperandType::TENSOR_QUANT8_ASYMM_SIGNED &&
      (uint64_t{out[1]} << 11 > INT32_MAX || uint64_t{out[2]} << 11 > INT32_MAX ||
       uint64_t{d[1]} << 11 > INT32_MAX || uint64_t{d[2]} << 11 > INT32_MAX))
    return hal::fail("int8 resize supports heights and widths below 2^20");
  return setOutput(ctx, 0, nchw ? toNchw(out) : out);
}

float resizeScale(uint32_t in, uint32_t out, bool alignCorners) {
  return (alignCorners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                   : static_cast<float>(in) / static_cast<float>(out);
}

template <typename T>
void bilinear(const T* in, const std::vector<uint32_t>& id, T* out, const std::vector<uint32_t>& od,
              bool alignCorners, bool halfPixel) {
  const int32_t inH = id[1], inW = id[2], c = id[3];
  const int32_t outH = od[1], outW = od[2];
  const float hs = resizeScale(inH, outH, alignCorners);
  const float ws = resizeScale(inW, outW, alignCorners);
  auto interp = [&](int32_t v, float scale, int32_t size, float* pos, int32_t* lo, int32_t* hi) {
    *pos =
        halfPixel ? (static_cast<float>(v) + 0.5f) * scale - 0.5f : static_cast<float>(v) * scale;
    *lo = std::max(static_cast<int32_t>(std::floor(*pos)), 0);
    *hi = std::min(static_cast<int32_t>(std::ceil(*pos)), size - 1);
  };
  for (uint32_t b = 0; b < od[0]; ++b)
    for (int32_t y = 0; y < outH; ++y) {
      float iy;
      int32_t y0, y1;
      interp(y, hs, inH, &iy, &y0, &y1);
      const float dy = iy - static_cast<float>(y0);
      for (int32_t x = 0; x < outW; ++x) {
        float ix;
        int32_t x0, x1;
        interp(x, ws, inW, &ix, &x0, &x1);
        const float dx = ix - static_cast<float>(x0);
        const T* p00 = in + ((int64_t{b} * inH + y0) * inW + x0) * c;
        const T* p10 = in + ((int64_t{b} * inH + y1) * inW + x0) * c;
        const T* p01 = in + ((int64_t{b} * inH + y0) * inW + x1) * c;
        const T* p11 = in + ((int64_t{b} * inH + y1) * inW + x1) * c;
        T* o = out + ((int64_t{b} * outH + y) * outW + x) * c;
        for (int32_t k = 0; k < c; ++k) {
          const float v = static_cast<float>(p00[k]) * (1 - dy) * (1 - dx) +
                          static_cast<float>(p10[k]) * dy * (1 - dx) +
                          static_cast<float>(p01[k]) * (1 - dy) * dx +
                          static_cast<float>(p11[k]) * dy * dx;
          // Integer outputs round by adding 0.5 before the truncating cast.
          o[k] = std::is_integral<T>::value ? static_cast<T>(v + 0.5f) : fromFloat<T>(v);
        }
      }
    }
}

// The int8 overload: positions and weights in 1/1024 steps, products in int64, rounded
// half away from zero by the 2^20 division, then wrapped to int8 without clamping.
void bilinearInt8(const int8_t* in, const std::vector<uint32_t>& id, int8_t* out,
                  const std::vector<uint32_t>& od, bool alignCorners, bool halfPixel) {
  const int32_t inH = id[1], inW = id[2], c = id[3];
  const int32_t outH = od[1], outW = od[2];
  auto scale10 = [&](int32_t inSize, int32_t outSize) {
    if (alignCorners && outSize > 1)
      return ((1 << 10) * (inSize - 1) + (outSize - 1) / 2) / (outSize - 1);
    return ((1 << 10) * inSize + outSize / 2) / outSize;
  };
  const int32_t hs = scale10(inH, outH), ws = scale10(inW, outW);
  auto interp = [&](int32_t v, int32_t s, int32_t size, int32_t* pos, int32_t* lo, int32_t* hi) {
    *pos = halfPixel ? v * s + s / 2 - (1 << 9) : v * s;
    *lo = std::max(*pos / (1 << 10), 0);  // C division: toward zero
    *hi = std::min((*pos + (1 << 10) - 1) / (1 << 10), size - 1);
  };
  for (uint32_t b = 0; b < od[0]; ++b)
    for (int32_t y = 0; y < outH; ++y) {
      int32_t iy, y0, y1;
      interp(y, hs, inH, &iy, &y0, &y1);
      const int64_t wy1 = iy - (1 << 10) * y0, wy0 = (1 << 10) - wy1;
      for (int32_t x = 0; x < outW; ++x) {
        int32_t ix, x0, x1;
        interp(x, ws, inW, &ix, &x0, &x1);
        const int64_t wx1 = ix - (1 << 10) * x0, wx0 = (1 << 10) - wx1;
        const int8_t* p00 = in + ((int64_t{b} * inH + y0) * inW + x0) * c;
        const int8_t* p10 = in + ((int64_t{b} * inH + y1) * inW + x0) * c;
        const int8_t* p01 = in + ((int64_t{b} * inH + y0) * inW + x1) * c;
        const int8_t* p11 = in + ((int64_t{b} * inH + y1) * inW + x1) * c;
        int8_t* o = out + ((int64_t{b} * outH + y) * outW + x) * c;
        for (int32_t k = 0; k < c; ++k) {
          const int64_t acc =
              p00[k] * wy0 * wx0 + p10[k] * wy1 * wx0 + p01[k] * wy0 * wx1 + p11[k] * wy1 * wx1;
          const int64_t round = acc > 0 ? (1 << 19) : -(1 << 19);
          o[k] = static_cast<int8_t>((acc + round) / (1 << 20));
        }
      }
    }
}

void nearest(const uint8_t* in, const std::vector<uint32_t>& id, uint8_t* out,
             const std::vector<uint32_t>& od, size_t es, bool alignCorners, bool halfPixel) {
  const int32_t inH = id[1], inW = id[2], c = id[3];
  const int32_t outH = od[1], outW = od[2];
  const float hs = resizeScale(inH, outH, alignCorners);
  const float ws = resizeScale(inW, outW, alignCorners);
  auto source = [&](int32_t v, float scale, int32_t size) {
    const float pos =
        halfPixel ? (static_cast<float>(v) + 0.5f) * scale : static_cast<float>(v) * scale;
    int32_t i =
        std::min(static_cast<int32_t>(alignCorners ? std::round(pos) : std::floor(pos)), size - 1);
    if (halfPixel) i = std::max(i, 0);
    return i;
  };
  std::vector<int32_t> xs(outW);
  for (int32_t x = 0; x < outW; ++x) xs[x] = source(x, ws, inW);
  uint8_t* dst = out;
  for (uint32_t b = 0; b < od[0]; ++b)
    for (int32_t y = 0; y < outH; ++y) {
      const int32_t sy = source(y, hs, inH);
      for (int32_t x = 0; x < outW; ++x, dst += c * es)
        copyElements(dst, in + ((int64_t{b} * inH + sy) * inW + xs[x]) * c * es, c, es);
    }
}

Status execute(OperationContext& ctx) {
  const bool alignCorners = optionalBool(ctx, kAlignCorners);
  const bool halfPixel = optionalBool(ctx, kHalfPixelCenters);
  const OperandType t = ctx.inputType(0);
  const size_t es = hal::elementSize(t);
  const bool isBilinear = ctx.type() == hal::OperationType::RESIZE_BILINEAR;
  return runNhwc(ctx, optionalBool(ctx, kLayout),
                 [&](const uint8_t* in, const std::vector<uint32_t>& id, uint8_t* out,
                     const std::vector<uint32_t>& od) -> Status {
                   if (!isBilinear) {
                     nearest(in, id, out, od, es, alignCorners, halfPixel);
                     return Status::Ok();
                   }
                   if (t == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
                     bilinearInt8(reinterpret_cast<const int8_t*>(in), id,
                                  reinterpret_cast<int8_t*>(out), od, alignCorners, halfPixel);
                     return Status::Ok();
                   }
                   return dispatchElementType(t, [&](auto zero) -> Status {
                     using T = decltype(zero);
                     bilinear(reinterpret_cast<const T*>(in), id, reinterpret_cast<T*>(out), od,
                              alignCorners, halfPixel);
                     return Status::Ok();
                   });
                 });
}

}  // namespace

void registerResize(OperationTable& t) {
  t.add(OperationDef{hal::OperationType::RESIZE_BILINEAR, &validate, &prepare, &execute});
  t.add(OperationDef{hal::OperationType::RESIZE_NEAREST_NEIGHBOR, &validate, &prepare, &execute});
}

}  // namespace nncosim::ops::movement
