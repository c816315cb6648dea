// nncosim: the command-line front end. `nncosim <command> --help` documents each command.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/commands.h"

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*fn)(const nncosim::cli::Args&);
};

constexpr Command kCommands[] = {
    {"run", "execute a model (default: the embedded demo network) and report cycles",
     nncosim::cli::cmdRun},
    {"validate", "validate model and conformance vector files", nncosim::cli::cmdValidate},
    {"import", "convert a TFLite model to the nncosim model format (weights in a pool)",
     nncosim::cli::cmdImport},
    {"info", "describe a model: operands, operations, MACs, weight bytes", nncosim::cli::cmdInfo},
    {"capabilities",
     "the driver's measured capabilities; with a model, where each operation runs and why",
     nncosim::cli::cmdCapabilities},
    {"conformance", "run NNAPI conformance vectors and judge them", nncosim::cli::cmdConformance},
    {"disasm", "print a binary command stream readably", nncosim::cli::cmdDisasm},
    {"difftest", "random layers on the NPU and the reference, compared bit for bit",
     nncosim::cli::cmdDifftest},
    {"testbench", "run a cosim testbench of an RTL block or the NPU", nncosim::cli::cmdTestbench},
};

void usage(FILE* f) {
  std::fprintf(f,
               "usage: nncosim <command> [options]\n\n"
               "commands:\n");
  for (const auto& c : kCommands) std::fprintf(f, "  %-12s %s\n", c.name, c.summary);
  std::fprintf(f,
               "\n`nncosim <command> --help` for a command's options.\n"
               "exit codes: 0 success, 1 failure (invalid input, failed tests, mismatches), 2 "
               "usage error\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return nncosim::cli::kExitUsage;
  }
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    usage(stdout);
    return nncosim::cli::kExitOk;
  }
  if (cmd == "--version") {
    std::printf("nncosim 0.1.0\n");
    return nncosim::cli::kExitOk;
  }
  for (const auto& c : kCommands)
    if (cmd == c.name) return c.fn(nncosim::cli::Args(argv + 2, argv + argc));
  std::fprintf(stderr, "nncosim: unknown command '%s'\n\n", cmd.c_str());
  usage(stderr);
  return nncosim::cli::kExitUsage;
}
