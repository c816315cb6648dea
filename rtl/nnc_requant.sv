// Requantization unit: per lane, acc + bias -> x * multiplier * 2^shift (the reference's
// fixed-point formulas, bit for bit) -> + output zero point -> activation clamp -> saturation
// to the output type. Five-stage pipeline; the whole pipeline stalls when the output is held.
// Two arithmetic paths share the stages and registers, chosen per beat by in_acc64_i:
//
// int32 (acc64 = 0): ops/quant multiplyByQuantizedMultiplier, TFLite's double rounding
//             sum   = wrap32(acc[31:0] + bias)      int32 accumulators, as the reference
//             left  = max(shift, 0), right = max(-shift, 0)     shift = in_shift_i[5:0]
//             x     = wrap32(sum << left)
//             h     = SRDHM(x, multiplier)          x*m / 2^31 to nearest, ties toward +inf
//                                                   (gemmlowp's nudge, then truncation)
//             r     = RDBPOT(h, right)              h / 2^right to nearest, ties away from 0
// int64 (acc64 = 1): ops/quant multiplyByQuantizedMultiplier64, TFLite's 16x8 path
//             x     = wrap64(acc + sext(bias))
//             m15   = multiplier < 0x7FFF0000 ? (multiplier + 2^15) >> 16 : 0x7FFF
//             total = 15 - clamp(shift, -31, 14)    1..46; shift = the int8 in_shift_i
//             r     = low32((wrap64(x * m15) + 2^(total-1)) >>> total)   one rounding
// both:       y     = clamp(clamp(r + zp, act_min, act_max), type_min, type_max)
// (docs/quantization.md derives the rounding of both steps.)
// r + zp is added exactly (33 bits) before the clamps; the reference's int32 addition
// agrees wherever it does not overflow.
//
// Stage use:  1 inputs | 2 x, multiplier, right/total | 3 x * multiplier (one 64 x 32
// multiply, low 64 bits, for both paths) | 4 high half (int32) or rounded shift (int64)
// | output: RDBPOT (by 0 for int64), zero point, clamps.
`include "prim_assert.svh"

module nnc_requant
#(
  parameter int unsigned Lanes = nnc_isa_pkg::ArrayCols
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,

  // One beat = one row of accumulators, with their per-lane (per-channel) parameters and
  // the per-operation parameters.
  input  logic                             in_valid_i,
  output logic                             in_ready_o,
  // Per-lane vectors: lane l in slice l (bits [64l+63:64l] of in_acc_i, and so on).
  input  logic [Lanes*64-1:0]              in_acc_i,    // signed; int32 path: bits 31:0
  input  logic                             in_acc64_i,  // the int64 path (else int32)
  input  logic [Lanes*32-1:0]              in_bias_i,   // signed
  input  logic [Lanes*32-1:0]              in_mult_i,   // signed Q31
  input  logic [Lanes*8-1:0]               in_shift_i,  // signed; int32 path: bits 5:0,
                                                        // -31..+31; int64: clamped to -31..14
  input  logic [31:0]                      in_zp_i,     // signed output zero point
  input  logic [31:0]                      in_act_min_i,
  input  logic [31:0]                      in_act_max_i,
  input  nnc_pkg::out_type_e                        in_out_type_i,

  output logic                             out_valid_o,
  input  logic                             out_ready_i,
  output logic [Lanes*32-1:0]              out_data_o   // signed, within the output type
);

  localparam int unsigned Stages = 4;  // registered stages before the output register

  // The pipeline moves as a whole; it only stops when the output register is held.
  logic en;
  assign en         = !(out_valid_o && !out_ready_i);
  assign in_ready_o = en;

  // --- Per-beat control: valid bits and operation parameters ---------------------------
  // Every register of a stage loads only when a beat enters it (en and the valid bit of the
  // stage before): an idle or partly filled pipeline does no work, and a stage's data is
  // only used under its valid bit.
  logic [Stages-1:0] valid_q;
  logic              out_valid_q;
  logic [Stages-1:0] load;       // stage s takes a beat this cycle
  logic              load_out;

  assign load[0]  = en && in_valid_i;
  for (genvar s = 1; s < Stages; s++) begin : g_load
    assign load[s] = en && valid_q[s-1];
  end
  assign load_out = en && valid_q[Stages-1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q     <= '0;
      out_valid_q <= 1'b0;
    end else if (en) begin
      valid_q     <= {valid_q[Stages-2:0], in_valid_i};
      out_valid_q <= valid_q[Stages-1];
    end
  end

  typedef struct packed {
    logic        acc64;
    logic [31:0] zp;
    logic [31:0] act_min;
    logic [31:0] act_max;
    logic [2:0]  out_type;  // nnc_pkg::out_type_e (Yosys takes no package types in a
                            // module's struct)
  } op_cfg_t;

  // Parameters need no reset: they are only used under a valid bit.
  op_cfg_t cfg_in;
  // Elements are plain vectors: Yosys 0.23 reads an unpacked array of a module's own
  // packed-struct type as a single element (the others silently lost).
  logic [$bits(cfg_in)-1:0] cfg_q [Stages];
  always_comb begin
    cfg_in.acc64    = in_acc64_i;
    cfg_in.zp       = in_zp_i;
    cfg_in.act_min  = in_act_min_i;
    cfg_in.act_max  = in_act_max_i;
    cfg_in.out_type = in_out_type_i;
  end
  always_ff @(posedge clk_i) begin
    if (load[0]) cfg_q[0] <= cfg_in;
    for (int unsigned s = 1; s < Stages; s++) begin
      if (load[s]) cfg_q[s] <= cfg_q[s-1];
    end
  end

  assign out_valid_o = out_valid_q;

  // The stages' parameters as plain structs: Yosys cannot select a member of an array element.
  /* verilator lint_off UNUSEDSIGNAL */  // each stage reads a few fields
  op_cfg_t cfg_s1, cfg_s3, cfg_s4;
  /* verilator lint_on UNUSEDSIGNAL */
  assign cfg_s1 = cfg_q[0];
  assign cfg_s3 = cfg_q[2];
  assign cfg_s4 = cfg_q[Stages-1];

  // --- Per-lane arithmetic, one function per stage ------------------------------------------
  // Stage 1 -> 2: the multiplicand x. int32: bias add and left shift, both wrapping in 32
  // bits, sign-extended; int64: the bias add, wrapping in 64 bits.
  function automatic logic signed [63:0] stage2_x(logic signed [63:0] acc,
                                                  logic signed [31:0] bias,
                                                  logic signed [5:0] shift, logic acc64);
    logic signed [31:0] sum32, shifted32;
    logic [5:0]         left;
    sum32     = acc[31:0] + bias;
    left      = shift[5] ? 6'd0 : shift;
    shifted32 = sum32 <<< left;  // a 32-bit variable: the shift wraps in 32 bits
    stage2_x = acc64 ? acc + 64'(bias) : 64'(shifted32);
  endfunction

  // Stage 1 -> 2: the multiplier: Q31 (int32), or reduced to Q15 and rounded (int64; the
  // cap keeps 0x7FFF8000 and above from rounding up to 2^15).
  function automatic logic signed [31:0] stage2_mult(logic signed [31:0] mult, logic acc64);
    logic signed [31:0] nudged;
    nudged = mult + 32'sd32768;  // cannot overflow below the cap
    if (!acc64)                      stage2_mult = mult;
    else if (mult >= 32'sh7fff_0000) stage2_mult = 32'sd32767;
    else                             stage2_mult = 32'(nudged >>> 16);
  endfunction

  // Stage 1 -> 2: the right shift after the high multiply (int32), or the one total shift
  // 15 - clamp(shift, -31, 14) (int64).
  function automatic logic [5:0] stage2_right(logic signed [7:0] shift, logic acc64);
    logic signed [7:0] clamped;
    clamped = shift < -8'sd31 ? -8'sd31 : (shift > 8'sd14 ? 8'sd14 : shift);
    if (acc64) stage2_right = 6'(8'sd15 - clamped);
    else       stage2_right = shift[5] ? 6'(-shift[5:0]) : 6'd0;
  endfunction

  // Stage 3 -> 4 (int64): the product rounded to nearest (ties up) and shifted right by
  // total (1..46), both in 64-bit two's complement; the low 32 bits are the result.
  // (Stage 3 -> 4 (int32) and 4 -> output are nnc_pkg's high_half, rounding_shift and
  // clamp_out, shared with nnc_mbqm and the elementwise unit.)
  /* verilator lint_off UNUSEDSIGNAL */  // the shift's high bits
  function automatic logic signed [31:0] round_shift(logic signed [63:0] prod, logic [5:0] total);
    logic signed [63:0] rounded, shifted;
    rounded = prod + (64'sd1 <<< (total - 6'd1));
    shifted = rounded >>> total;
    round_shift = shifted[31:0];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // --- Lanes ------------------------------------------------------------------------------
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    // Stage 1: inputs.
    logic signed [63:0]         s1_acc_q;
    logic signed [31:0]         s1_bias_q;
    logic signed [31:0]         s1_mult_q;
    logic signed [7:0]          s1_shift_q;
    // Stage 2: the multiplicand (int32: the left-shifted sum), the multiplier, the shift.
    logic signed [63:0]         s2_x_q;
    logic signed [31:0]         s2_mult_q;
    logic [5:0]                 s2_right_q;
    // Stage 3: the 64-bit product and the one case the high multiply saturates.
    logic signed [63:0]         s3_prod_q;
    logic                       s3_sat_q;
    logic [5:0]                 s3_right_q;
    // Stage 4: the high half, rounded.
    logic signed [31:0]         s4_high_q;
    logic [5:0]                 s4_right_q;
    // Output.
    logic signed [31:0]         out_q;

    // Datapath flops need no reset: the valid bits qualify them. Stages are written from
    // the output back to the input, so each reads its predecessor before that one's
    // update in statement order as well: Verilator then needs no shadow copies of the
    // stage registers (with the input stage first it kept and committed a copy of all of
    // them every cycle, idle or not).
    always_ff @(posedge clk_i) begin
      if (load_out) begin
        out_q <= nnc_pkg::clamp_out(nnc_pkg::rounding_shift(s4_high_q, s4_right_q), cfg_s4.zp,
                                    cfg_s4.act_min, cfg_s4.act_max, cfg_s4.out_type);
      end
      if (load[3]) begin
        s4_high_q  <= cfg_s3.acc64 ? round_shift(s3_prod_q, s3_right_q)
                                     : nnc_pkg::high_half(s3_prod_q, s3_sat_q);
        s4_right_q <= cfg_s3.acc64 ? 6'd0 : s3_right_q;  // int64: already rounded
      end
      if (load[2]) begin
        // int32: exact (a sign-extended int32 times an int32); int64: wraps, as specified.
        // Multiplied as unsigned: the low 64 bits of a product are the same for signed and
        // unsigned operands, and an unsigned multiply wraps by definition, where Verilator's
        // signed 64-bit C++ multiply would overflow (undefined behaviour) on the int64 path.
        s3_prod_q  <= $signed($unsigned(s2_x_q) * $unsigned(64'(s2_mult_q)));
        // int32 only: the int64 path's multiplier never reaches INT32_MIN.
        s3_sat_q   <= (s2_x_q == 64'(32'sh8000_0000)) && (s2_mult_q == 32'sh8000_0000);
        s3_right_q <= s2_right_q;
      end
      if (load[1]) begin
        s2_x_q     <= stage2_x(s1_acc_q, s1_bias_q, s1_shift_q[5:0], cfg_s1.acc64);
        s2_mult_q  <= stage2_mult(s1_mult_q, cfg_s1.acc64);
        s2_right_q <= stage2_right(s1_shift_q, cfg_s1.acc64);
      end
      if (load[0]) begin
        s1_acc_q   <= in_acc_i[64*l +: 64];
        s1_bias_q  <= in_bias_i[32*l +: 32];
        s1_mult_q  <= in_mult_i[32*l +: 32];
        s1_shift_q <= in_shift_i[8*l +: 8];
      end
    end

    assign out_data_o[32*l +: 32] = out_q;
  end

  // --- Assertions ---------------------------------------------------------------------------
  // int32 path: shift = -32 would be a division by 2^32, which the reference does not
  // define (the int64 path clamps its shift). One check for all lanes (the message names the
  // first bad one): with --assert, per-lane properties cost every cycle.
  function automatic int first_bad_shift(logic [Lanes*8-1:0] shifts);
    first_bad_shift = -1;
    for (int l = Lanes - 1; l >= 0; l--) begin
      if (shifts[8*l +: 6] == 6'b100000) first_bad_shift = l;
    end
  endfunction
  `PRIM_ASSERT(ShiftInRange_A,
               (in_valid_i && in_ready_o && !in_acc64_i) |-> first_bad_shift(in_shift_i) < 0,
               clk_i, rst_ni, ("nnc_requant: lane %0d shift -32 is not supported",
                               first_bad_shift($sampled(in_shift_i))))

endmodule
