// nncosim disasm FILE: prints a binary command stream (32-byte little-endian commands,
// as they sit in the NPU's ring) one command per line; corrupt commands are reported
// with the decoder's reason and make the exit code 1.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>

#include "cli/commands.h"
#include "cli/options.h"
#include "firmware/isa_generated.h"

namespace nncosim::cli {

int cmdDisasm(const Args& args) {
  po::options_description desc("disasm options");
  std::string file;
  bool hex = false;
  desc.add_options()("file", po::value(&file), "binary command stream")(
      "hex", po::bool_switch(&hex), "also print each command's eight words");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  int exit = 0;
  if (!parseOptions(args, "nncosim disasm FILE [--hex]", desc, pos, vm, &exit)) return exit;
  if (file.empty()) {
    std::cerr << "nncosim disasm: no file given\n";
    return kExitUsage;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << file << ": cannot open\n";
    return kExitFailure;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  int bad = 0;
  const size_t n = bytes.size() / firmware::kCommandBytes;
  for (size_t i = 0; i < n; ++i) {
    firmware::CommandWords w{};
    for (int k = 0; k < firmware::kCommandWords; ++k)
      for (int b = 0; b < 4; ++b)
        w[k] |= static_cast<uint32_t>(bytes[i * firmware::kCommandBytes + k * 4 + b]) << (8 * b);
    std::cout << std::setw(5) << i << "  0x" << std::hex << std::setw(6) << std::setfill('0')
              << i * firmware::kCommandBytes << std::dec << std::setfill(' ') << "  ";
    if (hex) {
      for (uint32_t x : w) std::cout << std::hex << std::setw(8) << std::setfill('0') << x << ' ';
      std::cout << std::dec << std::setfill(' ') << " ";
    }
    auto c = firmware::decode(w);
    if (c.ok()) {
      std::cout << firmware::disassemble(*c) << "\n";
    } else {
      std::cout << "<corrupt: " << c.error() << ">\n";
      ++bad;
    }
  }
  if (bytes.size() % firmware::kCommandBytes) {
    std::cerr << file << ": " << bytes.size() % firmware::kCommandBytes << " trailing bytes after "
              << n << " commands (the stream is truncated)\n";
    ++bad;
  }
  if (bad) std::cerr << file << ": " << bad << " corrupt command(s)\n";
  return bad ? kExitFailure : kExitOk;
}

}  // namespace nncosim::cli
