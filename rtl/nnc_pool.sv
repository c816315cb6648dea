// Pooling unit, datapath: per lane, NNAPI's quantized MAX_POOL_2D and AVERAGE_POOL_2D of one
// window exactly as the reference computes them (ops/conv/max_pool_2d.cc, average_pool_2d.cc):
//   MAX  out = clamp(max of the window's values, act_min, act_max)
//   AVG  out = clamp(sign(sum) * floor((|sum| + floor(count / 2)) / count), act_min, act_max)
//             (the reference's (sum +- count/2) / count with C's truncating division)
//   AVG with trunc: out = clamp(sign(sum) * floor(|sum| / count), act_min, act_max)
//             (MEAN's sum / count: ops/movement/mean.cc)
// The window's values arrive one per beat per lane, first_i on the first and last_i on the
// last; the result leaves after the last. The division is a multiplication by the window's
// reciprocal, exact for every |sum| + count/2 < 2^32 (Granlund and Montgomery's round-up
// method): recip_i = ceil(2^(32+l) / count), recip_shift_i = 32 + l, l = ceil(log2(count)),
// which the feeder takes from a table per window size (a clipped border window has its own
// count). Pooling stays in the input's quantized domain: no rescale. Three stages after the
// accumulator (|sum| | product | shift and sign), then the clamps into the output register;
// the whole unit stalls while the output is held.
//
// Fed by nnc_pool_engine (POOL, docs/rtl-datapath.md §5). Testbench: `nncosim testbench pool`.
`include "prim_assert.svh"

module nnc_pool
#(
  parameter int unsigned Lanes = nnc_isa_pkg::ArrayCols
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                in_valid_i,
  output logic                in_ready_o,
  input  logic [Lanes*16-1:0] in_x_i,          // lane l in slice l, signed
  input  logic                in_first_i,      // the window's first value
  input  logic                in_last_i,       // its last: the result follows (with first:
                                               // a one-value window)
  // Taken with the last value:
  input  logic                in_max_i,        // MAX (else AVG)
  input  logic                in_trunc_i,      // AVG: truncate (MEAN), else round half away
  input  logic [31:0]         in_count_i,      // AVG: the window's values, >= 1
  input  logic [32:0]         in_recip_i,      // AVG: ceil(2^recip_shift / count)
  input  logic [6:0]          in_recip_shift_i,  // AVG: 32 + ceil(log2(count)), 32..64
  input  logic [31:0]         in_act_min_i,
  input  logic [31:0]         in_act_max_i,
  input  nnc_pkg::out_type_e  in_out_type_i,

  output logic                out_valid_o,
  input  logic                out_ready_i,
  output logic [Lanes*32-1:0] out_data_o       // signed, within the output type
);

  localparam int unsigned Stages = 3;  // registered stages between accumulator and output

  logic en;
  assign en         = !(out_valid_o && !out_ready_i);
  assign in_ready_o = en;

  // A window's result enters the stages with its last value.
  logic              done;
  logic [Stages-1:0] valid_q;
  logic              out_valid_q;
  assign done = in_valid_i && in_last_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q     <= '0;
      out_valid_q <= 1'b0;
    end else if (en) begin
      valid_q     <= {valid_q[Stages-2:0], done};
      out_valid_q <= valid_q[Stages-1];
    end
  end
  assign out_valid_o = out_valid_q;

  typedef struct packed {
    logic        take_max;  // MAX (else AVG)
    logic        trunc;     // AVG truncates (no count / 2 added)
    logic [31:0] count;
    logic [32:0] recip;
    logic [6:0]  recip_shift;
    logic [31:0] act_min;
    logic [31:0] act_max;
    logic [2:0]  out_type;  // nnc_pkg::out_type_e (Yosys takes no package types in a struct)
  } op_cfg_t;

  op_cfg_t cfg_in;
  logic [$bits(cfg_in)-1:0] cfg_q [Stages];  // plain vectors, as in nnc_requant (Yosys)
  always_comb begin
    cfg_in.take_max    = in_max_i;
    cfg_in.trunc       = in_trunc_i;
    cfg_in.count       = in_count_i;
    cfg_in.recip       = in_recip_i;
    cfg_in.recip_shift = in_recip_shift_i;
    cfg_in.act_min     = in_act_min_i;
    cfg_in.act_max     = in_act_max_i;
    cfg_in.out_type    = in_out_type_i;
  end
  always_ff @(posedge clk_i) begin
    for (int s = Stages - 1; s >= 1; s--) begin
      if (en && valid_q[s-1]) cfg_q[s] <= cfg_q[s-1];
    end
    if (en && done) cfg_q[0] <= cfg_in;
  end
  /* verilator lint_off UNUSEDSIGNAL */  // each stage reads a few fields
  op_cfg_t cfg_s0, cfg_s1, cfg_s2;
  /* verilator lint_on UNUSEDSIGNAL */
  assign cfg_s0 = cfg_q[0];
  assign cfg_s1 = cfg_q[1];
  assign cfg_s2 = cfg_q[2];

  // The window's result: MAX its maximum; AVG the quotient floor(mag * recip / 2^shift) =
  // floor(mag / count), with the sum's sign.
  /* verilator lint_off UNUSEDSIGNAL */  // the quotient's high bits are zero
  function automatic logic signed [31:0] pooled(logic take_max, logic signed [15:0] maximum,
                                                logic [65:0] prod, logic [6:0] shift,
                                                logic neg);
    logic [65:0]        q;
    logic [31:0]        q32;
    logic signed [31:0] max32;
    q      = prod >> shift;
    q32    = q[31:0];
    max32  = 32'(maximum);
    pooled = take_max ? max32 : (neg ? -q32 : q32);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // --- Lanes ------------------------------------------------------------------------------
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    logic signed [15:0] x;
    logic signed [47:0] sum_q;   // the running window (sums of up to 2^32 int16 values)
    logic signed [15:0] max_q;
    logic signed [47:0] s0_sum_q;  // stage 0: the window's sum and maximum
    logic signed [15:0] s0_max_q;
    logic [32:0]        s1_mag_q;  // stage 1: |sum| (+ count / 2) (< 2^32 for an exact AVG)
    logic               s1_neg_q;
    logic signed [15:0] s1_max_q;
    logic [65:0]        s2_prod_q;  // stage 2: mag * recip
    logic               s2_neg_q;
    logic signed [15:0] s2_max_q;
    logic signed [31:0] out_q;

    assign x = in_x_i[16*l +: 16];

    // Stages written from the output back to the input (rtl/README.md, simulation speed).
    always_ff @(posedge clk_i) begin
      if (en && valid_q[2]) begin
        out_q <= nnc_pkg::clamp_out(pooled(cfg_s2.take_max, s2_max_q, s2_prod_q, cfg_s2.recip_shift,
                                           s2_neg_q),
                                    32'd0, cfg_s2.act_min, cfg_s2.act_max, cfg_s2.out_type);
      end
      if (en && valid_q[1]) begin
        s2_prod_q <= 66'(s1_mag_q) * 66'(cfg_s1.recip);
        s2_neg_q  <= s1_neg_q;
        s2_max_q  <= s1_max_q;
      end
      if (en && valid_q[0]) begin
        s1_mag_q <= 33'(s0_sum_q[47] ? -s0_sum_q : s0_sum_q) +
                    (cfg_s0.trunc ? 33'd0 : {2'b0, cfg_s0.count[31:1]});
        s1_neg_q <= s0_sum_q[47];
        s1_max_q <= s0_max_q;
      end
      if (en && in_valid_i) begin
        // The window so far, this value included (a first value starts a new one).
        if (in_last_i) begin
          s0_sum_q <= in_first_i ? 48'(x) : sum_q + 48'(x);
          s0_max_q <= in_first_i || x > max_q ? x : max_q;
        end else begin
          sum_q <= in_first_i ? 48'(x) : sum_q + 48'(x);
          max_q <= in_first_i || x > max_q ? x : max_q;
        end
      end
    end

    assign out_data_o[32*l +: 32] = out_q;
  end

  // An AVG count of 0 has no reciprocal; the feeder never sends one.
  `PRIM_ASSERT(CountNonZero_A, (in_valid_i && in_ready_o && in_last_i && !in_max_i) |->
               in_count_i != '0, clk_i, rst_ni, ("nnc_pool: AVG window of 0 values"))

endmodule
