// StepStream: builds a command stream from "steps" and sets every dependency token, so
// that the tiling code only says what each step loads, computes and stores.
//
// A step owns buffer slot s mod D of every double-buffered region (D = bufferSlots): its
// loads fill that slot, its computes read it. An output event owns OUT slot e mod Do.
// The protocol (docs/isa.md "Queues and dependency tokens"; docs/driver.md draws it):
//
//   load queue     step s: first load pops compute->load (s >= D: slot free again),
//                          last load pushes load->compute (slot full)
//   compute queue  step s: first command pops load->compute; last command pushes
//                          compute->load (s + D < steps: someone will wait for it)
//                  event e: first REQUANT pops store->compute (e >= Do: OUT slot free),
//                          last REQUANT pushes compute->store
//   store queue    event e: first store pops compute->store, last store pushes
//                          store->compute (e + Do < events)
//
// A step without loads or computes gets a SYNC carrying its flags, so every push has
// exactly one pop and a job ends with all counters at zero (tokens never leak into the
// next job). Commands are emitted software-pipelined: the loads of step s + D - 1 are
// interleaved one for one with the computes of step s, so a shallow queue never keeps the
// dispatcher from feeding the other queues; every pop's matching push precedes it in the
// stream, which makes the stream deadlock-free for any queue depth.
#pragma once

#include <cstdint>
#include <vector>

#include "firmware/isa_generated.h"

namespace nncosim::driver {

class StepStream {
 public:
  StepStream(uint32_t bufferSlots, uint32_t outSlots, bool lateLoads = false)
      : slots_(bufferSlots ? bufferSlots : 1),
        outSlots_(outSlots ? outSlots : 1),
        lateLoads_(lateLoads) {}

  uint32_t slots() const { return slots_; }
  uint32_t outSlots() const { return outSlots_; }
  // Slots of the step / event about to be opened.
  uint32_t nextStepSlot() const { return static_cast<uint32_t>(steps_.size() % slots_); }
  uint32_t nextOutSlot() const { return static_cast<uint32_t>(events_ % outSlots_); }

  // Opens a step; the calls below add to it until the next beginStep.
  void beginStep();
  void load(const firmware::DmaLoad& d);
  void compute(const firmware::Command& c);  // GEMM (or DENSIFY)
  // An output event of the current step: REQUANTs then the stores of their rows. Each
  // REQUANT takes its place among the step's computes where it is added (after the computes
  // added before it), so a REQUANT_STORE can follow the GEMMs of its own rows and run beside
  // the next ones (ISA 1.10); the event's first REQUANT pops its OUT slot, its last pushes it.
  void beginOutput();
  void requant(const firmware::RequantStore& r);
  // Any command that writes the event's OUT slot (ELTWISE): flagged as its REQUANTs are.
  void requant(const firmware::Command& c);
  void store(const firmware::DmaStore& s);

  size_t stepCount() const { return steps_.size(); }
  // An upper bound of finish()'s length: the commands so far, a SYNC per queue and step
  // and per output, and the END.
  size_t commandBound() const { return bound_ + 1; }
  // The whole stream, ending with END(tag).
  std::vector<firmware::Command> finish(uint32_t tag) const;

 private:
  struct Output {
    size_t at = 0;              // the step's computes before the event (its SYNC's place)
    std::vector<size_t> after;  // per REQUANT: the step's computes before it
    std::vector<firmware::Command> requants;
    std::vector<firmware::DmaStore> stores;
  };
  struct Step {
    std::vector<firmware::DmaLoad> loads;
    std::vector<firmware::Command> computes;
    std::vector<Output> outputs;
  };
  uint32_t slots_, outSlots_;
  bool lateLoads_ = false;
  std::vector<Step> steps_;
  uint32_t events_ = 0;
  size_t bound_ = 0;
};

}  // namespace nncosim::driver
