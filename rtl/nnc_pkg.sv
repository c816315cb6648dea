// Shared constants and types of the NPU. Keep it small: one section per block, so
// blocks owned by different people can add their own section without touching others.
// Each block uses only some of these constants; Verilator would flag the rest as unused in
// every instance, which says nothing about the block being linted.
/* verilator lint_off UNUSEDPARAM */
package nnc_pkg;

  // --- Datapath widths (MAC array -> requant) ---------------------------------------------
  // Operands enter the PEs with the zero point already subtracted: an 8-bit or 16-bit value
  // (signed or unsigned) minus a 17-bit zero point needs 18 bits signed.
  localparam int unsigned OperandWidth = 18;
  // Accumulators: 48 bits hold >= 2^13 full-range 16-bit products (>= 2^30 8-bit ones).
  localparam int unsigned AccWidth     = 48;

  // --- Requant unit -------------------------------------------------------------------------
  // Element type of the requantized output: the unit saturates to this range.
  typedef enum logic [1:0] {
    OutU8  = 2'd0,
    OutI8  = 2'd1,
    OutI16 = 2'd2,
    OutI32 = 2'd3
  } out_type_e;

  // --- Densify unit -------------------------------------------------------------------------
  localparam int unsigned DensifyMaxRank = 8;   // levels, block levels included
  // Descriptor layout in 32-bit words (docs/rtl-datapath.md): a header, then one record per level.
  localparam int unsigned DensifyHdrWords   = 8;
  localparam int unsigned DensifyLevelWords = 8;

  // Element size code of the moved values (log2 of the byte count).
  typedef enum logic [1:0] {
    Elem8  = 2'd0,
    Elem16 = 2'd1,
    Elem32 = 2'd2
  } elem_size_e;

  // Result of a densify operation; anything but DensifyOk means the walk stopped early and
  // nothing outside [out_addr, out_addr + out_count * size) was written.
  typedef enum logic [3:0] {
    DensifyOk           = 4'd0,
    DensifyErrRank      = 4'd1,  // rank 0 or > 8, or block rank > rank
    DensifyErrElemSize  = 4'd2,  // element size code 3
    DensifyErrTraversal = 4'd3,  // traversal order not a permutation of 0..rank-1
    DensifyErrBlockMap  = 4'd4,  // block map entry out of range or not increasing
    DensifyErrFormat    = 4'd5,  // dim format neither DENSE (0) nor SPARSE_CSR (1)
    DensifyErrDimension = 4'd6,  // a dimension <= 0, or the dense shape overflows 32 bits
    DensifyErrSegment   = 4'd7,  // segments decreasing, or segment array too short
    DensifyErrIndex     = 4'd8,  // index >= dimension (or < 0), or indices array too short
    DensifyErrValues    = 4'd9,  // more stored values walked than the values array holds
    DensifyErrOutput    = 4'd10, // dense offset >= output element count
    DensifyErrBus       = 4'd11  // a memory read or write answered with an error
  } densify_err_e;

endpackage
/* verilator lint_on UNUSEDPARAM */
