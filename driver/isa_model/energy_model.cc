#include "driver/isa_model/energy_model.h"

#include <sstream>
#include <variant>

namespace nncosim::driver {
namespace {

uint64_t elementBytes(firmware::ElemWidth w) { return uint64_t{1} << static_cast<uint32_t>(w); }

size_t index(firmware::Buffer b) { return static_cast<size_t>(b) < 5 ? static_cast<size_t>(b) : 0; }

}  // namespace

EnergyEvents& EnergyEvents::operator+=(const EnergyEvents& o) {
  macs8 += o.macs8;
  macs16 += o.macs16;
  for (size_t i = 0; i < sramRead.size(); ++i) {
    sramRead[i] += o.sramRead[i];
    sramWrite[i] += o.sramWrite[i];
  }
  dramBytes += o.dramBytes;
  densifyBytes += o.densifyBytes;
  commands += o.commands;
  cycles += o.cycles;
  hostDramBytes += o.hostDramBytes;
  return *this;
}

EnergyEvents streamEvents(const std::vector<firmware::Command>& stream) {
  using firmware::Buffer;
  EnergyEvents e;
  const auto inp = index(Buffer::kInp), wgt = index(Buffer::kWgt), acc = index(Buffer::kAcc),
             out = index(Buffer::kOut), prm = index(Buffer::kPrm);
  for (const firmware::Command& c : stream) {
    ++e.commands;
    if (const auto* d = std::get_if<firmware::DmaLoad>(&c.args)) {
      const uint64_t bytes =
          uint64_t{d->count0} * d->count1 * d->count2 * elementBytes(d->elemWidth);
      e.sramWrite[index(d->bufId)] += bytes;
      if (!d->fill) e.dramBytes += bytes;  // a fill writes on chip only
    } else if (const auto* d = std::get_if<firmware::DmaStore>(&c.args)) {
      const uint64_t bytes =
          uint64_t{d->count0} * d->count1 * d->count2 * elementBytes(d->elemWidth);
      e.sramRead[index(d->bufId)] += bytes;
      e.dramBytes += bytes;
    } else if (const auto* g = std::get_if<firmware::Gemm>(&c.args)) {
      const bool wide = g->mode == firmware::GemmMode::kInt16;
      const uint64_t products = uint64_t{g->m} * g->n * g->k;
      (wide ? e.macs16 : e.macs8) += products;
      e.sramRead[inp] += uint64_t{g->m} * g->k * (wide ? 2 : 1);
      e.sramRead[wgt] += uint64_t{g->n} * g->k * (wide && !g->wgt8 ? 2 : 1);
      const uint64_t accBytes = uint64_t{g->m} * g->n * (g->acc64 ? 8 : 4);
      if (g->accumulate) e.sramRead[acc] += accBytes;
      e.sramWrite[acc] += accBytes;
    } else if (const auto* w = std::get_if<firmware::Dwconv>(&c.args)) {
      const uint64_t span = uint64_t{w->m - 1} * w->sw + uint64_t{w->fw - 1} * w->dw + 1;
      e.macs8 += uint64_t{w->m} * w->n * w->fh * w->fw;
      e.sramRead[inp] += span * firmware::kArrayCols * w->fh;
      e.sramRead[wgt] += uint64_t{w->fh} * w->fw * firmware::kArrayCols;
      const uint64_t accBytes = uint64_t{w->m} * w->n * 4;
      if (w->accumulate) e.sramRead[acc] += accBytes;
      e.sramWrite[acc] += accBytes;
    } else if (const auto* q = std::get_if<firmware::RequantStore>(&c.args)) {
      const uint64_t cols = firmware::kArrayCols;
      e.sramRead[acc] += uint64_t{q->rows} * cols * (q->acc64 ? 8 : 4);
      // Bias (int32), multiplier (int32) and shift (int8) per column, read once per command.
      e.sramRead[prm] += (q->biasEn ? cols * 4 : 0) + (q->perChannel ? cols * 5 : 5);
      e.sramWrite[q->toInp ? inp : out] += uint64_t{q->rows} * cols * elementBytes(q->outWidth);
    } else if (const auto* d = std::get_if<firmware::Densify>(&c.args)) {
      // The dense output written, and about as much read (descriptor and stored values).
      e.densifyBytes += 2 * uint64_t{d->outSize};
    }
  }
  return e;
}

EnergyBreakdown EnergyModel::energy(const EnergyEvents& e) const {
  EnergyBreakdown b;
  b.mac = static_cast<double>(e.macs8) * macInt8Pj + static_cast<double>(e.macs16) * macInt16Pj;
  for (size_t i = 0; i < e.sramRead.size(); ++i)
    b.sram += static_cast<double>(e.sramRead[i] + e.sramWrite[i]) * sramPjPerByte[i];
  b.dram = static_cast<double>(e.dramBytes + e.densifyBytes) * dramPjPerByte;
  b.fetch = static_cast<double>(e.commands) * fetchPjPerCommand;
  b.cycles = static_cast<double>(e.cycles) * cyclePj;
  b.host = static_cast<double>(e.hostDramBytes) * dramPjPerByte;
  return b;
}

std::string EnergyModel::describe() const {
  std::ostringstream os;
  os << "energy model: MAC " << macInt8Pj << " pJ (int8), " << macInt16Pj << " pJ (int16); SRAM "
     << sramPjPerByte[0] << "/" << sramPjPerByte[2] << "/" << sramPjPerByte[4]
     << " pJ/B (INP,WGT/ACC,OUT/PRM); DRAM " << dramPjPerByte << " pJ/B; command fetch "
     << fetchPjPerCommand << " pJ; " << cyclePj << " pJ/cycle";
  return os.str();
}

}  // namespace nncosim::driver
