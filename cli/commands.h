// The nncosim subcommands. Each takes the arguments after its name and returns the
// process exit code: 0 success, 1 failure (invalid input, failed tests, mismatches),
// 2 usage error.
#pragma once

#include <string>
#include <vector>

namespace nncosim::cli {

using Args = std::vector<std::string>;

int cmdValidate(const Args& args);
int cmdInfo(const Args& args);
int cmdConformance(const Args& args);
int cmdRun(const Args& args);
int cmdTestbench(const Args& args);
int cmdDisasm(const Args& args);
int cmdDifftest(const Args& args);
int cmdImport(const Args& args);
int cmdCapabilities(const Args& args);

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

}  // namespace nncosim::cli
