// ELTWISE (ISA 1.7): feeds nnc_eltwise from the buffers and writes its results to OUT. One
// command: the 24-byte parameter record is read from PRM (one read), then a beat of Lanes
// elements per cycle, a from INP and b from WGT in the same cycle (two ports, so no operand
// waits for the other), the results written to OUT as they leave the unit's pipeline, the
// last beat's lanes past `count` under cleared byte enables. Nothing holds the unit's
// output (the compute unit has priority on OUT's write port), so it never stalls and a
// command takes ceil(count / Lanes) beats plus the pipeline's fill.
//
// The compute unit starts it only when nothing else runs (it reads what DMA loads wrote and
// writes OUT, which stores read) and checks the footprints first. INP's read window is Rows
// 16-bit elements wide, at least Lanes (Rows >= Lanes, as every configuration has).
`include "prim_assert.svh"

module nnc_eltwise_engine
#(
  parameter int unsigned Lanes = nnc_isa_pkg::ArrayCols,
  parameter int unsigned Rows  = nnc_isa_pkg::ArrayRows,
  parameter int unsigned AddrW = nnc_isa_pkg::BufAddrBits
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  // The command, taken with start_i (its fields need not stay).
  input  logic                  start_i,
  input  logic                  mul_i,
  input  logic                  a_signed_i,
  input  logic                  b_signed_i,
  input  logic                  wide_i,
  input  logic                  out_wide_i,
  input  logic                  out_signed_i,
  input  logic [4:0]            left_i,
  input  logic [AddrW-1:0]      a_addr_i,
  input  logic [AddrW-1:0]      b_addr_i,
  input  logic [AddrW-1:0]      out_addr_i,
  input  logic [AddrW-1:0]      prm_addr_i,
  input  logic [15:0]           count_i,
  input  logic [15:0]           out_zp_i,
  input  logic [15:0]           a_zp_i,
  input  logic [15:0]           b_zp_i,
  output logic                  busy_o,
  output logic                  done_o,      // pulse: the last result is written

  output logic                  inp_re_o,
  output logic [AddrW-1:0]      inp_raddr_o,
  input  logic [Rows*16-1:0]    inp_rdata_i,
  output logic                  wgt_re_o,
  output logic [AddrW-1:0]      wgt_raddr_o,
  input  logic [Lanes*16-1:0]   wgt_rdata_i,
  output logic                  prm_re_o,
  output logic [AddrW-1:0]      prm_raddr_o,
  input  logic [Lanes*32-1:0]   prm_rdata_i,
  output logic                  out_we_o,
  output logic [AddrW-1:0]      out_waddr_o,
  output logic [Lanes*32-1:0]   out_wdata_o,
  output logic [Lanes*4-1:0]    out_wbe_o
);

  typedef enum logic [1:0] {EwIdle, EwParam, EwStream} state_e;

  state_e      state_q;
  logic        mul_q, a_signed_q, b_signed_q, wide_q, out_wide_q, out_signed_q;
  logic [4:0]  left_q;
  logic [AddrW-1:0] a_q, b_q, out_q, prm_q;
  logic [15:0] count_q, beats_q, issued_q, written_q;
  logic [15:0] out_zp_q, a_zp_q, b_zp_q;
  logic        prm_pend_q, pend_q;
  // The record (docs/isa.md): three Q31 multipliers, the clamps, three shifts.
  logic [31:0] a_mult_q, b_mult_q, out_mult_q, clamp_min_q, clamp_max_q;
  logic [5:0]  a_shift_q, b_shift_q, out_shift_q;

  logic issue, last_write;
  logic out_valid;
  logic [Lanes*32-1:0] out_data;

  assign issue  = state_q == EwStream && !prm_pend_q && issued_q != beats_q;
  assign busy_o = state_q != EwIdle;

  // A record shift (int8) clamped to the unit's -31..31.
  function automatic logic [5:0] shift6(logic [7:0] s);
    if ($signed(s) > 8'sd31)       shift6 = 6'd31;
    else if ($signed(s) < -8'sd31) shift6 = 6'h21;  // -31
    else                           shift6 = s[5:0];
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= EwIdle;
      prm_pend_q <= 1'b0;
      pend_q     <= 1'b0;
      issued_q   <= '0;
      written_q  <= '0;
    end else begin
      prm_pend_q <= state_q == EwParam;
      pend_q     <= issue;
      if (start_i) begin
        state_q   <= EwParam;
        issued_q  <= '0;
        written_q <= '0;
      end
      if (state_q == EwParam) state_q <= EwStream;
      if (issue) issued_q <= issued_q + 16'd1;
      if (out_valid) written_q <= written_q + 16'd1;
      if (last_write) state_q <= EwIdle;
    end
  end

  // The command's fields, the record (taken the cycle after its read); no reset: used only
  // while busy.
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      mul_q        <= mul_i;
      a_signed_q   <= a_signed_i;
      b_signed_q   <= b_signed_i;
      wide_q       <= wide_i;
      out_wide_q   <= out_wide_i;
      out_signed_q <= out_signed_i;
      left_q       <= left_i;
      a_q          <= a_addr_i;
      b_q          <= b_addr_i;
      out_q        <= out_addr_i;
      prm_q        <= prm_addr_i;
      count_q      <= count_i;
      beats_q      <= 16'((32'(count_i) + Lanes - 1) / Lanes);
      out_zp_q     <= out_zp_i;
      a_zp_q       <= a_zp_i;
      b_zp_q       <= b_zp_i;
    end
    if (prm_pend_q) begin
      a_mult_q    <= prm_rdata_i[31:0];
      b_mult_q    <= prm_rdata_i[63:32];
      out_mult_q  <= prm_rdata_i[95:64];
      clamp_min_q <= prm_rdata_i[127:96];
      clamp_max_q <= prm_rdata_i[159:128];
      a_shift_q   <= shift6(prm_rdata_i[167:160]);
      b_shift_q   <= shift6(prm_rdata_i[175:168]);
      out_shift_q <= shift6(prm_rdata_i[183:176]);
    end
  end

  // Reads: the record, then beat t's a and b lines.
  logic [AddrW-1:0] beat_ofs;
  assign beat_ofs    = AddrW'(32'(issued_q) * Lanes << wide_q);
  assign prm_re_o    = state_q == EwParam;
  assign prm_raddr_o = prm_q;
  assign inp_re_o    = issue;
  assign inp_raddr_o = a_q + beat_ofs;
  assign wgt_re_o    = issue;
  assign wgt_raddr_o = b_q + beat_ofs;

  // The lanes of a read line: 16-bit elements, or bytes extended by their sign flag.
  function automatic logic [Lanes*16-1:0] lanes_of(logic [Lanes*16-1:0] line, logic wide,
                                                   logic sgn);
    for (int unsigned l = 0; l < Lanes; l++) begin
      lanes_of[16*l +: 16] = wide ? line[16*l +: 16] : {{8{sgn && line[8*l+7]}}, line[8*l +: 8]};
    end
  endfunction

  logic [Lanes*16-1:0] in_a, in_b;
  always_comb begin
    in_a = '0;
    in_b = '0;
    if (pend_q) begin  // only for a beat entering the unit
      in_a = lanes_of(inp_rdata_i[Lanes*16-1:0], wide_q, a_signed_q);
      in_b = lanes_of(wgt_rdata_i, wide_q, b_signed_q);
    end
  end

  nnc_pkg::out_type_e out_type;
  always_comb begin
    unique case ({out_wide_q, out_signed_q})
      2'b00:   out_type = nnc_pkg::OutU8;
      2'b01:   out_type = nnc_pkg::OutI8;
      2'b10:   out_type = nnc_pkg::OutU16;
      default: out_type = nnc_pkg::OutI16;
    endcase
  end

  logic unit_ready;
  nnc_eltwise #(
    .Lanes(Lanes)
  ) u_eltwise (
    .clk_i,
    .rst_ni,
    .in_valid_i    (pend_q),
    .in_ready_o    (unit_ready),
    .in_a_i        (in_a),
    .in_b_i        (in_b),
    .in_mul_i      (mul_q),
    .in_left_i     (left_q),
    .in_a_zp_i     (32'(signed'(a_zp_q))),
    .in_b_zp_i     (32'(signed'(b_zp_q))),
    .in_a_mult_i   (a_mult_q),
    .in_a_shift_i  (a_shift_q),
    .in_b_mult_i   (b_mult_q),
    .in_b_shift_i  (b_shift_q),
    .in_out_mult_i (out_mult_q),
    .in_out_shift_i(out_shift_q),
    .in_zp_i       (32'(signed'(out_zp_q))),
    .in_act_min_i  (clamp_min_q),
    .in_act_max_i  (clamp_max_q),
    .in_out_type_i (out_type),
    .out_valid_o   (out_valid),
    .out_ready_i   (1'b1),
    .out_data_o    (out_data)
  );

  // Writes: beat w's results packed in the output width; lanes at or past count disabled.
  logic [31:0] first_elem;
  assign first_elem = 32'(written_q) * Lanes;
  assign last_write = out_valid && written_q + 16'd1 == beats_q;
  assign done_o     = last_write;
  always_comb begin
    out_we_o    = out_valid;
    out_waddr_o = out_q + AddrW'(first_elem << out_wide_q);
    out_wdata_o = '0;
    out_wbe_o   = '0;
    for (int unsigned l = 0; l < Lanes; l++) begin
      if (out_wide_q) out_wdata_o[16*l +: 16] = out_data[32*l +: 16];
      else            out_wdata_o[8*l +: 8]   = out_data[32*l +: 8];
      if (first_elem + l < 32'(count_q)) begin
        if (out_wide_q) out_wbe_o[2*l +: 2] = 2'b11;
        else            out_wbe_o[l]        = 1'b1;
      end
    end
  end

  // What the lanes do not use: INP's window past Lanes elements, the record's padding and
  // the rest of PRM's line.
  logic unused_engine;
  assign unused_engine = ^{inp_rdata_i, prm_rdata_i[Lanes*32-1:184], unit_ready};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      `PRIM_ASSERT_I(UnitNeverHolds_A, !(pend_q && !unit_ready),
        ("nnc_eltwise_engine: the elementwise unit refused a beat"))
      `PRIM_ASSERT_I(StartWhenIdle_A, !(start_i && state_q != EwIdle),
        ("nnc_eltwise_engine: started while busy"))
    end
  end

endmodule
