// One processing element of the output-stationary systolic MAC array: multiplies the
// operand pair passing through it, accumulates into its own accumulator, and forwards the
// activation (with its valid/last tag) to the right and the weight downwards.
//
// A beat tagged `last` closes the tile: acc + product goes to the result register, which
// holds it for the drain while the accumulator restarts from zero for the next tile (so the
// next tile accumulates while this one drains).
module nnc_pe
  import nnc_pkg::*;
(
  input  logic                           clk_i,
  input  logic                           rst_ni,
  input  logic                           en_i,     // array-wide stall when low

  input  logic signed [OperandWidth-1:0] a_i,      // activation - zero point
  input  logic signed [OperandWidth-1:0] w_i,      // weight - zero point
  input  logic                           valid_i,  // a_i/w_i carry a beat (else a bubble)
  input  logic                           last_i,   // the beat is the tile's last k

  output logic signed [OperandWidth-1:0] a_o,
  output logic signed [OperandWidth-1:0] w_o,
  output logic                           valid_o,
  output logic                           last_o,
  output logic signed [AccWidth-1:0]     res_o     // the last closed tile's sum
);

  logic signed [OperandWidth-1:0] a_d, a_q, w_d, w_q;
  logic                           valid_d, valid_q, last_d, last_q;
  logic signed [AccWidth-1:0]     acc_d, acc_q, res_d, res_q;

  logic signed [2*OperandWidth-1:0] prod;
  logic signed [AccWidth-1:0]       sum;

  always_comb begin
    prod = a_i * w_i;
    sum  = acc_q + AccWidth'(prod);

    a_d     = a_q;
    w_d     = w_q;
    valid_d = valid_q;
    last_d  = last_q;
    acc_d   = acc_q;
    res_d   = res_q;
    if (en_i) begin
      a_d     = a_i;
      w_d     = w_i;
      valid_d = valid_i;
      last_d  = last_i;
      if (valid_i) begin
        acc_d = last_i ? '0 : sum;
        if (last_i) res_d = sum;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= 1'b0;
      last_q  <= 1'b0;
      acc_q   <= '0;
    end else begin
      valid_q <= valid_d;
      last_q  <= last_d;
      acc_q   <= acc_d;
    end
  end

  // Operands and results are qualified by the tags: no reset needed.
  always_ff @(posedge clk_i) begin
    a_q   <= a_d;
    w_q   <= w_d;
    res_q <= res_d;
  end

  assign a_o     = a_q;
  assign w_o     = w_q;
  assign valid_o = valid_q;
  assign last_o  = last_q;
  assign res_o   = res_q;

  // --- Assertions ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  // A tile's last beat is always a real beat.
  LastIsValid_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      last_i |-> valid_i)
    else $error("nnc_pe: last tag on a bubble");
`endif

endmodule
