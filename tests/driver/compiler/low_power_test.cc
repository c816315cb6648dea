// LOW_POWER keeps the plan with the least energy: for random convolutions, the mapping the
// compiler picks on its own costs no more energy (estimatedEnergyPj) than any mapping
// forced, and FAST_SINGLE_ANSWER's pick costs no more end to end than any forced one.
#include <gtest/gtest.h>

#include <cstdio>

#include "driver/compiler/lowering.h"
#include "verify/difftest/random_layers.h"

namespace nncosim::driver {
namespace {

double cost(const hal::Model& m, const CompiledStep& s, const LoweringOptions& o) {
  return o.preference == hal::ExecutionPreference::LOW_POWER ? estimatedEnergyPj(m, s, o)
                                                             : endToEndCycles(m, s, o);
}

TEST(LowPower, TheAutomaticMappingIsTheCheapestByThePreferencesCost) {
  verify::difftest::GeneratorOptions g;
  g.types = {hal::OperationType::CONV_2D, hal::OperationType::DEPTHWISE_CONV_2D};
  int compared = 0, lowPowerDiffers = 0;
  for (uint64_t i = 0; i < 60; ++i) {
    const auto layer = verify::difftest::randomLayer(verify::difftest::layerSeed(31, i), g);
    for (auto pref :
         {hal::ExecutionPreference::LOW_POWER, hal::ExecutionPreference::FAST_SINGLE_ANSWER}) {
      LoweringOptions o;
      o.preference = pref;
      auto best = lowerOperation(layer.model, 0, declaredShapes(layer.model), o);
      if (!best.ok()) continue;  // not NPU-eligible
      const double bestCost = cost(layer.model, *best, o);
      for (ConvMapping m :
           {ConvMapping::kHostIm2col, ConvMapping::kDmaIm2col, ConvMapping::kShiftedWindows,
            ConvMapping::kOutputBlocks, ConvMapping::kWindow, ConvMapping::kDepthwiseUnit}) {
        LoweringOptions f = o;
        f.convMapping = m;
        auto forced = lowerOperation(layer.model, 0, declaredShapes(layer.model), f);
        if (!forced.ok()) continue;
        ++compared;
        EXPECT_LE(bestCost, cost(layer.model, *forced, o) * (1 + 1e-12)) << layer.description;
      }
      if (pref == hal::ExecutionPreference::LOW_POWER) {
        LoweringOptions fast = o;
        fast.preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
        auto f = lowerOperation(layer.model, 0, declaredShapes(layer.model), fast);
        if (f.ok() && f->report.mapping != best->report.mapping) ++lowPowerDiffers;
      }
    }
  }
  std::printf(
      "[ low power ] %d forced mappings compared; LOW_POWER's mapping differs from FAST's in %d "
      "layers\n",
      compared, lowPowerDiffers);
  EXPECT_GT(compared, 60);
}

}  // namespace
}  // namespace nncosim::driver
