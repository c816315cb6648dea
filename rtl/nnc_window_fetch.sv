// Window fetch: GEMM window mode's A operand, formed on chip from pixel vectors in INP. The
// sequencer (nnc_window_seq) reads one vector per cycle through INP's read port (two, lanes
// i and i + 1, when both fit the read's 2 * Rows bytes: ISA 1.10), the
// transposer (nnc_transpose) turns each block of m vectors into vec beats, beat t carrying
// A(i, t) in lane i (docs/driver.md, "Plan: activations resident in device DRAM"):
//   A(i, t) = INP[base + i*lane_stride + (j % taps)*tap_stride + (j / taps)*tile_stride
//                 + c*eb],  j = t / vec, c = t % vec
// int8 elements leave in bits 7:0 of their 16-bit lane (nnc_unpack_lanes, as for nnc_compute's
// k-major operands), lanes i >= m as zero.
//
// Bank credit: a block's first vector is read only when fewer than two blocks are in the
// transposer, or when the older of two leaves with this cycle's beat (its bank is free by
// the time the read's data arrives), so the transposer never refuses read data. A new
// window may start as soon as the previous one's reads are issued: its blocks queue behind
// the previous one's beats, so back-to-back GEMMs pay the first block's fill once.
//
// Verified on its own by `nncosim testbench window_fetch`; nnc_compute runs window-mode GEMMs
// (ISA 1.5) through it.
`include "prim_assert.svh"

module nnc_window_fetch
#(
  parameter int unsigned Rows  = nnc_isa_pkg::ArrayRows,
  parameter int unsigned AddrW = nnc_isa_pkg::BufAddrBits,
  localparam int unsigned CntW = $clog2(Rows + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  // One GEMM's window, taken when start_i && idle_o (idle: its predecessor's last read is
  // taken in this cycle or before).
  input  logic             start_i,
  input  logic             wide_i,          // 16-bit elements (else 8-bit)
  input  logic [AddrW-1:0] base_i,
  input  logic [CntW-1:0]  m_i,
  input  logic [CntW-1:0]  vec_i,
  input  logic [6:0]       taps_i,
  input  logic [15:0]      k_i,
  input  logic [AddrW-1:0] lane_stride_i,
  input  logic [11:0]      tap_stride_i,
  input  logic [AddrW-1:0] tile_stride_i,
  output logic             idle_o,

  // INP read port (one-cycle latency, any byte address; Rows*2 bytes per read)
  output logic             inp_re_o,
  output logic [AddrW-1:0] inp_raddr_o,
  input  logic [Rows*16-1:0] inp_rdata_i,

  // Beats to the array
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Rows*16-1:0] out_act_o,     // A(i, t) in bits 16i+15:16i
  output logic             empty_o          // no block read or waiting
);

  // --- sequencer -------------------------------------------------------------------------
  logic             rd_valid, rd_ready, rd_first, rd_last, rd_pair, rd_fire;
  logic [AddrW-1:0] rd_addr;
  logic [CntW-1:0]  rd_beats;

  nnc_window_seq #(
    .Rows (Rows),
    .AddrW(AddrW)
  ) u_seq (
    .clk_i,
    .rst_ni,
    .start_i,
    .wide_i,
    .base_i,
    .m_i,
    .vec_i,
    .taps_i,
    .k_i,
    .lane_stride_i,
    .tap_stride_i,
    .tile_stride_i,
    .idle_o,
    .rd_valid_o (rd_valid),
    .rd_ready_i (rd_ready),
    .rd_addr_o  (rd_addr),
    .rd_first_o (rd_first),
    .rd_last_o  (rd_last),
    .rd_pair_o  (rd_pair),
    .rd_beats_o (rd_beats)
  );

  // --- bank credit -----------------------------------------------------------------------
  logic [1:0] open_q;  // blocks whose first vector was read and whose last beat has not left
  logic       tr_out_valid, tr_out_last, tr_in_ready, block_leaves;
  assign block_leaves = tr_out_valid && out_ready_i && tr_out_last;
  assign rd_ready     = !rd_first || open_q < 2'd2 || block_leaves;
  assign rd_fire      = rd_valid && rd_ready;
  assign inp_re_o     = rd_fire;
  assign inp_raddr_o  = rd_addr;

  // The width of the window being read, and of each read's data: a window starts in the
  // cycle its predecessor's last read is taken, one cycle before that read's data arrives.
  logic wide_q;
  logic pend_q, pend_last_q, pend_wide_q, pend_pair_q;
  logic [CntW-1:0] pend_beats_q;
  // A pair's second vector starts lane_stride bytes into the read (< 2 * Rows: the pair rule).
  localparam int unsigned ShiftW = $clog2(2 * Rows);
  logic [ShiftW-1:0] shift_q, pend_shift_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q       <= '0;
      wide_q       <= 1'b0;
      pend_q       <= 1'b0;
      pend_last_q  <= 1'b0;
      pend_wide_q  <= 1'b0;
      pend_pair_q  <= 1'b0;
      pend_beats_q <= '0;
      shift_q      <= '0;
      pend_shift_q <= '0;
    end else begin
      open_q <= open_q + 2'(rd_fire && rd_first) - 2'(block_leaves);
      if (start_i && idle_o) begin
        wide_q  <= wide_i;
        shift_q <= ShiftW'(lane_stride_i);
      end
      pend_q <= rd_fire;
      if (rd_fire) begin
        pend_last_q  <= rd_last;
        pend_wide_q  <= wide_q;
        pend_pair_q  <= rd_pair;
        pend_shift_q <= shift_q;
        pend_beats_q <= rd_beats;
      end
    end
  end

  // --- transposer ------------------------------------------------------------------------
  // A read's data, the cycle after it, as Rows 16-bit elements; a pair's second vector from
  // lane_stride bytes in.
  logic [Rows*16-1:0] vec, vec2, line2;
  assign line2 = inp_rdata_i >> {pend_shift_q, 3'b000};
  nnc_unpack_lanes #(
    .Lanes(Rows)
  ) u_unpack (
    .line_i  (inp_rdata_i),
    .wide_i  (pend_wide_q),
    .lanes_o (vec)
  );
  nnc_unpack_lanes #(
    .Lanes(Rows)
  ) u_unpack2 (
    .line_i  (line2),
    .wide_i  (pend_wide_q),
    .lanes_o (vec2)
  );

  nnc_transpose #(
    .Lanes(Rows),
    .Elems(Rows),
    .ElemW(16)
  ) u_transpose (
    .clk_i,
    .rst_ni,
    .in_valid_i  (pend_q),
    .in_ready_o  (tr_in_ready),
    .in_vec_i    (vec),
    .in_pair_i   (pend_pair_q),
    .in_vec2_i   (vec2),
    .in_last_i   (pend_last_q),
    .in_beats_i  (pend_beats_q),
    .out_valid_o (tr_out_valid),
    .out_ready_i (out_ready_i),
    .out_beat_o  (out_act_o),
    .out_last_o  (tr_out_last)
  );
  assign out_valid_o = tr_out_valid;
  assign empty_o     = idle_o && open_q == '0;

  // The credit keeps a bank free for every read's data.
  `PRIM_ASSERT(ReadDataTaken_A, pend_q |-> tr_in_ready, clk_i, rst_ni,
               ("nnc_window_fetch: the transposer refused a read's data"))

endmodule
