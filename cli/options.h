// Shared Boost.Program_options plumbing for the subcommands.
#pragma once

#include <iostream>
#include <string>

#include <boost/program_options.hpp>

#include "cli/commands.h"

namespace nncosim::cli {

namespace po = boost::program_options;

// Parses `args`; on --help prints usage and sets *exit to 0, on error prints it and
// sets *exit to 2. Returns true when the command should run.
inline bool parseOptions(const Args& args, const std::string& usageLine,
                         po::options_description& desc,
                         const po::positional_options_description& pos, po::variables_map& vm,
                         int* exit) {
  desc.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "nncosim: " << e.what() << "\n\nusage: " << usageLine << "\n" << desc;
    *exit = kExitUsage;
    return false;
  }
  if (vm.count("help")) {
    std::cout << "usage: " << usageLine << "\n\n" << desc;
    *exit = kExitOk;
    return false;
  }
  return true;
}

}  // namespace nncosim::cli
