// MAX_POOL_2D, and the AVERAGE_POOL_2D layers the depthwise unit does not take, on the pooling
// unit (POOL, ISA 1.7): lowering + ISA interpreter == the ops reference, bit for bit, over
// random layers: uint8, int8 and int16 (16x8 mode), filters up to 15x15, strides 1..3,
// explicit padding (windows clipped by it: 8-bit MAX with fills of the minimum, AVG and
// int16 MAX as POOLs of the windows' parts in the image), every fused activation; on the real
// buffers and on a tiny NPU that cuts rows into column blocks and the layer into many jobs.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "tests/driver/compiler_test_util.h"

namespace nncosim::driver::test {
namespace {

constexpr OperandType kU8 = OperandType::TENSOR_QUANT8_ASYMM;
constexpr OperandType kS8 = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
constexpr OperandType kI16 = OperandType::TENSOR_QUANT16_SYMM;

struct Layer {
  std::string what;
  hal::Model model;
  std::vector<hal::TensorValue> inputs;
};

Layer randomPool(std::mt19937& g, bool avg) {
  auto range = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  const bool wide = range(0, 3) == 0;
  const OperandType t = wide ? kI16 : range(0, 1) ? kS8 : kU8;
  const int qlo = wide ? -32768 : t == kS8 ? -128 : 0, qhi = wide ? 32767 : t == kS8 ? 127 : 255;
  const int fh = range(0, 4) ? range(1, 4) : range(5, 15),
            fw = range(0, 4) ? range(1, 4) : range(5, 15);
  const int sh = range(1, 3), sw = range(1, 3);
  // AVG comes here where the depthwise unit does not take it: int16, a filter over 7, a
  // row stride of 3, or windows clipped by the padding (a third of the layers, either kind).
  const bool pad = range(0, 2) == 0;
  const int pt = pad ? range(0, fh - 1) : 0, pb = pad ? range(0, fh - 1) : 0;
  const int pl = pad ? range(0, fw - 1) : 0, pr = pad ? range(0, fw - 1) : 0;
  const uint32_t n = static_cast<uint32_t>(range(1, 2));
  const uint32_t h = static_cast<uint32_t>(range(fh, fh + 20)),
                 w = static_cast<uint32_t>(range(fw, fw + 40));
  const uint32_t c = static_cast<uint32_t>(range(1, 40));
  const uint32_t oh = (h + pt + pb - fh) / sh + 1, ow = (w + pl + pr - fw) / sw + 1;
  const float scale = std::uniform_real_distribution<float>(0.01f, 0.3f)(g);
  const int32_t zp = wide ? 0 : range(qlo, qhi);
  const int act = range(0, 3);
  OneOpModel m;
  m.quant16x8(wide);
  const size_t e = size_t{n} * h * w * c;
  uint32_t in;
  if (wide) {
    std::vector<int16_t> v(e);
    for (int16_t& x : v) x = static_cast<int16_t>(range(qlo, qhi));
    in = m.input(t, {n, h, w, c}, v, scale, zp);
  } else if (t == kS8) {
    std::vector<int8_t> v(e);
    for (int8_t& x : v) x = static_cast<int8_t>(range(qlo, qhi));
    in = m.input(t, {n, h, w, c}, v, scale, zp);
  } else {
    std::vector<uint8_t> v(e);
    for (uint8_t& x : v) x = static_cast<uint8_t>(range(qlo, qhi));
    in = m.input(t, {n, h, w, c}, v, scale, zp);
  }
  const uint32_t out = m.output(t, {n, oh, ow, c}, scale, zp);
  m.op(avg ? OperationType::AVERAGE_POOL_2D : OperationType::MAX_POOL_2D,
       {in, m.i32(pl), m.i32(pr), m.i32(pt), m.i32(pb), m.i32(sw), m.i32(sh), m.i32(fw), m.i32(fh),
        m.i32(act)},
       {out});
  std::ostringstream what;
  what << (avg ? "AVG " : "MAX ") << hal::toString(t) << " [" << n << "," << h << "," << w << ","
       << c << "] filter " << fh << "x" << fw << " stride " << sh << "x" << sw << " pad " << pt
       << "/" << pb << "/" << pl << "/" << pr << " act " << act;
  return {what.str(), m.build(), m.inputs()};
}

void runMany(bool avg, uint32_t seed) {
  std::mt19937 g(seed);
  int onUnit = 0, wide = 0, refused = 0, jobs = 0, exact = 0, runs = 0, wideRuns = 0;
  for (int i = 0; i < 240; ++i) {
    const Layer l = randomPool(g, avg);
    LoweringOptions o;
    if (i % 3 == 2) o.npu = tinyNpu();
    if (i % 5 == 4) o.maxJobCommands = 60;
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(l.model, l.inputs, want), "") << l.what;
    NpuRun run = npuRun(l.model, l.inputs, o);
    if (!run.error.empty()) {
      // Every layer here fits the real buffers; the tiny NPU's 1 KiB INP may not hold a
      // large window twice, and the step says so.
      if (i % 3 == 2 && run.error.find("exceeds half of INP") != std::string::npos) {
        ++refused;
        continue;
      }
      ADD_FAILURE() << l.what << (i % 3 == 2 ? " (tiny NPU)" : "") << ": " << run.error;
      continue;
    }
    ASSERT_EQ(run.outputs.size(), 1u);
    ASSERT_EQ(run.outputs[0], want[0].bytes) << l.what << " (" << run.step.report.mapping << ")";
    EXPECT_EQ(run.estimatedCycles, run.stats.cycles) << l.what;
    ++exact;
    const bool pool = run.step.report.mapping.find("POOL on the pooling unit") != std::string::npos;
    onUnit += pool;
    wide += l.what.find("QUANT16") != std::string::npos;
    jobs += run.step.report.jobs > 1;
    const bool split = run.step.report.mapping.find("POOLs of their parts") != std::string::npos;
    runs += split;
    wideRuns += split && l.what.find("QUANT16") != std::string::npos;
  }
  std::printf(
      "[ POOL %s ] 240 random layers: %d bit-exact, %d of them on the pooling unit (%d "
      "int16, %d multi-job, %d with clipped windows as POOLs of their parts, %d of those "
      "int16); %d refused by the tiny NPU (window over half its INP)\n",
      avg ? "AVG" : "MAX", exact, onUnit, wide, jobs, runs, wideRuns, refused);
  EXPECT_EQ(exact + refused, 240);
  EXPECT_GT(onUnit, avg ? 80 : 200);
  EXPECT_GT(wide, 20);
  EXPECT_GT(jobs, 5);
  // Clipped AVG windows (any type) and clipped int16 MAX windows run as POOLs of their parts.
  EXPECT_GT(runs, avg ? 50 : 5);
  EXPECT_GT(wideRuns, avg ? 10 : 5);
}

TEST(PoolLowering, RandomMaxPoolsAreBitExactOnThePoolingUnit) { runMany(false, 3); }

TEST(PoolLowering, AveragePoolsTheDepthwiseUnitDoesNotTakeRunOnThePoolingUnit) { runMany(true, 4); }

// A clipped AVG window is divided by its own count: the corner windows of a 3x3 pool with
// padding 1 average 4 values, the edges 6, the middle 9 (the reference's counts), each
// run of lanes a POOL of its own.
TEST(PoolLowering, ClippedAverageWindowsRunAsPoolsOfTheirParts) {
  OneOpModel m;
  std::vector<uint8_t> x(75);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<uint8_t>((i * 37) % 251);
  const uint32_t in = m.input(kU8, {1, 5, 5, 3}, x, 0.5f, 0);
  const uint32_t out = m.output(kU8, {1, 5, 5, 3}, 0.5f, 0);
  m.op(OperationType::AVERAGE_POOL_2D,
       {in, m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(1), m.i32(3), m.i32(3),
        m.i32(0)},
       {out});
  const hal::Model model = m.build();
  const Partition p = partition(model);
  ASSERT_EQ(p.operations.size(), 1u);
  EXPECT_EQ(p.operations[0].target, Target::kNpu) << p.operations[0].reason;
  std::vector<hal::TensorValue> want;
  ASSERT_EQ(referenceRun(model, m.inputs(), want), "");
  const NpuRun run = npuRun(model, m.inputs(), LoweringOptions{});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.outputs.size(), 1u);
  EXPECT_EQ(run.outputs[0], want[0].bytes);
  EXPECT_NE(run.step.report.mapping.find("POOLs of their parts"), std::string::npos)
      << run.step.report.mapping;
  // Per output row: the left lane, the three middle lanes, the right lane.
  size_t pools = 0;
  for (const firmware::Command& c : run.step.commands)
    pools += c.opcode() == firmware::Opcode::kPool;
  EXPECT_EQ(pools, 5u * 3u);
  // The top-left window: the mean of 4 values, rounded half away from zero.
  const int sum = x[0] + x[3] + x[15] + x[18];
  EXPECT_EQ(run.outputs[0][0], static_cast<uint8_t>((sum + 2) / 4));
}

// MEAN over height and/or width on the pooling unit (POOL trunc, ISA 1.8): random uint8 and
// int8 layers, planes to 15 x 15 and a fifth to 40 x 40, axes negative or repeated, keep_dims
// either way, values often at an extreme (negative sums are where truncation and rounding part), on
// the real buffers and the tiny NPU: bit-exact with the reference, estimates equal to the runs.
TEST(PoolLowering, RandomMeansAreBitExactOnThePoolingUnit) {
  std::mt19937 g(11);
  auto range = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(g); };
  int exact = 0, both = 0, negative = 0, tiny = 0, wideWindows = 0;
  for (int i = 0; i < 200; ++i) {
    const bool s8 = range(0, 1);
    const OperandType t = s8 ? kS8 : kU8;
    // A fifth of the planes over 15 along a side (ISA 1.8's wide windows).
    const bool big = range(0, 4) == 0;
    const uint32_t n = static_cast<uint32_t>(range(1, 2)),
                   h = static_cast<uint32_t>(big ? range(8, 40) : range(1, 15)),
                   w = static_cast<uint32_t>(big ? range(16, 40) : range(1, 15)),
                   c = static_cast<uint32_t>(range(1, 40));
    const int kind = range(0, 3);
    std::vector<int32_t> axes = kind < 2    ? std::vector<int32_t>{1, 2}
                                : kind == 2 ? std::vector<int32_t>{1}
                                            : std::vector<int32_t>{2};
    for (int32_t& a : axes)
      if (range(0, 3) == 0) a -= 4;
    if (range(0, 9) == 0) axes.push_back(axes.front());
    const bool keep = range(0, 1);
    const bool reduceH = kind != 3, reduceW = kind != 2;
    std::vector<uint32_t> outDims = {n};
    if (!reduceH || keep) outDims.push_back(reduceH ? 1 : h);
    if (!reduceW || keep) outDims.push_back(reduceW ? 1 : w);
    outDims.push_back(c);
    const int lo = s8 ? -128 : 0, hi = s8 ? 127 : 255;
    const int extreme = range(0, 3);  // 0: near the minimum, 1: near the maximum
    OneOpModel m;
    const size_t e = size_t{n} * h * w * c;
    uint32_t in;
    std::vector<int> vals(e);
    for (int& x : vals)
      x = extreme == 0 ? range(lo, lo + 3) : extreme == 1 ? range(hi - 3, hi) : range(lo, hi);
    if (s8) {
      in = m.input(t, {n, h, w, c}, std::vector<int8_t>(vals.begin(), vals.end()), 0.1f, 3);
      negative += extreme != 1;
    } else {
      in = m.input(t, {n, h, w, c}, std::vector<uint8_t>(vals.begin(), vals.end()), 0.1f, 3);
    }
    const uint32_t out = m.output(t, outDims, 0.1f, 3);
    const uint32_t ax =
        m.constant(OperandType::TENSOR_INT32, {static_cast<uint32_t>(axes.size())}, axes);
    m.op(OperationType::MEAN, {in, ax, m.i32(keep)}, {out});
    const hal::Model model = m.build();
    std::ostringstream what;
    what << "MEAN " << hal::toString(t) << " [" << n << "," << h << "," << w << "," << c
         << "] kind " << kind << " keep " << keep;
    std::vector<hal::TensorValue> want;
    ASSERT_EQ(referenceRun(model, m.inputs(), want), "") << what.str();
    LoweringOptions o;
    if (i % 4 == 3) {
      o.npu = tinyNpu();
      o.maxJobCommands = 60;
    }
    const NpuRun run = npuRun(model, m.inputs(), o);
    if (!run.error.empty() && i % 4 == 3 &&
        run.error.find("exceeds half of INP") != std::string::npos)
      continue;  // the tiny NPU's 1 KiB INP may not hold a 15 x 15 window twice
    ASSERT_EQ(run.error, "") << what.str();
    ASSERT_EQ(run.outputs.size(), 1u);
    ASSERT_EQ(run.outputs[0], want[0].bytes)
        << what.str() << " (" << run.step.report.mapping << ")";
    EXPECT_EQ(run.estimatedCycles, run.stats.cycles) << what.str();
    EXPECT_NE(run.step.report.mapping.find("MEAN as truncating AVG"), std::string::npos);
    ++exact;
    both += kind < 2;
    wideWindows += (reduceH && h > 15) || (reduceW && w > 15);
    tiny += i % 4 == 3;
  }
  std::printf(
      "[ MEAN ] 200 random layers: %d bit-exact on the pooling unit (%d over height and "
      "width, %d with a window over 15, %d on the tiny NPU; %d int8 layers with negative sums "
      "likely)\n",
      exact, both, wideWindows, tiny, negative);
  EXPECT_GT(exact, 160);
  EXPECT_GT(both, 70);
  EXPECT_GT(wideWindows, 15);
  EXPECT_GT(negative, 40);
}

// A truncating mean differs from a rounded one: int8 values -1 and -2 average to -1 (the
// reference's -3 / 2), where rounding half away from zero would give -2.
TEST(PoolLowering, MeanTruncatesTowardZero) {
  OneOpModel m;
  const uint32_t in = m.input(kS8, {1, 1, 2, 1}, std::vector<int8_t>{-1, -2}, 0.5f, 0);
  const uint32_t out = m.output(kS8, {1, 1}, 0.5f, 0);
  m.op(OperationType::MEAN,
       {in, m.constant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{1, 2}), m.i32(0)},
       {out});
  const hal::Model model = m.build();
  const NpuRun run = npuRun(model, m.inputs(), LoweringOptions{});
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.outputs.size(), 1u);
  EXPECT_EQ(static_cast<int8_t>(run.outputs[0].at(0)), -1);
}

// Windows over 15 (ISA 1.8's fh_hi, fw_hi): the global pools of 56 x 56 and 28 x 20 maps,
// MEAN, AVG and MAX, and a 17 x 16 AVG with padding (its clipped windows as POOLs of their
// parts), bit-exact on the interpreter; a window whose rows do not fit half of INP fails
// to lower, naming INP.
TEST(PoolLowering, WindowsOver15RunOnThePoolingUnit) {
  std::mt19937 g(5);
  auto run = [&](OperationType type, OperandType t, std::vector<uint32_t> dims, int32_t fh,
                 int32_t fw, int32_t pad) {
    const uint32_t n = dims[0], h = dims[1], w = dims[2], c = dims[3];
    std::vector<uint8_t> x(size_t{n} * h * w * c);
    for (uint8_t& v : x) v = static_cast<uint8_t>(g());
    OneOpModel m;
    const uint32_t in = m.input(t, dims, x, 0.25f, t == kS8 ? -3 : 100);
    uint32_t out;
    if (type == OperationType::MEAN) {
      out = m.output(t, {n, 1, 1, c}, 0.25f, t == kS8 ? -3 : 100);
      m.op(type,
           {in, m.constant(OperandType::TENSOR_INT32, {2}, std::vector<int32_t>{1, 2}), m.i32(1)},
           {out});
    } else {
      const uint32_t oh = (h + 2 * pad - fh) / 1 + 1, ow = (w + 2 * pad - fw) / 1 + 1;
      out = m.output(t, {n, oh, ow, c}, 0.25f, t == kS8 ? -3 : 100);
      m.op(type,
           {in, m.i32(pad), m.i32(pad), m.i32(pad), m.i32(pad), m.i32(1), m.i32(1), m.i32(fw),
            m.i32(fh), m.i32(0)},
           {out});
    }
    const hal::Model model = m.build();
    std::vector<hal::TensorValue> want;
    EXPECT_EQ(referenceRun(model, m.inputs(), want), "");
    const NpuRun r = npuRun(model, m.inputs(), LoweringOptions{});
    if (!r.error.empty()) return r.error;
    EXPECT_EQ(r.outputs.at(0), want.at(0).bytes) << hal::toString(type);
    EXPECT_EQ(r.estimatedCycles, r.stats.cycles);
    EXPECT_NE(r.step.report.mapping.find("POOL on the pooling unit"), std::string::npos)
        << r.step.report.mapping;
    return std::string();
  };
  EXPECT_EQ(run(OperationType::MEAN, kS8, {1, 56, 56, 40}, 56, 56, 0), "");
  EXPECT_EQ(run(OperationType::MEAN, kU8, {2, 28, 20, 16}, 28, 20, 0), "");
  EXPECT_EQ(run(OperationType::AVERAGE_POOL_2D, kS8, {1, 56, 56, 24}, 56, 56, 0), "");
  EXPECT_EQ(run(OperationType::MAX_POOL_2D, kU8, {1, 28, 20, 33}, 28, 20, 0), "");
  EXPECT_EQ(run(OperationType::AVERAGE_POOL_2D, kU8, {1, 20, 19, 16}, 17, 16, 3), "");
  // 120 rows of 120 pixel vectors: 230 KB, over half of INP.
  EXPECT_NE(run(OperationType::MEAN, kU8, {1, 120, 120, 16}, 120, 120, 0).find("half of INP"),
            std::string::npos);
}

// What the pooling unit does not take stays on the CPU, naming why.
TEST(PoolLowering, MeansTheUnitDoesNotTakeNameTheirReason) {
  auto reasonFor = [](OperandType t, std::vector<uint32_t> dims, std::vector<int32_t> axes) {
    OneOpModel m;
    size_t e = 1;
    for (uint32_t d : dims) e *= d;
    const uint32_t in = t == OperandType::TENSOR_FLOAT32
                            ? m.floats(dims, std::vector<float>(e, 1.0f))
                            : m.input(t, dims, std::vector<uint8_t>(e, 7), 0.5f, 0);
    std::vector<uint32_t> outDims = dims;
    for (int32_t a : axes) outDims[static_cast<size_t>(a)] = 1;
    const uint32_t out =
        t == OperandType::TENSOR_FLOAT32 ? m.outFloats(outDims) : m.output(t, outDims, 0.5f, 0);
    m.op(OperationType::MEAN,
         {in, m.constant(OperandType::TENSOR_INT32, {static_cast<uint32_t>(axes.size())}, axes),
          m.i32(1)},
         {out});
    const Partition p = partition(m.build());
    EXPECT_EQ(p.operations.size(), 1u);
    EXPECT_EQ(p.operations.at(0).target, Target::kCpu);
    return p.operations.at(0).reason;
  };
  EXPECT_NE(reasonFor(kU8, {1, 4, 4, 8}, {3}).find("over the channels"), std::string::npos);
  EXPECT_NE(reasonFor(kU8, {1, 241, 4, 8}, {1, 2}).find("at most 240x240"), std::string::npos);
  EXPECT_NE(reasonFor(kU8, {4, 4, 8}, {1}).find("rank 3"), std::string::npos);
  EXPECT_NE(reasonFor(OperandType::TENSOR_FLOAT32, {1, 4, 4, 8}, {1, 2}).find("quantized only"),
            std::string::npos);
}

}  // namespace
}  // namespace nncosim::driver::test
