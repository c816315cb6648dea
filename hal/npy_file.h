// NumPy .npy files (format 1.0/2.0/3.0) as model inputs and outputs: `nncosim run
// --inputs a.npy,b.npy` and `--outputs-dir`.
//
//   \x93NUMPY | major minor | header length (uint16 LE; uint32 from 2.0) | header dict | data
//   header: {'descr': '<i2', 'fortran_order': False, 'shape': (1, 96, 96, 1), }
//
// The reader checks the magic, version, header syntax, dtype and shape against the
// operand it feeds and names what differs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hal/operand.h"
#include "hal/result.h"

namespace nncosim::hal {

struct NpyArray {
  std::string descr;  // '<i2', '|i1', '<f4', ...
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;  // raw little-endian values in C order
};

// Parses .npy bytes; `name` prefixes errors.
Result<NpyArray> parseNpy(const std::vector<uint8_t>& bytes, const std::string& name);
Result<NpyArray> readNpy(const std::string& path);

// The dtype an operand type is stored as ('|i1' for TENSOR_QUANT8_ASYMM_SIGNED, ...);
// empty when the type has none.
std::string npyDescr(OperandType type);

// Checks dtype and shape against `operand` (dimensions of 0 match any size; a scalar
// array matches a one-element tensor) and returns the data bytes.
Result<std::vector<uint8_t>> npyDataFor(const NpyArray& a, const Operand& operand,
                                        const std::string& name);

// Writes `data` as a version 1.0 .npy file of the operand type's dtype and `dims`.
Status writeNpy(const std::string& path, OperandType type, const std::vector<uint32_t>& dims,
                const std::vector<uint8_t>& data);

}  // namespace nncosim::hal
