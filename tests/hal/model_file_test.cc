#include "hal/model_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "hal/model_builder.h"
#include "hal/validation.h"
#include "hal/vector_file.h"

namespace nncosim::hal {
namespace {

namespace fs = std::filesystem;

class ModelFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nnc_model_file_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
  }
  fs::path dir_;
};

Model sampleModel() {
  ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {1, 2, 2, 1});
  std::vector<float> w(4 * 64);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i) - 3.3f;
  const uint32_t big = b.addConstant(OperandType::TENSOR_FLOAT32, {64, 4}, w);
  const uint32_t h =
      b.addConstant(OperandType::TENSOR_FLOAT16, {2}, std::vector<uint16_t>{0x3c00, 0x7bff});
  const uint32_t q = b.addConstant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 1},
                                   std::vector<int8_t>{-3, 7});
  b.setChannelQuant(q, {0.25f, 0.125f}, 0);
  const uint32_t act = b.addInt32(0);
  const uint32_t flag = b.addBool(true);
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {1, 2, 2, 1});
  b.addOperation(OperationType::ADD, {in, in, act}, {out});
  (void)big, (void)h, (void)flag;
  b.setRelaxed(true);
  return b.build();
}

TEST_F(ModelFileTest, WriteThenReadGivesAnIdenticalModel) {
  Model m = sampleModel();
  moveLargeConstantsToPool(m, 512);  // the 1 KiB weight goes to a pool file
  ASSERT_EQ(m.pools.size(), 1u);
  ASSERT_TRUE(writeModelFile(m, path("m.json")).ok());
  EXPECT_TRUE(fs::exists(path("m.pool0.bin")));
  auto r = readModelFile(path("m.json"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_FALSE(r->pools[0].path().empty()) << "pool should be memory-mapped from its file";
  EXPECT_TRUE(sameModel(m, *r));
  // And a second generation is identical too.
  ASSERT_TRUE(writeModelFile(*r, path("m2.json")).ok());
  auto r2 = readModelFile(path("m2.json"));
  ASSERT_TRUE(r2.ok()) << r2.error();
  EXPECT_TRUE(sameModel(*r, *r2));
}

TEST_F(ModelFileTest, Quant16x8FlagRoundTrips) {
  // A 16x8 layer (docs/quantization.md §10): int16 activations, int8 symmetric weights.
  ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_QUANT16_SYMM, {1, 2}, 0.5f);
  const uint32_t w =
      b.addConstant(OperandType::TENSOR_QUANT8_SYMM, {1, 2}, std::vector<int8_t>{-3, 7}, 0.25f);
  const uint32_t bias =
      b.addConstant(OperandType::TENSOR_INT32, {1}, std::vector<int32_t>{5}, 0.125f);
  const uint32_t out = b.addOutput(OperandType::TENSOR_QUANT16_SYMM, {1, 1}, 1.0f);
  b.addOperation(OperationType::FULLY_CONNECTED, {in, w, bias, b.addInt32(0)}, {out});
  b.setQuant16x8(true);
  const Model m = b.build();
  ASSERT_TRUE(writeModelFile(m, path("wide.json")).ok());
  std::ifstream f(path("wide.json"));
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"quant16x8\": true"), std::string::npos) << text;
  auto r = readModelFile(path("wide.json"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r->quant16x8);
  EXPECT_TRUE(sameModel(m, *r));
  // Off: the key is left out, reads back false, and the two models differ.
  Model off = *r;
  off.quant16x8 = false;
  EXPECT_FALSE(sameModel(m, off));
  ASSERT_TRUE(writeModelFile(off, path("narrow.json")).ok());
  std::ifstream g(path("narrow.json"));
  const std::string narrow((std::istreambuf_iterator<char>(g)), std::istreambuf_iterator<char>());
  EXPECT_EQ(narrow.find("quant16x8"), std::string::npos);
  auto r2 = readModelFile(path("narrow.json"));
  ASSERT_TRUE(r2.ok()) << r2.error();
  EXPECT_FALSE(r2->quant16x8);
  // A non-boolean value is an error that names the key.
  write("bad.json", R"({"format":"nncosim-model/1","quant16x8":1,"main":{}})");
  auto bad = readModelFile(path("bad.json"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("quant16x8"), std::string::npos) << bad.error();
}

TEST_F(ModelFileTest, EveryConformanceModelRoundTrips) {
  // A sample across the vector sets: conformance models written in our format and read back.
  int checked = 0;
  for (const auto& f : listVectorFiles(NNC_CONFORMANCE_DIR)) {
    if (checked >= 40 && f.find("control") == std::string::npos) continue;
    auto vf = readVectorFile(f);
    ASSERT_TRUE(vf.ok()) << vf.error();
    const Model& m = vf->tests.front().model;
    ASSERT_TRUE(writeModelFile(m, path("v.json")).ok());
    auto r = readModelFile(path("v.json"));
    ASSERT_TRUE(r.ok()) << f << ": " << r.error();
    EXPECT_TRUE(sameModel(m, *r)) << f;
    ++checked;
  }
  EXPECT_GE(checked, 40);
}

// Each bad-input class gives an error naming the file and the field, never a crash.
struct BadCase {
  std::string what;
  std::string text;
  std::string expect;
};

TEST_F(ModelFileTest, BadInputGivesClearErrors) {
  const std::string ok_operand =
      R"({"type":"TENSOR_FLOAT32","dimensions":[2],"scale":0,"zeroPoint":0,"lifetime":"SUBGRAPH_INPUT"})";
  auto model = [&](const std::string& operand) {
    return R"({"format":"nncosim-model/1","main":{"operands":[)" + operand +
           R"(],"operations":[],"inputIndexes":[0],"outputIndexes":[]}})";
  };
  const BadCase cases[] = {
      {"malformed", "{\"format\": ", "malformed JSON"},
      {"truncated", "{\"format\":\"nncosim-model/1\",\"main\":{\"operands\":[", "malformed JSON"},
      {"wrong format", R"({"format":"other/2"})", "unsupported format"},
      {"wrong field type", R"({"format":"nncosim-model/1","main":{"operands":"x"}})",
       "main.operands: expected an array"},
      {"unknown type",
       model(
           R"({"type":"TENSOR_FLOAT64","dimensions":[2],"scale":0,"zeroPoint":0,"lifetime":"SUBGRAPH_INPUT"})"),
       "unknown operand type \"TENSOR_FLOAT64\""},
      {"unknown lifetime",
       model(
           R"({"type":"TENSOR_FLOAT32","dimensions":[2],"scale":0,"zeroPoint":0,"lifetime":"FOREVER"})"),
       "unknown lifetime \"FOREVER\""},
      {"negative dimension",
       model(
           R"({"type":"TENSOR_FLOAT32","dimensions":[-2],"scale":0,"zeroPoint":0,"lifetime":"SUBGRAPH_INPUT"})"),
       "operands[0].dimensions[0]: expected an unsigned 32-bit integer"},
      {"string scale",
       model(
           R"({"type":"TENSOR_FLOAT32","dimensions":[2],"scale":"big","zeroPoint":0,"lifetime":"SUBGRAPH_INPUT"})"),
       "operands[0].scale: expected a number"},
      {"missing field",
       model(R"({"type":"TENSOR_FLOAT32","scale":0,"zeroPoint":0,"lifetime":"SUBGRAPH_INPUT"})"),
       "operands[0].dimensions: missing"},
      {"bad constant value",
       model(
           R"({"type":"TENSOR_QUANT8_ASYMM","dimensions":[1],"scale":1,"zeroPoint":0,"lifetime":"CONSTANT_COPY","data":[300]})"),
       "operands[0].data[0]: 300 outside [0, 255]"},
      {"unknown operation",
       R"({"format":"nncosim-model/1","main":{"operands":[],"operations":[{"type":"FROB","inputs":[],"outputs":[]}],"inputIndexes":[],"outputIndexes":[]}})",
       "unknown operation type \"FROB\""},
      {"missing pool", R"({"format":"nncosim-model/1","pools":[{"file":"nope.bin"}],"main":{}})",
       "pools[0].file"},
  };
  (void)ok_operand;
  for (const auto& c : cases) {
    write("bad.json", c.text);
    auto r = readModelFile(path("bad.json"));
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_NE(r.error().find("bad.json"), std::string::npos) << c.what << ": " << r.error();
    EXPECT_NE(r.error().find(c.expect), std::string::npos) << c.what << ": " << r.error();
  }
}

TEST_F(ModelFileTest, ShortPoolFileIsRejected) {
  Model m = sampleModel();
  moveLargeConstantsToPool(m, 512);
  ASSERT_TRUE(writeModelFile(m, path("m.json")).ok());
  fs::resize_file(path("m.pool0.bin"), 100);  // truncated on disk
  auto r = readModelFile(path("m.json"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("has 100 bytes, the model says 1024"), std::string::npos) << r.error();
}

TEST_F(ModelFileTest, NanScaleReadsButFailsValidation) {
  write(
      "nan.json",
      R"({"format":"nncosim-model/1","main":{"operands":[{"type":"TENSOR_QUANT8_ASYMM","dimensions":[2],"scale":"nan","zeroPoint":0,"lifetime":"SUBGRAPH_INPUT"}],"operations":[],"inputIndexes":[0],"outputIndexes":[]}})");
  auto r = readModelFile(path("nan.json"));
  ASSERT_TRUE(r.ok()) << r.error();
  auto issues = validateModel(*r);
  ASSERT_FALSE(issues.empty());
  EXPECT_NE(issues.front().str().find("main operand 0: scale is not finite"), std::string::npos);
}

}  // namespace
}  // namespace nncosim::hal
