// The command stream of a step that runs one unit command per chunk of its tensor (ELTWISE,
// POOL): per chunk a StepStream step (its loads into buffer slot s mod 2) and one output
// event (the commands writing OUT slot e mod 2, then the stores of their results), cut into
// jobs that fit LoweringOptions::maxJobCommands. finish() writes the commands, the report's
// stream fields (slots, steps, jobs, DMA tallies) and the ISA interpreter's estimate into
// the step.
#pragma once

#include <cstdint>
#include <vector>

#include "driver/compiler/compiled_step.h"
#include "driver/compiler/lowering.h"
#include "driver/compiler/stream_builder.h"

namespace nncosim::driver::internal {

class UnitStepStream {
 public:
  explicit UnitStepStream(const LoweringOptions& options) : options_(options) {}

  struct Chunk {
    bool firstOfJob = false;  // its loads must bring what every job needs (a PRM record)
    uint32_t slot = 0;        // the step's INP / WGT slot
    uint32_t outSlot = 0;     // the OUT slot its command writes
  };
  // Opens the next chunk (a new job first when this one is full): it may add up to
  // `commands` commands (loads, the unit's commands, stores, SYNCs).
  Chunk beginChunk(uint32_t commands = 16);
  void load(const firmware::DmaLoad& d);
  // The chunk's unit commands and the stores of what they wrote.
  void output(const std::vector<firmware::Command>& unitCommands,
              const std::vector<firmware::DmaStore>& stores);
  hal::Status finish(CompiledStep& step, const char* what);

 private:
  void endJob();

  const LoweringOptions& options_;
  StepStream ss_{2, 2};
  std::vector<firmware::Command> commands_;
  bool jobOpen_ = false;
  uint32_t jobs_ = 0, steps_ = 0;
  uint64_t dmaLoads_ = 0, dmaStores_ = 0, loadBytes_ = 0, storeBytes_ = 0;
};

}  // namespace nncosim::driver::internal
