// POOL (ISA 1.7): feeds nnc_pool from INP and writes its results to OUT. One command is a
// row tile: for each of m output pixels the fh x fw pixel vectors of its window (1..240
// each, ISA 1.8; nnc_compute adds the fields' fifteens) are read
// one per cycle (lane j = channel j of the vector, as DWCONV reads them), the window's
// first and last marked; each window's result vector is written to OUT as it leaves the
// unit, channels past n under cleared byte enables. Nothing holds the unit's output (the
// compute unit has priority on OUT's write port), so the reads never stall: m*fh*fw cycles
// plus the pipeline's fill.
//
// AVG divides by fh*fw (rounding half away from zero, or with trunc, ISA 1.8, truncating
// toward zero as MEAN does) through the unit's reciprocal, recip = ceil(2^(32+l) / count) with
// l = ceil(log2(count)): computed here before the first read by restoring division of
// 2^(32+l) - 1 by count, one quotient bit per cycle (32 + l <= 48 cycles), so the command
// needs no table and carries no derived field. MAX starts at once.
//
// The compute unit starts it only when nothing else runs and checks the footprints first.
`include "prim_assert.svh"

module nnc_pool_engine
#(
  parameter int unsigned Lanes = nnc_isa_pkg::ArrayCols,
  parameter int unsigned Rows  = nnc_isa_pkg::ArrayRows,
  parameter int unsigned AddrW = nnc_isa_pkg::BufAddrBits
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,

  // The command, taken with start_i.
  input  logic                  start_i,
  input  logic                  avg_i,
  input  logic                  trunc_i,
  input  logic                  a_signed_i,
  input  logic                  wide_i,
  input  logic [7:0]            m_i,
  input  logic [7:0]            n_i,
  input  logic [AddrW-1:0]      inp_addr_i,
  input  logic [7:0]            fh_i,
  input  logic [7:0]            fw_i,
  input  logic [1:0]            sw_i,
  input  logic [AddrW-1:0]      row_stride_i,
  input  logic [AddrW-1:0]      out_addr_i,
  input  logic [15:0]           clamp_min_i,
  input  logic [15:0]           clamp_max_i,
  output logic                  busy_o,
  output logic                  done_o,      // pulse: the last result is written

  output logic                  inp_re_o,
  output logic [AddrW-1:0]      inp_raddr_o,
  input  logic [Rows*16-1:0]    inp_rdata_i,
  output logic                  out_we_o,
  output logic [AddrW-1:0]      out_waddr_o,
  output logic [Lanes*32-1:0]   out_wdata_o,
  output logic [Lanes*4-1:0]    out_wbe_o
);

  typedef enum logic [1:0] {PlIdle, PlDivide, PlStream, PlDrain} state_e;

  state_e           state_q;
  logic             avg_q, trunc_q, a_signed_q, wide_q;
  logic [7:0]       m_q, n_q, issued_q, written_q;
  logic [7:0]       fh_q, fw_q, fy_q, fx_q;
  logic [1:0]       sw_q;
  logic [AddrW-1:0] row_stride_q, out_q;
  logic [AddrW-1:0] pix_q, row_q, tap_q;  // the read address's parts: pixel, filter row, tap
  logic [15:0]      clamp_min_q, clamp_max_q;
  // AVG's reciprocal: the window's count, l, the division's remainder and quotient.
  logic [15:0]      count_q;  // up to 240 x 240
  logic [4:0]       l_q;
  logic [5:0]       div_left_q;
  logic [16:0]      rem_q;
  logic [32:0]      quot_q;  // < 2^33: count > 2^(l-1)
  logic [32:0]      recip_q;
  // The beat read last cycle: its window flags.
  logic             pend_q, pend_first_q, pend_last_q;

  logic issue, first, last, last_write;
  logic out_valid;
  logic [Lanes*32-1:0] out_data;
  logic [AddrW-1:0] vb;  // a pixel vector's bytes

  assign vb     = AddrW'(Lanes) << wide_q;
  assign issue  = state_q == PlStream;
  assign first  = fy_q == 8'd0 && fx_q == 8'd0;
  assign last   = fy_q == fh_q - 8'd1 && fx_q == fw_q - 8'd1;
  assign busy_o = state_q != PlIdle;

  // ceil(log2(c)) for a count of 1..57,600.
  function automatic logic [4:0] clog2_count(logic [15:0] c);
    clog2_count = 5'd0;
    for (int unsigned b = 0; b < 16; b++) begin
      if ({1'b0, c} > (17'd1 << b)) clog2_count = 5'(b + 1);
    end
  endfunction

  logic [15:0] start_count;
  assign start_count = 16'(fh_i) * 16'(fw_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= PlIdle;
      pend_q    <= 1'b0;
      issued_q  <= '0;
      written_q <= '0;
    end else begin
      pend_q <= issue;
      if (start_i) begin
        state_q   <= avg_i ? PlDivide : PlStream;
        issued_q  <= '0;
        written_q <= '0;
      end
      if (state_q == PlDivide && div_left_q == 6'd0) state_q <= PlStream;
      if (issue && last && issued_q + 8'd1 == m_q) state_q <= PlDrain;
      if (issue && last) issued_q <= issued_q + 8'd1;
      if (out_valid) written_q <= written_q + 8'd1;
      if (last_write) state_q <= PlIdle;
    end
  end

  // Command fields, address walk, division; no reset: used only while busy.
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      avg_q        <= avg_i;
      trunc_q      <= trunc_i;
      a_signed_q   <= a_signed_i;
      wide_q       <= wide_i;
      m_q          <= m_i;
      n_q          <= n_i;
      fh_q         <= fh_i;
      fw_q         <= fw_i;
      sw_q         <= sw_i;
      row_stride_q <= row_stride_i;
      out_q        <= out_addr_i;
      clamp_min_q  <= clamp_min_i;
      clamp_max_q  <= clamp_max_i;
      pix_q        <= inp_addr_i;
      row_q        <= '0;
      tap_q        <= '0;
      fy_q         <= '0;
      fx_q         <= '0;
      count_q      <= start_count;
      l_q          <= clog2_count(start_count);
      div_left_q   <= 6'(32 + 32'(clog2_count(start_count)));
      rem_q        <= '0;
      quot_q       <= '0;
    end
    // Restoring division of 2^(32+l) - 1 (all ones) by count, a bit per cycle.
    if (state_q == PlDivide) begin
      if (div_left_q != 6'd0) begin
        logic [16:0] r;
        r = {rem_q[15:0], 1'b1};
        if (r >= {1'b0, count_q}) begin
          rem_q  <= r - {1'b0, count_q};
          quot_q <= {quot_q[31:0], 1'b1};
        end else begin
          rem_q  <= r;
          quot_q <= {quot_q[31:0], 1'b0};
        end
        div_left_q <= div_left_q - 6'd1;
      end else begin
        recip_q <= quot_q + 33'd1;  // ceil(2^(32+l) / count)
      end
    end
    if (issue) begin
      if (fx_q != fw_q - 8'd1) begin
        fx_q  <= fx_q + 8'd1;
        tap_q <= tap_q + vb;
      end else begin
        fx_q  <= '0;
        tap_q <= '0;
        if (fy_q != fh_q - 8'd1) begin
          fy_q  <= fy_q + 8'd1;
          row_q <= row_q + row_stride_q;
        end else begin
          fy_q  <= '0;
          row_q <= '0;
          pix_q <= pix_q + AddrW'(32'(sw_q) * 32'(vb));
        end
      end
    end
    pend_first_q <= first;
    pend_last_q  <= last;
  end

  assign inp_re_o    = issue;
  assign inp_raddr_o = pix_q + row_q + tap_q;

  // The lanes of a read line: 16-bit values, or bytes extended by the sign flag.
  logic [Lanes*16-1:0] in_x;
  always_comb begin
    in_x = '0;
    if (pend_q) begin
      for (int unsigned l = 0; l < Lanes; l++) begin
        in_x[16*l +: 16] = wide_q ? inp_rdata_i[16*l +: 16]
                                  : {{8{a_signed_q && inp_rdata_i[8*l+7]}}, inp_rdata_i[8*l +: 8]};
      end
    end
  end

  nnc_pkg::out_type_e out_type;
  always_comb begin
    unique case ({wide_q, a_signed_q})
      2'b00:   out_type = nnc_pkg::OutU8;
      2'b01:   out_type = nnc_pkg::OutI8;
      default: out_type = nnc_pkg::OutI16;
    endcase
  end

  logic unit_ready;
  nnc_pool #(
    .Lanes(Lanes)
  ) u_pool (
    .clk_i,
    .rst_ni,
    .in_valid_i       (pend_q),
    .in_ready_o       (unit_ready),
    .in_x_i           (in_x),
    .in_first_i       (pend_first_q),
    .in_last_i        (pend_last_q),
    .in_max_i         (!avg_q),
    .in_trunc_i       (trunc_q),
    .in_count_i       (32'(count_q)),
    .in_recip_i       (recip_q),
    .in_recip_shift_i (7'(32 + 32'(l_q))),
    .in_act_min_i     (32'(signed'(clamp_min_q))),
    .in_act_max_i     (32'(signed'(clamp_max_q))),
    .in_out_type_i    (out_type),
    .out_valid_o      (out_valid),
    .out_ready_i      (1'b1),
    .out_data_o       (out_data)
  );

  // Writes: window w's result vector in the value width; channels at or past n disabled.
  assign last_write = out_valid && written_q + 8'd1 == m_q;
  assign done_o     = last_write;
  always_comb begin
    out_we_o    = out_valid;
    out_waddr_o = out_q + AddrW'((32'(written_q) * Lanes) << wide_q);
    out_wdata_o = '0;
    out_wbe_o   = '0;
    for (int unsigned l = 0; l < Lanes; l++) begin
      if (wide_q) out_wdata_o[16*l +: 16] = out_data[32*l +: 16];
      else        out_wdata_o[8*l +: 8]   = out_data[32*l +: 8];
      if (8'(l) < n_q) begin
        if (wide_q) out_wbe_o[2*l +: 2] = 2'b11;
        else        out_wbe_o[l]        = 1'b1;
      end
    end
  end

  logic unused_engine;
  assign unused_engine = ^{inp_rdata_i, unit_ready, rem_q[16]};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      `PRIM_ASSERT_I(PoolUnitNeverHolds_A, !(pend_q && !unit_ready),
        ("nnc_pool_engine: the pooling unit refused a value"))
      `PRIM_ASSERT_I(PoolStartWhenIdle_A, !(start_i && state_q != PlIdle),
        ("nnc_pool_engine: started while busy"))
    end
  end

endmodule
