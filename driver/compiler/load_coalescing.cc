#include "driver/compiler/load_coalescing.h"

#include <cstdint>

namespace nncosim::driver {
namespace {

uint64_t elemBytes(firmware::ElemWidth w) {
  return w == firmware::ElemWidth::kW8 ? 1 : w == firmware::ElemWidth::kW16 ? 2 : 4;
}

// Same shape apart from the rows: buffer, width, fill, row length and planes.
bool samePlanes(const firmware::DmaLoad& a, const firmware::DmaLoad& b) {
  return a.bufId == b.bufId && a.elemWidth == b.elemWidth && a.fill == b.fill &&
         (!a.fill || a.fillValue == b.fillValue) && a.count0 == b.count0 && a.count2 == b.count2 &&
         a.bufStride2 == b.bufStride2 &&
         (a.fill || a.count2 == 1 || a.dramStride2 == b.dramStride2);
}

// A load's planes, count2 rows of rowBytes at bufStride2, fit in `step` buffer bytes
// without overlapping: rows `step` apart then never overlap either.
bool planesFit(const firmware::DmaLoad& a, uint64_t step) {
  const uint64_t row = uint64_t{a.count0} * elemBytes(a.elemWidth);
  if (a.count2 > 1 && row > a.bufStride2) return false;
  return uint64_t{a.count2 - 1} * a.bufStride2 + row <= step;
}

// Same shape apart from the planes: buffer, width, fill, row length and rows.
bool sameRows(const firmware::DmaLoad& a, const firmware::DmaLoad& b) {
  return a.bufId == b.bufId && a.elemWidth == b.elemWidth && a.fill == b.fill &&
         (!a.fill || a.fillValue == b.fillValue) && a.count0 == b.count0 && a.count1 == b.count1 &&
         a.bufStride1 == b.bufStride1 && (a.fill || a.dramStride1 == b.dramStride1);
}

constexpr uint64_t kMaxBufStride = (uint64_t{1} << firmware::kBufAddrBits) - 1;

// Merges `d`, one plane of several rows, into `b` as its next plane (count2): the rows of a
// row tile's filter window, the next row tile's a few pixels on (a few-channel image's
// windows, whose DRAM rows overlap but whose INP pieces do not). False: not mergeable.
bool mergePlane(firmware::DmaLoad& b, const firmware::DmaLoad& d) {
  constexpr uint64_t kMaxPlanes = 0xFFF;  // count2's 12 bits
  if (d.count2 != 1 || d.count1 < 2 || !sameRows(b, d) || b.count2 >= kMaxPlanes ||
      d.bufAddr <= b.bufAddr)
    return false;
  const uint64_t plane =
      uint64_t{b.count1 - 1} * b.bufStride1 + uint64_t{b.count0} * elemBytes(b.elemWidth);
  if (b.count1 > 1 && uint64_t{b.count0} * elemBytes(b.elemWidth) > b.bufStride1) return false;
  if (b.count2 == 1) {
    const uint64_t bufStep = d.bufAddr - b.bufAddr;
    if (bufStep > kMaxBufStride || plane > bufStep) return false;
    b.count2 = 2;
    b.bufStride2 = static_cast<uint32_t>(bufStep);
    b.dramStride2 = b.fill ? 0 : d.dramAddr - b.dramAddr;  // wraps as the field does
    return true;
  }
  // A merged run: d must be its next plane.
  if (uint64_t{b.bufAddr} + uint64_t{b.count2} * b.bufStride2 != d.bufAddr) return false;
  if (!b.fill && static_cast<uint32_t>(b.dramAddr + b.count2 * b.dramStride2) != d.dramAddr)
    return false;
  ++b.count2;
  return true;
}

}  // namespace

void appendCoalesced(std::vector<firmware::DmaLoad>& out, const firmware::DmaLoad& d) {
  constexpr uint64_t kMaxRows = 0xFFFF;  // count1's 16 bits
  if (!out.empty() && d.count0 != 0 && mergePlane(out.back(), d)) return;
  if (out.empty() || d.count1 != 1 || d.count2 == 0 || d.count0 == 0) {
    out.push_back(d);
    return;
  }
  firmware::DmaLoad& b = out.back();
  if (!samePlanes(b, d) || b.count1 >= kMaxRows || d.bufAddr <= b.bufAddr) {
    out.push_back(d);
    return;
  }
  if (b.count1 == 1) {
    const uint64_t bufStep = d.bufAddr - b.bufAddr;
    if (bufStep > kMaxBufStride || !planesFit(b, bufStep)) {
      out.push_back(d);
      return;
    }
    b.count1 = 2;
    b.bufStride1 = static_cast<uint32_t>(bufStep);
    b.dramStride1 = b.fill ? 0 : d.dramAddr - b.dramAddr;  // wraps as the field does
    return;
  }
  // A merged run: d must be its next row.
  const bool nextBuf = uint64_t{b.bufAddr} + uint64_t{b.count1} * b.bufStride1 == d.bufAddr;
  const bool nextDram =
      b.fill || static_cast<uint32_t>(b.dramAddr + b.count1 * b.dramStride1) == d.dramAddr;
  if (!nextBuf || !nextDram) {
    out.push_back(d);
    return;
  }
  ++b.count1;
}

}  // namespace nncosim::driver
