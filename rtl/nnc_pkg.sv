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
  typedef enum logic [2:0] {
    OutU8  = 3'd0,
    OutI8  = 3'd1,
    OutI16 = 3'd2,
    OutI32 = 3'd3,
    OutU16 = 3'd4
  } out_type_e;

  // --- Densify unit -------------------------------------------------------------------------
  localparam int unsigned DensifyMaxRank = 8;   // levels, block levels included
  // Descriptor layout in 32-bit words (docs/rtl-datapath.md): an 8-word header (4 used, 4
  // reserved), then one 8-word record per level.
  localparam int unsigned DensifyHdrWords   = 8;
  localparam int unsigned DensifyLevelWords = 8;

  // Element size code of the moved values (log2 of the byte count).
  typedef enum logic [1:0] {
    Elem8  = 2'd0,
    Elem16 = 2'd1,
    Elem32 = 2'd2
  } elem_size_e;

  // Result of a densify operation; anything but DensifyOk means the operation stopped early,
  // and nothing outside [out_addr, out_addr + out_bytes) was written. Every code but Bus is
  // found before the first write.
  typedef enum logic [3:0] {
    DensifyOk           = 4'd0,
    DensifyErrRank      = 4'd1,  // levels 0 or > 8, block levels >= levels or > the rank
    DensifyErrElemSize  = 4'd2,  // element size code 3 in the command
    DensifyErrTraversal = 4'd3,  // grid part not a permutation of [0,n), block part of [n,n+k)
    DensifyErrBlockMap  = 4'd4,  // block map entry outside [0,n) or not strictly increasing
    DensifyErrFormat    = 4'd5,  // format neither DENSE (0) nor SPARSE_CSR (1), or a DENSE
                                 // level with segments/indices
    DensifyErrDimension = 4'd6,  // a level size < 1, or the dense tensor > 2^31 elements
    DensifyErrSegment   = 4'd7,  // segments: count != positions + 1, first != 0, decreasing,
                                 // last != indices count
    DensifyErrIndex     = 4'd8,  // index outside [0, size), or more positions than dense
                                 // elements (repeated indices)
    DensifyErrValues    = 4'd9,  // values count != positions of the last level
    DensifyErrOutput    = 4'd10, // output size != dense size in bytes (or an offset beyond it)
    DensifyErrBus       = 4'd11  // a needed beat answered with an error, or an element
                                 // access straddling two bus beats
  } densify_err_e;

endpackage
/* verilator lint_on UNUSEDPARAM */
