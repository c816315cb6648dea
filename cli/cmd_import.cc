// nncosim import MODEL.tflite -o model.json: a TFLite model in the nncosim model format,
// large constants in a binary pool beside the JSON (docs/model-format.md).
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#include "hal/model_file.h"
#include "hal/tflite/tflite_import.h"

namespace nncosim::cli {

int cmdImport(const Args& args) {
  po::options_description desc("import options");
  std::string file, output;
  size_t poolMin = 64;
  desc.add_options()("model", po::value(&file), "TFLite model (.tflite)")(
      "output,o", po::value(&output), "the nncosim model JSON to write (pools beside it)")(
      "pool-min-bytes", po::value(&poolMin)->default_value(poolMin),
      "constants of at least this many bytes go to the pool, smaller ones inline");
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  int exit = 0;
  if (!parseOptions(args, "nncosim import MODEL.tflite -o MODEL.json", desc, pos, vm, &exit))
    return exit;
  if (file.empty() || output.empty()) {
    std::cerr << "nncosim import: give a .tflite model and -o MODEL.json\n";
    return kExitUsage;
  }
  tflite::ImportOptions options;
  options.referenceFile = false;  // copy the weights: a pool of the whole file would waste space
  options.poolMinBytes = poolMin;
  auto m = tflite::readTfliteFile(file, options);
  if (!m) {
    std::cerr << m.error() << "\n";
    return kExitFailure;
  }
  const std::filesystem::path parent = std::filesystem::path(output).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (auto st = hal::writeModelFile(*m, output); !st.ok()) {
    std::cerr << st.error() << "\n";
    return kExitFailure;
  }
  size_t poolBytes = 0;
  for (const auto& p : m->pools) poolBytes += p.size();
  std::cout << file << " -> " << output << ": " << m->main.operands.size() << " operands, "
            << m->main.operations.size() << " operations, " << m->operandValues.size()
            << " inline constant bytes, " << poolBytes << " bytes in " << m->pools.size()
            << " pool(s)\n";
  return kExitOk;
}

}  // namespace nncosim::cli
