// Regression (issue 16.4): the densify testbench's memory model copies a zero-length array
// (an empty vector, whose data() may be null) without passing the null pointer to memcpy,
// which is undefined even for zero bytes. Built with -fsanitize=nonnull-attribute and no
// recovery, so the old code aborts here.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "testbench/densify/densify_memory.h"

namespace nncosim::testbench {
namespace {

TEST(DensifyMemory, EmptyArrayCopiesNothing) {
  DensifyMemory mem;
  std::mt19937_64 rng(1);
  mem.reset(rng);
  const uint32_t a = mem.alloc(4, 4, false, "segments 0", rng);
  const std::vector<int32_t> empty;
  volatile size_t zero = 0;  // a run-time length, as in the testbench
  mem.put(a, empty.data(), zero);
  EXPECT_EQ(mem.get(a, 4), std::vector<uint8_t>(4, 0xa5)) << "a zero-length put changed memory";
  const int32_t v = 0x01020304;
  mem.put(a, &v, 4);
  EXPECT_EQ(mem.get(a, 4), (std::vector<uint8_t>{4, 3, 2, 1}));
  EXPECT_TRUE(mem.canaryIntact());
}

}  // namespace
}  // namespace nncosim::testbench
