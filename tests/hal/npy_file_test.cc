// .npy reading and writing: every check names what differs.
#include "hal/npy_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace nncosim::hal {
namespace {

std::vector<uint8_t> npy(const std::string& header, size_t dataBytes, uint8_t major = 1) {
  std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  b.push_back(static_cast<uint8_t>(header.size() & 0xff));
  b.push_back(static_cast<uint8_t>(header.size() >> 8));
  b.insert(b.end(), header.begin(), header.end());
  b.insert(b.end(), dataBytes, 7);
  return b;
}

Operand int8Tensor(std::vector<uint32_t> dims) {
  Operand o;
  o.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  o.dimensions = std::move(dims);
  o.scale = 1.0f;
  return o;
}

std::string errorOf(const Result<NpyArray>& r) { return r.ok() ? "" : r.error(); }

TEST(NpyFile, ParsesAndMatchesTheOperand) {
  auto a =
      parseNpy(npy("{'descr': '|i1', 'fortran_order': False, 'shape': (1, 2), }\n", 2), "a.npy");
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->shape, (std::vector<uint64_t>{1, 2}));
  auto d = npyDataFor(*a, int8Tensor({1, 2}), "a.npy");
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->size(), 2u);
}

TEST(NpyFile, BadMagicVersionAndHeader) {
  auto bytes = npy("{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }", 2);
  auto noMagic = bytes;
  noMagic[1] = 'X';
  EXPECT_NE(errorOf(parseNpy(noMagic, "a.npy")).find("no \\x93NUMPY magic"), std::string::npos);
  EXPECT_NE(errorOf(parseNpy(npy("{}", 0, 9), "a.npy")).find("version 9.0"), std::string::npos);
  auto longHeader = bytes;
  longHeader[9] = 0x7f;
  EXPECT_NE(errorOf(parseNpy(longHeader, "a.npy")).find("runs past the end"), std::string::npos);
  EXPECT_NE(
      errorOf(parseNpy(npy("{'descr': '|i1', 'shape': (2,), }", 2), "a.npy")).find("fortran_order"),
      std::string::npos);
  EXPECT_NE(
      errorOf(parseNpy(npy("{'descr': '|i1', 'fortran_order': True, 'shape': (2,), }", 2), "a.npy"))
          .find("only C order"),
      std::string::npos);
  EXPECT_NE(errorOf(parseNpy(npy("{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", 2),
                             "a.npy"))
                .find("2 data bytes, but shape (3,) of '|i1' needs 3"),
            std::string::npos);
}

TEST(NpyFile, DtypeAndShapeMismatchNamed) {
  auto f4 =
      parseNpy(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", 8), "a.npy");
  ASSERT_TRUE(f4.ok());
  auto d = npyDataFor(*f4, int8Tensor({1, 2}), "a.npy");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().find("dtype '<f4' but the model input is TENSOR_QUANT8_ASYMM_SIGNED ('|i1')"),
            std::string::npos)
      << d.error();
  auto i1 =
      parseNpy(npy("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 1), }", 2), "a.npy");
  ASSERT_TRUE(i1.ok());
  auto s = npyDataFor(*i1, int8Tensor({1, 2}), "a.npy");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("shape (2, 1) but the model input is (1, 2)"), std::string::npos)
      << s.error();
}

TEST(NpyFile, WriteThenReadRoundTrips) {
  const std::string path = ::testing::TempDir() + "/npy_roundtrip.npy";
  const std::vector<uint8_t> data = {1, 0, 2, 0, 3, 0};
  ASSERT_TRUE(writeNpy(path, OperandType::TENSOR_QUANT16_SYMM, {1, 3}, data).ok());
  auto a = readNpy(path);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a->descr, "<i2");
  EXPECT_EQ(a->shape, (std::vector<uint64_t>{1, 3}));
  EXPECT_EQ(a->data, data);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace nncosim::hal
