// A POOL command's window (ISA 1.8): FH = fh + 15*fh_hi rows and FW = fw + 15*fw_hi columns,
// 1..240 each. The four-bit fields keep ISA 1.7's meaning with the high fields 0; fifteens
// (not sixteens) let fh stay 1..15, so every size has one encoding and no field needs a new
// rule. The driver, the ISA interpreter and the testbenches read and write windows here.
#pragma once

#include <cstdint>

#include "firmware/isa_generated.h"

namespace nncosim::firmware {

// The largest window ISA 1.7's fields alone hold, and ISA 1.8's with the high fields.
inline constexpr uint32_t kPoolFieldMax = 15;
inline constexpr uint32_t kPoolWindowMax = kPoolFieldMax + kPoolFieldMax * kPoolFieldMax;  // 240

inline uint32_t poolRows(const Pool& p) { return p.fh + kPoolFieldMax * p.fhHi; }
inline uint32_t poolCols(const Pool& p) { return p.fw + kPoolFieldMax * p.fwHi; }

// Sets the window of p to rows x cols (each 1..kPoolWindowMax).
inline void setPoolWindow(Pool& p, uint32_t rows, uint32_t cols) {
  p.fh = (rows - 1) % kPoolFieldMax + 1;
  p.fhHi = (rows - p.fh) / kPoolFieldMax;
  p.fw = (cols - 1) % kPoolFieldMax + 1;
  p.fwHi = (cols - p.fw) / kPoolFieldMax;
}

}  // namespace nncosim::firmware
