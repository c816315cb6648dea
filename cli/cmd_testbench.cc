// nncosim testbench [--list] NAME [--seed S] [--iterations N] [--waves FILE.fst]:
// runs a cosim testbench of an RTL block or of the NPU.
#include <iostream>

#include "cli/commands.h"
#include "cli/options.h"
#ifdef NNCOSIM_HAVE_HW
#include "testbench/testbench.h"
#endif

namespace nncosim::cli {

int cmdTestbench(const Args& args) {
  po::options_description desc("testbench options");
  std::string name, waves;
  uint64_t seed = 1, iterations = 0;
  bool list = false, ci = false, verbose = false;
  desc.add_options()("name", po::value(&name), "testbench to run")("list", po::bool_switch(&list),
                                                                   "list the testbenches")(
      "seed", po::value(&seed)->default_value(1), "random seed")(
      "iterations", po::value(&iterations)->default_value(0),
      "random cases (0: the testbench's default)")("ci", po::bool_switch(&ci),
                                                   "use the testbench's CI budget of iterations")(
      "waves", po::value(&waves), "write an FST waveform")("verbose,v", po::bool_switch(&verbose),
                                                           "print every case");
  po::positional_options_description pos;
  pos.add("name", 1);
  po::variables_map vm;
  int exit = 0;
  const char* usage =
      "nncosim testbench [--list] NAME [--seed S] [--iterations N] [--waves FILE.fst]";
  if (!parseOptions(args, usage, desc, pos, vm, &exit)) return exit;
#ifndef NNCOSIM_HAVE_HW
  std::cerr
      << "nncosim testbench: this build has no hardware (configured with NNCOSIM_BUILD_HW=OFF)\n";
  return kExitFailure;
#else
  const auto& reg = testbench::testbenchRegistry();
  if (list) {
    for (const auto& [n, def] : reg) std::cout << n << "  " << def.description << "\n";
    return kExitOk;
  }
  if (name.empty()) {
    std::cerr << "nncosim testbench: no testbench named\nusage: " << usage << "\n";
    return kExitUsage;
  }
  auto it = reg.find(name);
  if (it == reg.end()) {
    std::cerr << "nncosim testbench: unknown testbench '" << name << "' (see --list)\n";
    return kExitUsage;
  }
  testbench::TestbenchOptions opt;
  opt.seed = seed;
  opt.iterations = ci && iterations == 0 ? it->second.ciIterations : iterations;
  opt.wavesPath = waves;
  opt.verbose = verbose;
  const auto r = it->second.run(opt);
  std::cout << (r.passed ? "PASS " : "FAIL ") << name << " seed=" << r.seed
            << " iterations=" << r.iterations << " cycles=" << r.cycles
            << " mismatches=" << r.mismatches << ": " << r.summary << "\n";
  return r.passed ? kExitOk : kExitFailure;
#endif
}

}  // namespace nncosim::cli
