// One lane of NNAPI's multiplyByQuantizedMultiplier (ops/quant/fixed_point.h), bit for bit:
//   left  = max(shift, 0), right = max(-shift, 0)         shift = shift_i, -31..+31
//   x'    = wrap32(x << left)
//   h     = SRDHM(x', mult)     x' * mult / 2^31 to nearest, ties toward +inf (gemmlowp's
//                               nudge, then truncation); INT32_MIN * INT32_MIN saturates
//   y     = RDBPOT(h, right)    h / 2^right to nearest, ties away from zero
// A three-stage pipeline (shift | multiply | round) that advances with en_i; a value enters
// with en_i && valid_i and y_o holds its result three advances later. The owner tracks the
// valid bits of its own pipeline; the ones here only gate the loads, so an idle lane does
// no work. The elementwise unit uses three per lane (docs/rtl-datapath.md §5).
module nnc_mbqm (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               en_i,     // the owner's pipeline advances
  input  logic               valid_i,  // a value enters (with en_i)
  input  logic signed [31:0] x_i,
  input  logic signed [31:0] mult_i,   // Q31
  input  logic signed [5:0]  shift_i,  // -31..+31 (-32 is not supported, as in the reference)
  output logic signed [31:0] y_o
);

  logic [1:0] valid_q;  // stages A and B hold a value
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni)   valid_q <= '0;
    else if (en_i) valid_q <= {valid_q[0], valid_i};
  end

  // Stage A: the left-shifted operand, the multiplier, the right shift.
  logic signed [31:0] a_x_q, a_mult_q;
  logic [5:0]         a_right_q;
  // Stage B: the 64-bit product and the one saturating case.
  logic signed [63:0] b_prod_q;
  logic               b_sat_q;
  logic [5:0]         b_right_q;
  // Output: the rounded result.
  logic signed [31:0] y_q;


  // Stages written from the output back to the input (rtl/README.md, simulation speed).
  always_ff @(posedge clk_i) begin
    if (en_i && valid_q[1]) begin
      y_q <= nnc_pkg::rounding_shift(nnc_pkg::high_half(b_prod_q, b_sat_q), b_right_q);
    end
    if (en_i && valid_q[0]) begin
      // A sign-extended int32 times an int32: exact in 64 bits.
      b_prod_q  <= 64'(a_x_q) * 64'(a_mult_q);
      b_sat_q   <= a_x_q == 32'sh8000_0000 && a_mult_q == 32'sh8000_0000;
      b_right_q <= a_right_q;
    end
    if (en_i && valid_i) begin
      a_x_q     <= x_i <<< (shift_i[5] ? 6'd0 : shift_i);  // 32 bits: the shift wraps
      a_mult_q  <= mult_i;
      a_right_q <= shift_i[5] ? 6'(-shift_i) : 6'd0;
    end
  end

  assign y_o = y_q;

endmodule
