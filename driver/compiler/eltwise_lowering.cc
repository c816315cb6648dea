// ADD, SUB and MUL on the elementwise unit (ELTWISE, ISA 1.7). The output's elements are cut
// into chunks; per chunk the step loads a run of the first input into INP and the matching
// run of the second into WGT, one ELTWISE writes the results into OUT, a DMA_STORE writes
// them back (INP, WGT and OUT double buffered, so the loads of chunk c + 1 and the store of
// chunk c - 1 overlap chunk c). The integer parameters are the reference's own
// (ops/elementwise/quant_arith.h), so results are bit-exact.
//
// Layouts: inputs of the output's shape run in any layout an earlier NPU step left one of
// them in (elementwise work does not care where an element sits, as long as all three
// tensors share the layout: a channel-tile tensor stays on the device); otherwise NHWC bytes.
// Broadcasting: one input may repeat along its leading dimensions (a scalar, a per-channel
// vector, [1, H, W, C] over a batch, [N, 1, 1, C] over the pixels); its runs are loaded with
// a zero DRAM stride, a row per repetition, or for a constant 8-bit scalar written by a fill.
// SUB is ADD with the second multiplier negated; when the first input is the repeated one
// the two change places with their parameters (the sum does not depend on the order).
#include <algorithm>
#include <array>
#include <utility>

#include "driver/compiler/lowering_internal.h"
#include "driver/compiler/lowering_table.h"
#include "driver/compiler/unit_step_stream.h"
#include "ops/elementwise/quant_arith.h"

namespace nncosim::driver::internal {
namespace {

using hal::OperandType;

// How the step reads its inputs: `full` has the output's shape; `rep` repeats with period
// `period` elements inside each of `segments` segments of `segElems` output elements, its
// segment s starting at element s * segStride of its own tensor.
struct EltwisePlan {
  bool mul = false, negate = false;
  bool swapped = false;  // input 1 is `full`, input 0 repeats
  bool repeats = false;  // false: both inputs have the output's shape
  uint64_t elements = 0, segments = 1, segElems = 0, segStride = 0, period = 0;
  ops::elementwise::QuantArithParams params;  // with a and b in the step's order
  // The inputs change places with their parameters (the sum does not depend on the order;
  // SUB's negated multiplier goes with its input).
  void swapInputs() {
    std::swap(params.a, params.b);
    std::swap(params.aZp, params.bZp);
  }
  const char* name() const { return mul ? "MUL" : negate ? "SUB" : "ADD"; }
};

bool isMul(hal::OperationType t) { return t == hal::OperationType::MUL; }

// Right-aligned rank-4 dimensions (leading 1s).
std::array<uint64_t, 4> dims4(const ops::Shape& s) {
  std::array<uint64_t, 4> d{1, 1, 1, 1};
  const size_t r = s.dimensions.size();
  for (size_t i = 0; i < r && i < 4; ++i) d[4 - r + i] = s.dimensions[i];
  return d;
}

// The repeated input's pattern over the output: per batch (its batch dimension the
// output's or 1) a run of the output's trailing dimensions from some k on, 1 before them.
hal::Status repeatPattern(const std::array<uint64_t, 4>& out, const std::array<uint64_t, 4>& rep,
                          EltwisePlan& p) {
  size_t k = 4;
  while (k > 1 && rep[k - 1] == out[k - 1]) --k;
  for (size_t j = 1; j < k; ++j)
    if (rep[j] != 1)
      return hal::fail("broadcast of [", rep[0], ", ", rep[1], ", ", rep[2], ", ", rep[3],
                       "] over [", out[0], ", ", out[1], ", ", out[2], ", ", out[3],
                       "]: the repeated input must keep trailing dimensions only");
  p.period = 1;
  for (size_t j = k; j < 4; ++j) p.period *= out[j];
  p.segElems = out[1] * out[2] * out[3];
  p.segments = out[0];
  p.segStride = rep[0] == out[0] && out[0] > 1 ? p.period : 0;
  return hal::Status::Ok();
}

hal::Result<EltwisePlan> planEltwise(const OpView& v) {
  const ops::Shape &a = v.inShape(0), &b = v.inShape(1), &o = v.outShape(0);
  const OperandType t = a.type;
  const bool mul = isMul(v.op().type);
  if (t == OperandType::TENSOR_QUANT16_SYMM) {
    if (!is16x8(v)) return hal::fail("int16 operands outside the 16x8 mode");
    if (mul) return hal::fail("int16 MUL (the reference has no quantized int16 MUL)");
  } else if (t != OperandType::TENSOR_QUANT8_ASYMM &&
             t != OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    return hal::fail("operand type ", hal::toString(t), ": the elementwise unit is quantized only");
  }
  if (b.type != t || o.type != t) return hal::fail("inputs and output of different types");
  EltwisePlan p;
  p.mul = mul;
  p.negate = v.op().type == hal::OperationType::SUB;
  p.elements = o.elements();
  if (p.elements == 0) return hal::fail("empty output");
  if (!v.isConstant(2)) return hal::fail("the fused activation is not a constant");
  NNC_ASSIGN_OR_RETURN(p.params, ops::elementwise::quantArithParams(mul, p.negate, a, b, o,
                                                                    v.ctx().scalar<int32_t>(2)));
  const std::array<uint64_t, 4> da = dims4(a), db = dims4(b), dout = dims4(o);
  if (da == dout && db == dout) {
    p.segElems = p.elements;
    return p;
  }
  p.repeats = true;
  if (da == dout) {
    NNC_TRY(repeatPattern(dout, db, p));
  } else if (db == dout) {
    NNC_TRY(repeatPattern(dout, da, p));
    p.swapped = true;
    p.swapInputs();
  } else {
    return hal::fail("both inputs broadcast (the unit repeats one of them only)");
  }
  return p;
}

// ELTWISE's fields and PRM record for the plan's arithmetic (addresses and count unset).
struct Arithmetic {
  firmware::Eltwise proto;
  std::vector<uint8_t> record;
};

Arithmetic arithmetic(const EltwisePlan& p, OperandType type) {
  const ops::elementwise::QuantArithParams& q = p.params;
  Arithmetic r;
  r.record.assign(firmware::kEltwisePrmBytes, 0);
  putI32(r.record, 0, q.a.multiplier);
  putI32(r.record, 4, q.b.multiplier);
  putI32(r.record, 8, q.out.multiplier);
  putI32(r.record, 12, q.range.min);
  putI32(r.record, 16, q.range.max);
  r.record[20] = static_cast<uint8_t>(q.a.shift);
  r.record[21] = static_cast<uint8_t>(q.b.shift);
  r.record[22] = static_cast<uint8_t>(q.out.shift);
  const bool wide = type == OperandType::TENSOR_QUANT16_SYMM;
  firmware::Eltwise& e = r.proto;
  e.mul = p.mul;
  e.wide = e.outWide = wide;
  e.aSigned = e.bSigned = e.outSigned = type != OperandType::TENSOR_QUANT8_ASYMM;
  e.left = static_cast<uint32_t>(q.leftShift);
  e.aZp = q.aZp;
  e.bZp = q.bZp;
  e.outZp = q.outZp;
  e.prmAddr = 0;
  return r;
}

// A DMA_LOAD of `rows` rows of `elems` elements from DRAM `dram` (rows `dramStride` apart)
// into `buf` (rows adjacent).
firmware::DmaLoad run(firmware::Buffer id, uint32_t eb, uint64_t dram, uint64_t dramStride,
                      uint32_t buf, uint64_t elems, uint64_t rows) {
  firmware::DmaLoad d;
  d.bufId = id;
  d.elemWidth = eb == 2 ? firmware::ElemWidth::kW16 : firmware::ElemWidth::kW8;
  d.dramAddr = static_cast<uint32_t>(dram);
  d.dramStride1 = static_cast<uint32_t>(dramStride);
  d.bufAddr = buf;
  d.bufStride1 = static_cast<uint32_t>(elems * eb);
  d.count0 = static_cast<uint32_t>(elems);
  d.count1 = static_cast<uint32_t>(rows);
  d.count2 = 1;
  return d;
}

}  // namespace

hal::Result<EltwiseAfter> eltwiseAfter(const OpView& v, uint32_t convInput) {
  if (convInput > 1) return hal::fail("input ", convInput, ": not an operand of the arithmetic");
  NNC_ASSIGN_OR_RETURN(EltwisePlan p, planEltwise(v));
  if (p.repeats) return hal::fail("a broadcast input (fused steps take equal shapes only)");
  if (v.inShape(0).type == OperandType::TENSOR_QUANT16_SYMM)
    return hal::fail("int16 operands (fused steps are 8-bit)");
  // The convolution's rows are ELTWISE's a: when they are input 1 the inputs change places,
  // as for a repeated first input.
  if (convInput == 1) p.swapInputs();
  Arithmetic arith = arithmetic(p, v.outShape(0).type);
  EltwiseAfter r;
  r.other = v.inOperand(1 - convInput);
  r.output = v.outOperand(0);
  r.proto = arith.proto;
  r.record = std::move(arith.record);
  r.name = p.name();
  return r;
}

hal::Status eltwiseSupport(const OpView& v) {
  auto plan = planEltwise(v);
  return plan.ok() ? hal::Status::Ok() : hal::fail(plan.error());
}

hal::Result<CompiledStep> lowerEltwise(const hal::Model& model, uint32_t index, const OpView& v,
                                       const LoweringOptions& options) {
  NNC_ASSIGN_OR_RETURN(EltwisePlan p, planEltwise(v));
  const ops::Shape& out = v.outShape(0);
  const uint32_t eb = static_cast<uint32_t>(hal::elementSize(out.type));
  const uint32_t fullIn = p.swapped ? 1 : 0, repIn = 1 - fullIn;
  // Inputs of the output's shape share the layout an earlier NPU step left either in.
  TensorLayout layout;
  if (!p.repeats && options.deviceLayouts) {
    for (uint32_t i = 0; i < 2; ++i) {
      const auto it = options.deviceLayouts->find(v.inOperand(i));
      if (it == options.deviceLayouts->end()) continue;
      const TensorLayout::Kind k = it->second.kind;
      if (k == TensorLayout::Kind::kRaw || k == TensorLayout::Kind::kChannelTiles ||
          k == TensorLayout::Kind::kNchwFromNhwc) {
        layout = it->second;
        break;
      }
    }
  }
  const uint64_t outBytes = layout.deviceBytes(p.elements * eb);
  // Elements the unit computes: the device bytes (a channel-tile layout's padding channels
  // too; nothing reads them).
  const uint64_t elements = outBytes / eb;
  const uint64_t segElems = p.repeats ? p.segElems : elements;
  const uint64_t segments = p.repeats ? p.segments : 1;

  StepBuilder sb(model, index);
  NNC_ASSIGN_OR_RETURN(auto fullBuf, sb.bindInput(v.inOperand(fullIn), layout, "input a"));
  const uint8_t* repConst = v.isConstant(repIn) ? v.constantBytes(repIn) : nullptr;
  // A constant 8-bit scalar is written by fills; it needs no buffer.
  const bool fillScalar = p.repeats && p.period == 1 && eb == 1 && repConst && p.segStride == 0;
  size_t repBuf = 0;
  if (!fillScalar) {
    NNC_ASSIGN_OR_RETURN(
        repBuf, sb.bindInput(v.inOperand(repIn), p.repeats ? TensorLayout{} : layout, "input b"));
  }
  Arithmetic arith = arithmetic(p, out.type);
  const size_t prmBuf = sb.addConstant("eltwise parameters", std::move(arith.record));
  const size_t outBuf = sb.bindOutput(v.outOperand(0), layout, outBytes, "output");
  NNC_TRY(sb.layout());
  const uint64_t aBase = sb.address(fullBuf), outBase = sb.address(outBuf);
  const uint64_t bBase = fillScalar ? 0 : sb.address(repBuf);

  // Chunks: two slots of INP, WGT and OUT each; a whole number of beats.
  const NpuConfig& npu = options.npu;
  const uint64_t C = npu.cols;
  uint64_t chunk = std::min<uint64_t>(
      {npu.outBytes / 2 / eb, npu.inpBytes / 2 / eb, npu.wgtBytes / 2 / eb, 65535});
  chunk = std::max<uint64_t>(C, chunk / C * C);
  const uint32_t inpSlot = static_cast<uint32_t>(chunk * eb),
                 outSlot = static_cast<uint32_t>(chunk * eb);
  const firmware::Eltwise proto = arith.proto;

  // One chunk: elements [r0, r0 + n) of segment s.
  UnitStepStream us(options);
  auto emitChunk = [&](uint64_t s, uint64_t r0, uint64_t n) {
    const UnitStepStream::Chunk ck = us.beginChunk();
    const uint32_t inpAt = ck.slot * inpSlot, wgtAt = ck.slot * inpSlot;
    if (ck.firstOfJob)
      us.load(
          run(firmware::Buffer::kPrm, 1, sb.address(prmBuf), 0, 0, firmware::kEltwisePrmBytes, 1));
    const uint64_t e0 = s * segElems + r0;
    us.load(run(firmware::Buffer::kInp, eb, aBase + e0 * eb, 0, inpAt, n, 1));
    if (!p.repeats) {
      us.load(run(firmware::Buffer::kWgt, eb, bBase + e0 * eb, 0, wgtAt, n, 1));
    } else if (fillScalar) {
      firmware::DmaLoad d = run(firmware::Buffer::kWgt, 1, 0, 0, wgtAt, n, 1);
      d.fill = true;
      d.fillValue = repConst[0];
      us.load(d);
    } else {
      // Elements (r0 + j) mod period of the repeated input's segment: the head of a run,
      // whole runs repeated with a zero DRAM stride, the tail.
      const uint64_t seg = bBase + s * p.segStride * eb, P = p.period;
      const uint64_t f = r0 % P, head = std::min(n, P - f);
      uint32_t at = wgtAt;
      us.load(run(firmware::Buffer::kWgt, eb, seg + f * eb, 0, at, head, 1));
      at += static_cast<uint32_t>(head * eb);
      const uint64_t whole = (n - head) / P, tail = (n - head) % P;
      if (whole) {
        us.load(run(firmware::Buffer::kWgt, eb, seg, 0, at, P, whole));
        at += static_cast<uint32_t>(whole * P * eb);
      }
      if (tail) us.load(run(firmware::Buffer::kWgt, eb, seg, 0, at, tail, 1));
    }
    const uint32_t outAt = ck.outSlot * outSlot;
    firmware::Eltwise e = proto;
    e.aAddr = inpAt;
    e.bAddr = wgtAt;
    e.outAddr = outAt;
    e.count = static_cast<uint32_t>(n);
    firmware::DmaStore st;
    st.bufId = firmware::Buffer::kOut;
    st.elemWidth = eb == 2 ? firmware::ElemWidth::kW16 : firmware::ElemWidth::kW8;
    st.dramAddr = static_cast<uint32_t>(outBase + e0 * eb);
    st.bufAddr = outAt;
    st.count0 = static_cast<uint32_t>(n);
    st.count1 = 1;
    us.output({firmware::Command{{}, e}}, {st});
  };
  for (uint64_t s = 0; s < segments; ++s)
    for (uint64_t r0 = 0; r0 < segElems; r0 += chunk)
      emitChunk(s, r0, std::min(chunk, segElems - r0));

  CompiledStep& step = sb.step();
  NNC_TRY(us.finish(step, "ELTWISE"));
  const char* name = p.name();
  step.report.mapping =
      std::string("ELTWISE on the elementwise unit (ISA 1.7): ") + name + ", " +
      std::to_string(elements) + " elements in chunks of " + std::to_string(chunk) +
      (layout.kind == TensorLayout::Kind::kChannelTiles ? ", channel tiles" : "") +
      (p.repeats
           ? ", input " + std::to_string(repIn) + " repeated every " + std::to_string(p.period) +
                 " elements" + (fillScalar ? " (a constant scalar: fills)" : "")
           : std::string()) +
      (eb == 2 ? ", int16" : "");
  return std::move(step);
}

}  // namespace nncosim::driver::internal

namespace nncosim::driver {

void registerEltwiseLowerings(NpuLoweringTable& t) {
  for (hal::OperationType type :
       {hal::OperationType::ADD, hal::OperationType::SUB, hal::OperationType::MUL})
    t.add({type, NpuUnit::kEltwiseUnit, &internal::eltwiseSupport, &internal::lowerEltwise});
}

}  // namespace nncosim::driver
