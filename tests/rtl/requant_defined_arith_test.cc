// Regression (issue 16.3): the Verilated requant unit must compute its int64 path with
// defined C++ arithmetic. Its stage-3 product x * m15 wraps modulo 2^64 by specification;
// written as a signed SystemVerilog multiply, Verilator emits a signed 64-bit C++ multiply,
// whose overflow is undefined behaviour. This test's copy of the unit is compiled with
// -fsanitize=signed-integer-overflow -fno-sanitize-recover, so a signed overflow anywhere in
// the model aborts it; the outputs are also checked against ops/quant's wrapping reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "Vnnc_requant.h"
#include "ops/quant/fixed_point.h"
#include "verilated.h"

namespace {

template <typename Wide>
void putBits(Wide& w, unsigned lsb, unsigned width, uint64_t v) {
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = lsb + i;
    const uint32_t m = 1u << (bit % 32);
    w[bit / 32] = ((v >> i) & 1) ? (w[bit / 32] | m) : (w[bit / 32] & ~m);
  }
}

template <typename Wide>
uint32_t getWord(const Wide& w, unsigned lane) {
  return w[lane];  // 32-bit lanes are whole words
}

constexpr int kLanes = 16;
constexpr uint8_t kOutI32 = 3;  // nnc_pkg::OutI32

TEST(RequantDefinedArith, Int64PathWrapsWithoutSignedOverflow) {
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = std::make_unique<Vnnc_requant>(ctx.get(), "requant");
  auto tick = [&] {
    dut->clk_i = 1;
    dut->eval();
    dut->clk_i = 0;
    dut->eval();
  };
  dut->rst_ni = 0;
  dut->in_valid_i = 0;
  dut->out_ready_i = 1;
  tick();
  dut->rst_ni = 1;

  // Sums far beyond the MAC array's +-2^47 with the largest multipliers: |x * m15| > 2^63.
  std::vector<int64_t> accs = {INT64_MAX,          INT64_MIN,          INT64_MAX / 3,
                               -(INT64_MAX / 5),   int64_t{1} << 62,   -(int64_t{1} << 61),
                               0x123456789abcdef0, -0x0fedcba987654321};
  std::vector<int32_t> mults = {INT32_MAX, 0x7FFEFFFF, 0x40000000, INT32_MAX};
  std::vector<int> shifts = {-31, 0, 14, 7};
  int32_t want[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    const int64_t acc = accs[l % accs.size()];
    const int32_t bias = l % 2 ? INT32_MAX : INT32_MIN;
    const int32_t mult = mults[l % mults.size()];
    const int shift = shifts[l % shifts.size()];
    putBits(dut->in_acc_i, l * 64, 64, static_cast<uint64_t>(acc));
    putBits(dut->in_bias_i, l * 32, 32, static_cast<uint32_t>(bias));
    putBits(dut->in_mult_i, l * 32, 32, static_cast<uint32_t>(mult));
    putBits(dut->in_shift_i, l * 8, 8, static_cast<uint64_t>(shift) & 0xff);
    const auto x =
        static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(int64_t{bias}));
    want[l] = nncosim::ops::quant::multiplyByQuantizedMultiplier64(x, mult, shift);
  }
  dut->in_zp_i = 0;
  dut->in_act_min_i = static_cast<uint32_t>(INT32_MIN);
  dut->in_act_max_i = static_cast<uint32_t>(INT32_MAX);
  dut->in_out_type_i = kOutI32;
  dut->in_acc64_i = 1;
  dut->in_valid_i = 1;
  tick();
  dut->in_valid_i = 0;
  int waited = 0;
  while (!dut->out_valid_o && waited++ < 16) tick();
  ASSERT_TRUE(dut->out_valid_o) << "no output beat within 16 cycles";
  for (int l = 0; l < kLanes; ++l)
    EXPECT_EQ(static_cast<int32_t>(getWord(dut->out_data_o, l)), want[l]) << "lane " << l;
  dut->final();
}

}  // namespace
