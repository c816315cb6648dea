#include "driver/runtime/npu_device.h"

namespace nncosim::driver {

JobStats& JobStats::operator+=(const JobStats& o) {
  cycles += o.cycles;
  jobs += o.jobs;
  InterpreterCounters& a = counters;
  const InterpreterCounters& b = o.counters;
  a.cycles += b.cycles;
  a.loadBusy += b.loadBusy;
  a.loadStall += b.loadStall;
  a.computeBusy += b.computeBusy;
  a.computeStall += b.computeStall;
  a.storeBusy += b.storeBusy;
  a.storeStall += b.storeStall;
  a.densifyBusy += b.densifyBusy;
  a.arrayBeats += b.arrayBeats;
  a.dwconvBusy += b.dwconvBusy;
  a.idleDwconv += b.idleDwconv;
  a.idleBeforeGemm += b.idleBeforeGemm;
  a.dmaReadBytes += b.dmaReadBytes;
  a.dmaWriteBytes += b.dmaWriteBytes;
  a.macs += b.macs;
  a.commands += b.commands;
  return *this;
}

}  // namespace nncosim::driver
