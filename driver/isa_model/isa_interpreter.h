// IsaInterpreter: a functional and roughly timed model of the NPU command-stream ISA
// (docs/isa.md), executing streams on a byte-array DRAM and the five on-chip buffers.
//
// Why it exists: the compiler's streams can be checked bit for bit against the software
// reference before the RTL NPU and the SoC exist, and later it is the oracle that tells a
// compiler bug from an RTL bug.
//
// What it models, as docs/isa.md defines it:
//  - every command is checked with the generated decoder rules first (bad_field);
//  - the dispatcher hands commands in stream order to three in-order queues (load,
//    compute, store) of NpuConfig::queueDepth entries; END waits for all three to drain;
//  - the four dependency-token counters; a command pops before it starts and pushes
//    when it has completed (a push beyond 255 outstanding tokens is a stream error: the
//    8-bit counters cannot hold it);
//  - DMA_LOAD / DMA_STORE (3-D strides, byte granular), GEMM (int8/int16, zero points,
//    accumulate, wrapping int32 ACC or int64 with acc64), REQUANT_STORE (ops/quant fixed
//    point, the 64-bit 16x8 form with acc64, clamp, saturation), DENSIFY (the densify unit's
//    descriptor, walked by ops' DensifyWalker), SYNC and END; footprint checks (dma_oob) before
//    anything moves; DRAM accesses outside the DRAM model fail with bus_error. A command's checks
//    run when its queue issues it, before its copy and its timing, in time and memory bounded by
//    its fields (a DMA's rows by firstRowOutsideDram, never row by row).
//
// Beyond the hardware it checks the stream's discipline: a data race (two queues touching
// overlapping bytes, one of them writing, with no chain of tokens ordering them) is
// reported, as are tokens left in the counters when a job ends (they would leak into the
// next job). Durations come from a cost model calibrated against the RTL (CostModel below):
// close to the SoC's cycles, exact for nothing.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "driver/isa_model/npu_config.h"
#include "firmware/isa_generated.h"
#include "hal/result.h"

namespace nncosim::driver {

// Device DRAM as a byte array at a bus address. Backing memory grows on first touch (a
// large simulated DRAM costs nothing until used); untouched bytes read as zero.
class DramModel {
 public:
  DramModel(uint64_t base, uint64_t bytes) : base_(base), size_(bytes) {}
  uint64_t base() const { return base_; }
  uint64_t size() const { return size_; }
  bool contains(uint64_t address, uint64_t length) const {
    return address >= base_ && length <= size_ && address - base_ <= size_ - length;
  }
  // Bounds-checked copies; errors name the address range.
  hal::Status write(uint64_t address, const void* data, size_t length);
  hal::Status read(uint64_t address, void* data, size_t length) const;
  // [address, address + length) must be inside (contains()).
  uint8_t* at(uint64_t address, uint64_t length = 1) const {
    const uint64_t end = address - base_ + length;
    if (end > bytes_.size())
      bytes_.resize(std::max<uint64_t>(end, std::min(size_, 2 * bytes_.size())));
    return bytes_.data() + (address - base_);
  }

 private:
  uint64_t base_;
  uint64_t size_;
  mutable std::vector<uint8_t> bytes_;
};

// The timing model, calibrated against the RTL on the simulated SoC with its default DRAM
// (tests/bench/npu_calibrate prints both side by side). Cycle counts are the NPU clock's.
// The depths (`fetchDepth`, `queueDepth`, `dmaBursts`, `gemmTiles`, `densifyBeats`) are the
// hardware's, in NpuConfig; the latencies below are measured.
//  - Fetch: the command processor keeps `fetchDepth` ring slots requested or waiting for
//    dispatch; each arrives `fetchLatency` cycles after its request (one request per cycle),
//    or once its data has its turn on the bus: with `fetchFirst` (the SoC honours ARQOS)
//    as soon as it is ready, interrupting a load burst; else after the data of every DMA
//    read burst requested before it (DRAM answering reads in request order, where long
//    DMA_LOAD bursts can starve the dispatcher).
//  - Queues hold `queueDepth` commands each, issued or not, until they complete; the
//    dispatcher stops at a full queue (in stream order).
//  - DMA_LOAD / DMA_STORE: one command per engine at a time; each row is split into bursts
//    of whole bus beats (<= 256 beats), `dmaBursts` in flight per engine; a read burst's
//    first beat comes `dramLatency` cycles after its address, a write burst's response as
//    long after its last beat. Reads go one burst at a time (fetches first, as above);
//    read and write data share the bus (`busBytesPerCycle`), half each while both flow.
//  - GEMM: k beats at one per cycle from `gemmIssue` after acceptance; the next GEMM is
//    accepted after the last beat, but its own last beat comes at least `gemmSpacing`
//    (max(R, C)) cycles after the previous one's; results are in ACC (the command
//    completes) `gemmDrain` cycles after the last beat; at most `gemmTiles` in flight.
//    A window GEMM's beats come from the window fetch (`windowRead`, `windowFill`: per
//    block of m vector reads, vec beats); a window GEMM behind one is accepted once the
//    reads of the one ahead are issued and the one before that has streamed.
//  - ELTWISE, POOL and DENSIFY start only once every earlier compute command completed, and
//    nothing overlaps them.
//  - REQUANT_STORE (ISA 1.10) is accepted after the REQUANT_STORE ahead of it completed, with
//    tiles in flight: it reads its parameters (`requantParam` cycles), then its rows once
//    the tiles ahead of it are in ACC, taking rows (or half of them, see requantOverhead) +
//    `requantOverhead` cycles in all. The tiles behind it are accepted meanwhile unless they
//    write the ACC rows it reads or read the INP bytes it writes (to_inp); they wait for
//    its completion then. Completions stay in command order.
//    DENSIFY's duration follows its descriptor (array lengths, positions per level, stored
//    values; the `densify*` fields); without DRAM contents (estimate()) it is the fill alone.
//  - SYNC completes as it issues, once its queue has nothing in flight; END waits for all.
// Timing never depends on data (DENSIFY's metadata aside, a constant of the model), and on
// DRAM addresses only through their offset in a 4 KiB page (bus beats, and bursts split
// at page boundaries), so the estimate of a step in its step-local address space equals
// its cycles wherever it is relocated (its buffers page-aligned, kDeviceAlignment).
struct CostModel {
  uint32_t dramLatency = 41;  // read: address -> first beat; write: last beat -> response
  // DRAM bandwidth, reads and writes sharing it: the SoC's default, a bus beat per cycle.
  uint32_t busBytesPerCycle = firmware::kAxiDataBytes;
  uint32_t dmaSetup = 3;  // command accepted -> first burst address
  uint32_t dmaDone = 2;   // last beat / response -> command complete
  // DMA_LOAD with fill (no bus): accepted -> done is this plus one cycle per beat (rows
  // walked from a beat boundary, ceil(row bytes / bus bytes) beats each).
  uint32_t fillOverhead = 4;
  uint32_t fetchLatency = 45;   // ring slot requested -> command at the dispatcher
  uint32_t fetchAfterData = 4;  // a fetch queued behind DMA read data: cycles after it
  // The SoC answers reads by ARQOS (SocConfig::dramReadQos): a ready command fetch goes
  // before the DMA read bursts requested earlier, from the next beat.
  bool fetchFirst = true;
  uint32_t endCycles = 6;  // END dispatched -> job done
  uint32_t gemmIssue = 1;  // GEMM accepted -> first beat
  // Min cycles between consecutive GEMMs' last beats: the MAC array's max(R, C).
  uint32_t gemmSpacing = std::max(firmware::kArrayRows, firmware::kArrayCols);
  uint32_t gemmDrain = 35;  // last beat -> results in ACC
  // Window GEMMs (ISA 1.5): the fetch reads a block's m pixel vectors one per cycle (two, since
  // ISA 1.10, when lane_stride + vec * element bytes <= 2R: ceil(m / 2) reads) from
  // `windowRead` after acceptance (or after the previous window's reads), a block's beats
  // issue from `windowFill` after its last read, one per cycle, in order; a block's first
  // read waits for the bank of the block two before it.
  uint32_t windowRead = 1;
  uint32_t windowFill = 2;
  // DWCONV (ISA 1.6, the depthwise unit): a filter row's span is read an INP line (8R bytes,
  // 8R/C vectors, since ISA 1.11) per cycle from `dwRead` after acceptance (or after the
  // previous row's reads, into the next of three line buffers once its taps have run); its fw
  // taps run one per cycle from `dwFill` after its last read; the sums close `dwClose` after
  // the last tap and drain two rows per cycle (ISA 1.11), in ACC `dwDone` after the last
  // pair; the next DWCONV is accepted `dwAccept` after the reads. Beside a GEMM stream
  // (ISA 1.14) its reads take the INP cycles the stream's leave (a window GEMM's block
  // reads over its vec beats; none while a k-major GEMM streams), its drain follows the
  // tile ahead of it, a GEMM's drain follows it (the array waits), and each weight vector
  // it does not keep (a new wgt_addr, or a WGT load over them) holds the stream a cycle.
  uint32_t dwRead = 1;
  uint32_t dwFill = 2;
  uint32_t dwClose = 2;
  uint32_t dwDone = 2;
  uint32_t dwAccept = 0;
  // REQUANT_STORE: rows + this (int64 rows, 32-bit outputs), ceil(rows / 2) + this with
  // int32 rows and 8- or 16-bit outputs (two per cycle on the unit's 2C lanes).
  uint32_t requantOverhead = 13;
  uint32_t requantParam = 4;  // of which: accepted -> first ACC read (its PRM reads)
  // ELTWISE (ISA 1.7): ceil(count / C) beats + this (the parameter read, the operand read,
  // the unit's eight stages, the completion); nothing overlaps it.
  uint32_t eltwiseOverhead = 12;
  // POOL (ISA 1.7): m*fh*fw window values + this (the operand read, the unit's stages, the
  // completion); AVG first computes its reciprocal, 32 + ceil(log2(fh*fw)) cycles + the
  // next field. Nothing overlaps it.
  uint32_t poolOverhead = 7;
  uint32_t poolDivideOverhead = 1;
  // DENSIFY (rtl/nnc_densify.sv; Machine::densifyCycles has the model):
  uint32_t densifyRefill = 4;       // a prefetched beat's round trip beyond dramLatency
  uint32_t densifyFillBeat = 3;     // cycles per fill beat (aux write: AW, W, then the next)
  uint32_t densifyEnterDense = 2;   // walk: per parent position of a DENSE level
  uint32_t densifyEnterSparse = 4;  //       of a SPARSE_CSR level (its segment pair)
  uint32_t densifyPosition = 2;     //       per position of any level (step, place)
  uint32_t densifyValue = 1;        //       per stored value (its write)
  uint32_t densifyIndexRun = 8;     //       a cycle lost per this many sparse positions
  uint32_t densifyOverhead = 16;    // start, checks, level bookkeeping, completion
};

struct InterpreterCounters {
  uint64_t cycles = 0;
  uint64_t loadBusy = 0, loadStall = 0, computeBusy = 0, computeStall = 0, storeBusy = 0,
           storeStall = 0, densifyBusy = 0;
  uint64_t dmaReadBytes = 0, dmaWriteBytes = 0, macs = 0;
  uint64_t commands = 0;
  // The MAC array's timeline (the model's beats; the SoC's counters leave these 0): cycles
  // with a GEMM beat, cycles a DWCONV runs, and the array's idle cycles while a DWCONV runs
  // (no GEMM beat beside it, ISA 1.14) and, with no DWCONV running, before the job's first
  // beat (its first loads and fills; 0 in a job without GEMMs).
  uint64_t arrayBeats = 0, dwconvBusy = 0, idleDwconv = 0, idleBeforeGemm = 0;
  std::string describe() const;
};

struct InterpreterResult {
  bool completed = false;  // every END reached without error
  firmware::ErrCode error = firmware::ErrCode::kNone;
  uint32_t errInfo = 0;
  size_t errCommand = 0;  // stream index of the faulting command
  std::string message;    // empty when completed
  InterpreterCounters counters;
  std::vector<std::string> races;       // unordered conflicting accesses (stream bugs)
  std::vector<std::string> tokenLeaks;  // counters non-zero at an END, or over 255
  // estimate() with a cycle limit stopped at it: the stream takes at least counters.cycles
  // (the limit) cycles; completed is false.
  bool overLimit = false;
  bool clean() const { return completed && races.empty() && tokenLeaks.empty(); }
  std::string describe() const;
};

class IsaInterpreter {
 public:
  IsaInterpreter(const NpuConfig& config, DramModel& dram, const CostModel& cost = {});

  // Runs the stream to its end (the last command should be END). The on-chip buffers
  // keep their contents between calls, like the hardware's SRAMs.
  InterpreterResult run(const std::vector<firmware::Command>& commands);

  // The cycle estimate alone: dispatch, queues, tokens and durations, without moving any
  // data (no DRAM needed, no race checks). For the compiler's plan choices, which discard
  // a candidate of `cycleLimit` cycles or more: the estimate stops once it reaches them
  // (overLimit), so a hopeless candidate costs no more than the best one so far.
  static constexpr uint64_t kNoLimit = ~uint64_t{0};
  static InterpreterResult estimate(const NpuConfig& config,
                                    const std::vector<firmware::Command>& commands,
                                    const CostModel& cost = {}, uint64_t cycleLimit = kNoLimit);
  // Estimates answered from the cache of earlier ones (a stream estimated again with the
  // same configuration, cost model and limit), in this process.
  static uint64_t estimateCacheHits();

  // Direct buffer access for tests.
  std::vector<uint8_t>& buffer(firmware::Buffer b) { return buffers_[static_cast<size_t>(b)]; }

 private:
  NpuConfig config_;
  DramModel& dram_;
  CostModel cost_;
  std::array<std::vector<uint8_t>, 5> buffers_;
};

}  // namespace nncosim::driver
