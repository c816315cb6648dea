// nncosim info FILE: operands, operations, types, MACs and weight bytes of a model.
#include <iomanip>
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "frontend/model_source.h"
#include "cli/options.h"
#include "driver/compiler/model_stats.h"
#include "verify/models/demo_network.h"
#include "ops/mac_count.h"
#include "ops/shape.h"

namespace nncosim::cli {

namespace {

void describe(const std::string& name, const hal::Model& m, bool operands) {
  std::cout << name << "\n";
  uint64_t totalMacs = 0;
  for (int s = -1; s < static_cast<int>(m.referenced.size()); ++s) {
    const auto& g = m.subgraph(s);
    std::cout << (s < 0 ? "main" : "referenced[" + std::to_string(s) + "]") << ": "
              << g.operands.size() << " operands, " << g.operations.size() << " operations, inputs "
              << ops::toString(g.inputIndexes) << ", outputs " << ops::toString(g.outputIndexes)
              << "\n";
    if (operands) {
      for (size_t i = 0; i < g.operands.size(); ++i) {
        const auto& o = g.operands[i];
        std::cout << "  operand " << std::setw(3) << i << "  " << std::left << std::setw(31)
                  << hal::toString(o.type) << std::setw(18) << ops::toString(o.dimensions)
                  << std::setw(19) << hal::toString(o.lifetime) << std::right;
        if (hal::isQuantized(o.type) && !o.channelQuant)
          std::cout << " scale " << o.scale << " zp " << o.zeroPoint;
        if (o.channelQuant)
          std::cout << " per-channel (" << o.channelQuant->scales.size() << " scales, dim "
                    << o.channelQuant->channelDim << ")";
        if (!o.name.empty()) std::cout << "  " << o.name;
        std::cout << "\n";
      }
    }
    for (size_t k = 0; k < g.operations.size(); ++k) {
      const auto& op = g.operations[k];
      const uint64_t macs = ops::macCount(m, g, op);
      totalMacs += macs;
      std::cout << "  op " << std::setw(3) << k << "  " << std::left << std::setw(28)
                << hal::toString(op.type) << std::right << " in " << ops::toString(op.inputs)
                << " out " << ops::toString(op.outputs);
      if (!op.outputs.empty() && op.outputs[0] < g.operands.size())
        std::cout << " -> " << hal::toString(g.operands[op.outputs[0]].type) << " "
                  << ops::toString(g.operands[op.outputs[0]].dimensions);
      if (macs) std::cout << "  MACs " << macs;
      std::cout << "\n";
    }
  }
  std::map<std::string, int> types;
  for (const auto& op : m.main.operations) ++types[std::string(hal::toString(op.type))];
  std::cout << "total: " << totalMacs << " MACs, " << driver::constantBytes(m)
            << " constant bytes (" << m.pools.size() << " pools), relaxed float32->float16: "
            << (m.relaxComputationFloat32toFloat16 ? "yes" : "no")
            << ", 16x8 quantization: " << (m.quant16x8 ? "yes" : "no") << "\n";
}

}  // namespace

int cmdInfo(const Args& args) {
  po::options_description desc("info options");
  std::string file;
  bool quiet = false;
  desc.add_options()("model", po::value(&file), "model or vector file (default: the demo network)")(
      "no-operands", po::bool_switch(&quiet), "omit the operand table");
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  int exit = 0;
  if (!parseOptions(args, "nncosim info [FILE] [--no-operands]", desc, pos, vm, &exit)) return exit;
  if (file.empty()) {
    describe("demo network (embedded)", verify::demoNetwork(), !quiet);
    return kExitOk;
  }
  auto loaded = frontend::loadModels(file);
  if (!loaded) {
    std::cerr << loaded.error() << "\n";
    return kExitFailure;
  }
  for (const auto& m : *loaded) describe(m.name, m.model, !quiet);
  return kExitOk;
}

}  // namespace nncosim::cli
