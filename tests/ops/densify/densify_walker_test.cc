#include "ops/densify/densify_walker.h"

#include <gtest/gtest.h>

#include <string>

namespace nncosim::ops {
namespace {

constexpr int32_t D = 0;  // DENSE
constexpr int32_t S = 1;  // SPARSE_CSR

// A 3x4 CSR matrix: rows dense, columns sparse.
//   [1 0 2 0]
//   [0 0 0 0]
//   [0 3 0 4]
SparseFormat csr3x4() {
  SparseFormat f;
  f.traversalOrder = {0, 1};
  f.dimFormat = {D, S};
  f.dimensions = {3, 4};
  f.segments = {{}, {0, 2, 2, 4}};
  f.indices = {{}, {0, 2, 1, 3}};
  return f;
}

// densify_3's 4x8 block-sparse tensor: 2x2 blocks, block rows dense, block columns sparse,
// blocks traversed column-major inside.
SparseFormat blocked4x8() {
  SparseFormat f;
  f.traversalOrder = {0, 1, 3, 2};
  f.blockMap = {0, 1};
  f.dimFormat = {D, S, D, D};
  f.dimensions = {2, 4, 2, 2};
  f.segments = {{}, {0, 3, 4}, {}, {}};
  f.indices = {{}, {0, 1, 2, 1}, {}, {}};
  return f;
}

std::string createError(SparseFormat f) {
  auto w = DensifyWalker::create(std::move(f));
  return w.ok() ? std::string("(accepted)") : w.error();
}

TEST(DensifyWalker, CsrMatrixOffsets) {
  auto w = DensifyWalker::create(csr3x4());
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(w->denseShape(), (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(w->denseElements(), 12u);
  EXPECT_EQ(w->numValues(), 4u);
  EXPECT_EQ(w->denseOffsets(), (std::vector<uint64_t>{0, 2, 9, 11}));
  EXPECT_EQ(w->levelWeights(), (std::vector<uint64_t>{4, 1}));
}

TEST(DensifyWalker, AllDenseColumnMajor) {
  SparseFormat f;
  f.traversalOrder = {1, 0};  // columns outermost
  f.dimFormat = {D, D};
  f.dimensions = {3, 2};  // 3 columns, 2 rows: a 2x3 tensor
  auto w = DensifyWalker::create(f);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(w->denseShape(), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(w->denseOffsets(), (std::vector<uint64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(DensifyWalker, BlockSparseMatchesDensify3) {
  auto w = DensifyWalker::create(blocked4x8());
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(w->denseShape(), (std::vector<uint32_t>{4, 8}));
  EXPECT_EQ(w->numValues(), 16u);
  // The vector's values and expected dense tensor.
  const float values[16] = {1, 1, 0, 0, 2, 2, 3, 3, 0, 0, 4, 4, 5, 0, 0, 0};
  const float expected[32] = {1, 0, 2, 3, 0, 4, 0, 0, 1, 0, 2, 3, 0, 4, 0, 0,
                              0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  float dense[32] = {};
  w->forEach([&](uint64_t v, uint64_t offset) {
    ASSERT_LT(offset, 32u);
    dense[offset] = values[v];
  });
  for (int i = 0; i < 32; ++i) EXPECT_EQ(dense[i], expected[i]) << "offset " << i;
}

TEST(DensifyWalker, EmptySparseLevelStoresNothing) {
  SparseFormat f = csr3x4();
  f.segments[1] = {0, 0, 0, 0};
  f.indices[1] = {};
  auto w = DensifyWalker::create(f);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(w->numValues(), 0u);
  int calls = 0;
  w->forEach([&](uint64_t, uint64_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(DensifyWalker, RejectsArrayLengthMismatches) {
  SparseFormat f = csr3x4();
  f.traversalOrder = {};
  EXPECT_NE(createError(f).find("traversal order is empty"), std::string::npos);
  f = csr3x4();
  f.dimFormat = {D};
  EXPECT_NE(createError(f).find("dim format has 1 entries"), std::string::npos);
  f = csr3x4();
  f.dimensions = {3, 4, 5};
  EXPECT_NE(createError(f).find("dimensions has 3 entries"), std::string::npos);
}

TEST(DensifyWalker, RejectsBadTraversalOrder) {
  SparseFormat f = csr3x4();
  f.traversalOrder = {0, 2};
  EXPECT_NE(createError(f).find("entry 1 is 2"), std::string::npos) << createError(f);
  f.traversalOrder = {1, 1};
  EXPECT_NE(createError(f).find("repeats dimension 1"), std::string::npos) << createError(f);
  f.traversalOrder = {-1, 0};
  EXPECT_NE(createError(f).find("permutation"), std::string::npos) << createError(f);
  // A block dimension among the first n entries.
  SparseFormat b = blocked4x8();
  b.traversalOrder = {0, 2, 1, 3};
  EXPECT_NE(createError(b).find("permutation"), std::string::npos) << createError(b);
}

TEST(DensifyWalker, RejectsBadBlockMap) {
  SparseFormat b = blocked4x8();
  b.blockMap = {1, 0};
  EXPECT_NE(createError(b).find("strictly increasing"), std::string::npos) << createError(b);
  b.blockMap = {0, 2};
  EXPECT_NE(createError(b).find("outside the dense rank"), std::string::npos) << createError(b);
  b = blocked4x8();
  b.blockMap = {0, 1, 1, 0};  // as many block dimensions as levels
  EXPECT_NE(createError(b).find("block map has 4 entries"), std::string::npos) << createError(b);
  b = blocked4x8();
  b.traversalOrder = {0, 1, 2};  // 3 levels, 2 blocks: more blocks than dense dimensions
  b.dimFormat = {D, D, D};
  b.dimensions = {2, 2, 2};
  b.segments = b.indices = {{}, {}, {}};
  EXPECT_NE(createError(b).find("more than the 1 dense dimensions"), std::string::npos)
      << createError(b);
}

TEST(DensifyWalker, RejectsBadFormatsAndSizes) {
  SparseFormat f = csr3x4();
  f.dimFormat = {D, 2};
  EXPECT_NE(createError(f).find("expected DENSE (0) or SPARSE_CSR (1)"), std::string::npos);
  f = csr3x4();
  f.dimensions = {0, 4};
  EXPECT_NE(createError(f).find("sizes must be >= 1"), std::string::npos);
  f = csr3x4();
  f.dimensions = {65536, 65536};
  f.segments[1] = std::vector<int32_t>(65537, 0);
  EXPECT_NE(createError(f).find("larger than"), std::string::npos) << createError(f);
}

TEST(DensifyWalker, RejectsArraysOnDenseLevel) {
  SparseFormat f = csr3x4();
  f.segments[0] = {0, 1};
  EXPECT_NE(createError(f).find("level 0 is DENSE"), std::string::npos) << createError(f);
}

TEST(DensifyWalker, RejectsBadSegments) {
  SparseFormat f = csr3x4();
  f.segments[1] = {0, 2, 4};  // 3 rows need 4 entries
  EXPECT_NE(createError(f).find("expected 4"), std::string::npos) << createError(f);
  f.segments[1] = {1, 2, 2, 4};
  EXPECT_NE(createError(f).find("must start at 0"), std::string::npos) << createError(f);
  f.segments[1] = {0, 3, 2, 4};
  EXPECT_NE(createError(f).find("decrease at entry 2"), std::string::npos) << createError(f);
  f.segments[1] = {0, 2, 2, 5};
  EXPECT_NE(createError(f).find("end at 5 but there are 4"), std::string::npos) << createError(f);
}

TEST(DensifyWalker, RejectsBadIndices) {
  SparseFormat f = csr3x4();
  f.indices[1] = {0, 4, 1, 3};
  EXPECT_NE(createError(f).find("array index 1 is 4"), std::string::npos) << createError(f);
  f.indices[1] = {0, -1, 1, 3};
  EXPECT_NE(createError(f).find("array index 1 is -1"), std::string::npos) << createError(f);
  f.indices[1] = {2, 2, 1, 3};
  EXPECT_NE(createError(f).find("lists index 2 more than once"), std::string::npos)
      << createError(f);
  // The same column in different rows is fine.
  f.indices[1] = {2, 0, 2, 3};
  EXPECT_EQ(createError(f), "(accepted)");
}

}  // namespace
}  // namespace nncosim::ops
