#include "driver/compiler/unit_step_stream.h"

#include "driver/isa_model/isa_interpreter.h"

namespace nncosim::driver::internal {
namespace {

uint64_t bytesOf(uint32_t c0, uint32_t c1, uint32_t c2, firmware::ElemWidth w) {
  return uint64_t{c0} * c1 * c2 *
         (w == firmware::ElemWidth::kW8    ? 1
          : w == firmware::ElemWidth::kW16 ? 2
                                           : 4);
}

}  // namespace

void UnitStepStream::endJob() {
  const std::vector<firmware::Command> job = ss_.finish(options_.tag);
  commands_.insert(commands_.end(), job.begin(), job.end());
  ++jobs_;
  ss_ = StepStream(2, 2);
  jobOpen_ = false;
}

UnitStepStream::Chunk UnitStepStream::beginChunk(uint32_t commands) {
  if (jobOpen_ && options_.maxJobCommands &&
      ss_.commandBound() + commands > options_.maxJobCommands)
    endJob();
  Chunk c;
  c.firstOfJob = !jobOpen_;
  jobOpen_ = true;
  c.slot = ss_.nextStepSlot();
  ss_.beginStep();
  c.outSlot = ss_.nextOutSlot();
  ++steps_;
  return c;
}

void UnitStepStream::load(const firmware::DmaLoad& d) {
  ss_.load(d);
  ++dmaLoads_;
  if (!d.fill) loadBytes_ += bytesOf(d.count0, d.count1, d.count2, d.elemWidth);
}

void UnitStepStream::output(const std::vector<firmware::Command>& unitCommands,
                            const std::vector<firmware::DmaStore>& stores) {
  ss_.beginOutput();
  for (const firmware::Command& c : unitCommands) ss_.requant(c);
  for (const firmware::DmaStore& s : stores) {
    ss_.store(s);
    ++dmaStores_;
    storeBytes_ += bytesOf(s.count0, s.count1, s.count2, s.elemWidth);
  }
}

hal::Status UnitStepStream::finish(CompiledStep& step, const char* what) {
  if (jobOpen_) endJob();
  step.commands = std::move(commands_);
  StepReport& rep = step.report;
  rep.weightMode = "-";
  rep.bufferSlots = 2;
  rep.outSlots = 2;
  rep.steps = steps_;
  rep.dmaLoads = dmaLoads_;
  rep.dmaStores = dmaStores_;
  rep.loadBytes = loadBytes_;
  rep.storeBytes = storeBytes_;
  rep.commands = step.commands.size();
  rep.jobs = jobs_;
  rep.estimatedCycles = 0;
  for (const std::vector<firmware::Command>& job : splitJobs(step.commands)) {
    const InterpreterResult est = IsaInterpreter::estimate(options_.npu, job, options_.cost);
    if (!est.completed) return hal::fail(what, " plan estimate failed: ", est.describe());
    rep.estimatedCycles += est.counters.cycles;
  }
  return hal::Status::Ok();
}

}  // namespace nncosim::driver::internal
