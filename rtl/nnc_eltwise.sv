// Elementwise unit, datapath: per lane, NNAPI's quantized ADD, SUB and MUL exactly as the
// reference computes them (ops/elementwise/add.cc and mul.cc on ops/quant's primitives):
//   ADD, SUB  x   = wrap32((a - a_zp) << left), y = wrap32((b - b_zp) << left)
//                     left = 20 for 8-bit types, 15 for int16 (in_left_i)
//             s   = MBQM(x, a_mult, a_shift) + MBQM(y, b_mult, b_shift)
//                     SUB is ADD with b_mult negated (the driver's, as the reference's)
//   MUL       s   = wrap32((a - a_zp) * (b - b_zp))
//   both      r   = MBQM(s, out_mult, out_shift)
//             out = clamp(clamp(r + zp, act_min, act_max), type_min, type_max)
// MBQM is multiplyByQuantizedMultiplier (nnc_mbqm). One beat is Lanes elementwise results;
// the operation's parameters are per beat, so whoever feeds the lanes broadcasts (the same
// b in every lane, or per lane). Eight-stage pipeline (operands | MBQM of a and b | MBQM of
// the sum | clamps); the whole pipeline stalls while the output is held.
//
// Not reachable by a command yet: issue 13 wires it to INP/OUT and gives it an ISA command
// (docs/rtl-datapath.md §5 has the plan). Its testbench is `nncosim testbench eltwise`.
module nnc_eltwise
#(
  parameter int unsigned Lanes = nnc_isa_pkg::ArrayCols
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                in_valid_i,
  output logic                in_ready_o,
  // Per-lane operands: lane l in slice l, signed (uint8 and int8 values extended to 16 bits).
  input  logic [Lanes*16-1:0] in_a_i,
  input  logic [Lanes*16-1:0] in_b_i,
  input  logic                in_mul_i,       // MUL (else ADD / SUB)
  input  logic [4:0]          in_left_i,      // ADD / SUB headroom shift
  input  logic [31:0]         in_a_zp_i,      // signed zero points
  input  logic [31:0]         in_b_zp_i,
  input  logic [31:0]         in_a_mult_i,    // Q31, with its shift (-31..31); ADD / SUB only
  input  logic [5:0]          in_a_shift_i,
  input  logic [31:0]         in_b_mult_i,
  input  logic [5:0]          in_b_shift_i,
  input  logic [31:0]         in_out_mult_i,
  input  logic [5:0]          in_out_shift_i,
  input  logic [31:0]         in_zp_i,        // output zero point
  input  logic [31:0]         in_act_min_i,
  input  logic [31:0]         in_act_max_i,
  input  nnc_pkg::out_type_e  in_out_type_i,

  output logic                out_valid_o,
  input  logic                out_ready_i,
  output logic [Lanes*32-1:0] out_data_o      // signed, within the output type
);

  // Stage 0: operands; 1-3: MBQM of a and b (MUL: the product waits); 4-6: MBQM of the sum.
  localparam int unsigned Stages = 7;

  logic en;
  assign en         = !(out_valid_o && !out_ready_i);
  assign in_ready_o = en;

  logic [Stages-1:0] valid_q;
  logic              out_valid_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q     <= '0;
      out_valid_q <= 1'b0;
    end else if (en) begin
      valid_q     <= {valid_q[Stages-2:0], in_valid_i};
      out_valid_q <= valid_q[Stages-1];
    end
  end
  assign out_valid_o = out_valid_q;

  // --- Per-beat parameters, carried along the stages that use them ---------------------------
  typedef struct packed {
    logic        mul;
    logic [31:0] out_mult;
    logic [5:0]  out_shift;
    logic [31:0] zp;
    logic [31:0] act_min;
    logic [31:0] act_max;
    logic [2:0]  out_type;  // nnc_pkg::out_type_e (Yosys takes no package types in a struct)
  } op_cfg_t;

  op_cfg_t cfg_in;
  logic [$bits(cfg_in)-1:0] cfg_q [Stages];  // plain vectors, as in nnc_requant (Yosys)
  always_comb begin
    cfg_in.mul       = in_mul_i;
    cfg_in.out_mult  = in_out_mult_i;
    cfg_in.out_shift = in_out_shift_i;
    cfg_in.zp        = in_zp_i;
    cfg_in.act_min   = in_act_min_i;
    cfg_in.act_max   = in_act_max_i;
    cfg_in.out_type  = in_out_type_i;
  end
  // Parameters need no reset: they are only used under a valid bit. Each stage loads only
  // when a beat enters it.
  always_ff @(posedge clk_i) begin
    for (int s = Stages - 1; s >= 1; s--) begin
      if (en && valid_q[s-1]) cfg_q[s] <= cfg_q[s-1];
    end
    if (en && in_valid_i) cfg_q[0] <= cfg_in;
  end
  // Plain structs of the stages read (Yosys cannot select a member of an array element).
  /* verilator lint_off UNUSEDSIGNAL */  // each stage reads a few fields
  op_cfg_t cfg_s0, cfg_s1, cfg_s2, cfg_s3, cfg_s6;
  /* verilator lint_on UNUSEDSIGNAL */
  assign cfg_s0 = cfg_q[0];
  assign cfg_s1 = cfg_q[1];
  assign cfg_s2 = cfg_q[2];
  assign cfg_s3 = cfg_q[3];
  assign cfg_s6 = cfg_q[6];

  // The input rescales, used as the beat leaves stage 0 (the MBQMs take them there).
  logic signed [31:0] s0_a_mult_q, s0_b_mult_q;
  logic signed [5:0]  s0_a_shift_q, s0_b_shift_q;
  always_ff @(posedge clk_i) begin
    if (en && in_valid_i && !in_mul_i) begin
      s0_a_mult_q  <= in_a_mult_i;
      s0_a_shift_q <= in_a_shift_i;
      s0_b_mult_q  <= in_b_mult_i;
      s0_b_shift_q <= in_b_shift_i;
    end
  end


  // --- Lanes ------------------------------------------------------------------------------
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    logic signed [31:0] s0_x_q, s0_y_q;       // stage 0: the MBQM operands (MUL: x = product)
    logic signed [31:0] prod1_q, prod2_q, prod3_q;  // MUL: the product beside the MBQMs
    logic signed [31:0] sx, sy, sum, r;
    logic signed [31:0] out_q;

    // Stages written from the output back to the input (rtl/README.md, simulation speed).
    always_ff @(posedge clk_i) begin
      if (en && valid_q[Stages-1]) begin
        out_q <= nnc_pkg::clamp_out(r, cfg_s6.zp, cfg_s6.act_min, cfg_s6.act_max,
                                    cfg_s6.out_type);
      end
      if (en && valid_q[2] && cfg_s2.mul) prod3_q <= prod2_q;
      if (en && valid_q[1] && cfg_s1.mul) prod2_q <= prod1_q;
      if (en && valid_q[0] && cfg_s0.mul) prod1_q <= s0_x_q;
      if (en && in_valid_i) begin
        // 32-bit arithmetic wraps (unsigned: the same bits as two's complement, and no
        // signed overflow in Verilator's C++); the reference's valid inputs never wrap.
        if (in_mul_i) begin
          s0_x_q <= (32'(signed'(in_a_i[16*l +: 16])) - in_a_zp_i) *
                    (32'(signed'(in_b_i[16*l +: 16])) - in_b_zp_i);
        end else begin
          s0_x_q <= (32'(signed'(in_a_i[16*l +: 16])) - in_a_zp_i) << in_left_i;
          s0_y_q <= (32'(signed'(in_b_i[16*l +: 16])) - in_b_zp_i) << in_left_i;
        end
      end
    end

    // ADD / SUB: the operands rescaled; their sum is the output MBQM's operand.
    nnc_mbqm u_a (
      .clk_i, .rst_ni, .en_i (en), .valid_i (valid_q[0] && !cfg_s0.mul),
      .x_i (s0_x_q), .mult_i (s0_a_mult_q), .shift_i (s0_a_shift_q), .y_o (sx)
    );
    nnc_mbqm u_b (
      .clk_i, .rst_ni, .en_i (en), .valid_i (valid_q[0] && !cfg_s0.mul),
      .x_i (s0_y_q), .mult_i (s0_b_mult_q), .shift_i (s0_b_shift_q), .y_o (sy)
    );
    assign sum = cfg_s3.mul ? prod3_q : sx + sy;
    nnc_mbqm u_out (
      .clk_i, .rst_ni, .en_i (en), .valid_i (valid_q[3]),
      .x_i (sum), .mult_i (cfg_s3.out_mult), .shift_i (cfg_s3.out_shift), .y_o (r)
    );

    assign out_data_o[32*l +: 32] = out_q;
  end

endmodule
