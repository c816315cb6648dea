// nncosim validate FILE...: structural and per-operation validation of model files
// and of every test model in conformance vector files.
#include <iostream>

#include "cli/commands.h"
#include "frontend/model_source.h"
#include "cli/options.h"
#include "hal/validation.h"
#include "hal/vector_file.h"
#include "ops/executor.h"

namespace nncosim::cli {

int cmdValidate(const Args& args) {
  po::options_description desc("validate options");
  std::vector<std::string> files;
  bool structuralOnly = false;
  desc.add_options()("files", po::value(&files)->multitoken(), "model or vector files")(
      "structural", po::bool_switch(&structuralOnly),
      "only the structural (hal) checks, not the operations' signature checks")(
      "expect-failures",
      "treat expectFailure vector tests as valid when they are rejected (default)");
  po::positional_options_description pos;
  pos.add("files", -1);
  po::variables_map vm;
  int exit = 0;
  if (!parseOptions(args, "nncosim validate FILE|DIR... [--structural]", desc, pos, vm, &exit))
    return exit;
  if (files.empty()) {
    std::cerr << "nncosim validate: no files given\n";
    return kExitUsage;
  }
  // Folders expand to every .json file below them.
  std::vector<std::string> expanded;
  for (const auto& f : files)
    for (auto& e : hal::listVectorFiles(f)) expanded.push_back(std::move(e));
  files = std::move(expanded);
  size_t models = 0, invalid = 0, expectedRejected = 0, expectedAccepted = 0, unreadable = 0;
  for (const auto& f : files) {
    auto loaded = frontend::loadModels(f, frontend::ModelCheck::None);
    if (!loaded) {
      std::cerr << loaded.error() << "\n";
      ++unreadable;
      continue;
    }
    for (const auto& m : *loaded) {
      ++models;
      std::vector<std::string> errors;
      for (const auto& issue : hal::validateModel(m.model)) errors.push_back(issue.str());
      if (errors.empty() && !structuralOnly) {
        if (auto op = ops::firstUnsupportedOperation(m.model)) {
          // Signature checks need the operation; say so rather than pass it silently.
          if (!m.expectFailure)
            std::cerr << m.name << ": note: " << hal::toString(*op)
                      << " is not implemented; its signature was not checked\n";
        } else if (auto st = ops::validateOperations(m.model); !st.ok()) {
          errors.push_back(st.error());
        }
      }
      if (m.expectFailure) {
        // Conformance tests that a runtime must reject: report whether validation does.
        if (errors.empty())
          ++expectedAccepted;
        else
          ++expectedRejected;
        continue;
      }
      if (!errors.empty()) {
        ++invalid;
        for (const auto& e : errors) std::cerr << m.name << ": " << e << "\n";
      }
    }
  }
  std::cout << models << " models in " << files.size()
            << " files: " << models - invalid - expectedRejected - expectedAccepted << " valid, "
            << invalid << " invalid";
  if (expectedRejected + expectedAccepted)
    std::cout << "; expectFailure models: " << expectedRejected << " rejected by validation, "
              << expectedAccepted << " left to execution";
  if (unreadable) std::cout << "; " << unreadable << " unreadable files";
  std::cout << "\n";
  return invalid || unreadable ? kExitFailure : kExitOk;
}

}  // namespace nncosim::cli
