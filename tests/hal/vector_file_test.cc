#include "hal/vector_file.h"

#include <gtest/gtest.h>

#include "hal/validation.h"

namespace nncosim::hal {
namespace {

TEST(VectorFileTest, LoadsEveryConformanceFile) {
  const auto files = listVectorFiles(NNC_CONFORMANCE_DIR);
  ASSERT_EQ(files.size(), 491u) << "conformance vectors expected at " << NNC_CONFORMANCE_DIR;
  size_t tests = 0, expectFailure = 0, rejected = 0;
  for (const auto& f : files) {
    auto vf = readVectorFile(f);
    ASSERT_TRUE(vf.ok()) << vf.error();
    for (const auto& t : vf->tests) {
      ++tests;
      EXPECT_EQ(t.inputs.size(), t.model.main.inputIndexes.size()) << t.name;
      EXPECT_EQ(t.expectedOutputs.size(), t.model.main.outputIndexes.size()) << t.name;
      const auto issues = validateModel(t.model);
      if (t.expectFailure) {
        ++expectFailure;
        rejected += !issues.empty();
      } else {
        EXPECT_TRUE(issues.empty()) << t.name << ": " << issues.front().str();
      }
    }
  }
  EXPECT_EQ(tests, 6428u);
  EXPECT_EQ(expectFailure, 61u);
  std::cout << "structural validation rejects " << rejected << " of " << expectFailure
            << " expectFailure models\n";
}

TEST(VectorFileTest, ConstantReferenceDataLandsInAPool) {
  // At least one vector uses CONSTANT_REFERENCE; its operands must point into pool 0.
  size_t seen = 0;
  for (const auto& f : listVectorFiles(NNC_CONFORMANCE_DIR)) {
    auto vf = readVectorFile(f);
    ASSERT_TRUE(vf.ok());
    for (const auto& t : vf->tests)
      for (const auto& o : t.model.main.operands)
        if (o.lifetime == OperandLifeTime::CONSTANT_POOL) {
          ++seen;
          ASSERT_EQ(t.model.pools.size(), 1u);
          EXPECT_LE(o.location.offset + o.location.length, t.model.pools[0].size());
        }
  }
  EXPECT_GT(seen, 0u);
}

TEST(VectorFileTest, MissingAndMalformedFilesAreErrors) {
  auto r = readVectorFile("/nonexistent/x.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("/nonexistent/x.json: cannot open"), std::string::npos);
}

}  // namespace
}  // namespace nncosim::hal
