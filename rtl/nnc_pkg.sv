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

  // The fixed-point steps of multiplyByQuantizedMultiplier (ops/quant/fixed_point.h) that the
  // requant unit and nnc_mbqm share. high_half: round(prod / 2^31) with the reference's
  // nudge and truncating division (SRDHM after the product; sat: both operands were
  // INT32_MIN, the one overflow, which saturates).
  /* verilator lint_off UNUSEDSIGNAL */  // quot's top bit provably repeats bit 31
  function automatic logic signed [31:0] high_half(logic signed [63:0] prod, logic sat);
    logic signed [63:0] nudged;
    logic signed [32:0] quot;
    nudged = prod + (prod[63] ? (64'sd1 - (64'sd1 <<< 30)) : (64'sd1 <<< 30));
    // Arithmetic shift floors; a negative value with a remainder rounds back toward zero.
    quot      = nudged[63:31] + {32'd0, nudged[63] && (nudged[30:0] != '0)};
    high_half = sat ? 32'sh7fff_ffff : quot[31:0];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // RDBPOT: x / 2^right rounded to nearest, ties away from zero (right 0..31).
  function automatic logic signed [31:0] rounding_shift(logic signed [31:0] x, logic [5:0] right);
    logic [31:0]        mask, remainder, threshold;
    logic signed [31:0] shifted;  // its own statement: in a mixed expression >>> would be logical
    mask           = 32'((33'd1 << right) - 33'd1);
    remainder      = x & mask;
    threshold      = (mask >> 1) + {31'd0, x[31]};
    shifted        = x >>> right;
    rounding_shift = shifted + {31'd0, remainder > threshold};
  endfunction

  // The last step of the requant and elementwise units: the output zero point (added in 33
  // bits: the reference's int32 addition agrees wherever it does not overflow), the fused
  // activation clamp (the reference's clamp tests the lower bound first, so an empty range
  // behaves as there) and saturation to the output type (out_type: an out_type_e). Called in
  // a clocked process under the output stage's load, so an idle unit does not evaluate it.
  /* verilator lint_off UNUSEDSIGNAL */  // typed's top bit: the clamped value fits 32 bits
  function automatic logic signed [31:0] clamp_out(logic signed [31:0] r, logic [31:0] zp,
                                                   logic [31:0] act_min, logic [31:0] act_max,
                                                   logic [2:0] out_type);
    logic signed [32:0] with_zp, act_clamped, lo, hi, tmin, tmax, typed;
    with_zp     = 33'(r) + 33'(signed'(zp));
    lo          = 33'(signed'(act_min));
    hi          = 33'(signed'(act_max));
    act_clamped = with_zp < lo ? lo : (with_zp > hi ? hi : with_zp);
    unique case (out_type)  // qualified names: Yosys 0.23 resolves no others here
      nnc_pkg::OutU8:  begin tmin = 33'sd0;      tmax = 33'sd255;   end
      nnc_pkg::OutI8:  begin tmin = -33'sd128;   tmax = 33'sd127;   end
      nnc_pkg::OutI16: begin tmin = -33'sd32768; tmax = 33'sd32767; end
      nnc_pkg::OutU16: begin tmin = 33'sd0;      tmax = 33'sd65535; end
      default: begin tmin = 33'(signed'(32'sh8000_0000)); tmax = 33'sd2147483647; end
    endcase
    typed     = act_clamped < tmin ? tmin : (act_clamped > tmax ? tmax : act_clamped);
    clamp_out = typed[31:0];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

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
