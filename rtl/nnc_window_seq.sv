// Window sequencer: the INP vector reads of one window-mode GEMM (docs/driver.md, "Plan:
// activations resident in device DRAM"), in the order the transposer (nnc_transpose) takes
// them. The GEMM's k beats are blocks j = 0, 1, ... of vec beats (the last block the rest of
// k); block j is m pixel vectors, vector i at
//   base + i*lane_stride + (j % taps)*tap_stride + (j / taps)*tile_stride
// (inner taps along a filter row, outer channel tiles). Each request carries whether it is
// its block's first vector (the consumer's bank credit), its last (the transposer's
// in_last_i) and the block's beat count. When two lanes' vectors fit one read of the INP
// line (lane_stride + vec * element bytes <= 2 * Rows), a request reads lanes i and i + 1
// at once (rd_pair_o; ISA 1.10), so a block of m short vectors (a few-channel image's
// window rows) takes ceil(m / 2) reads. Addresses come from running sums, no multiplier;
// they wrap at the buffer address width, and the consumer's footprint check keeps them in
// the buffer.
//
// Verified by `nncosim testbench window_seq`; nnc_window_fetch runs it.
`include "prim_assert.svh"

module nnc_window_seq
#(
  parameter int unsigned Rows  = nnc_isa_pkg::ArrayRows,
  parameter int unsigned AddrW = nnc_isa_pkg::BufAddrBits,
  localparam int unsigned CntW = $clog2(Rows + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  // One GEMM's window, taken when start_i && idle_o (idle: no window, or the current one's
  // last read taken in this cycle).
  input  logic             start_i,
  input  logic             wide_i,         // 16-bit elements (else 8-bit)
  input  logic [AddrW-1:0] base_i,
  input  logic [CntW-1:0]  m_i,            // vectors per block, 1..Rows
  input  logic [CntW-1:0]  vec_i,          // beats per block, 1..Rows
  input  logic [6:0]       taps_i,         // inner taps, >= 1
  input  logic [15:0]      k_i,            // beats in all, >= 1
  input  logic [AddrW-1:0] lane_stride_i,
  input  logic [11:0]      tap_stride_i,
  input  logic [AddrW-1:0] tile_stride_i,
  output logic             idle_o,

  output logic             rd_valid_o,
  input  logic             rd_ready_i,
  output logic [AddrW-1:0] rd_addr_o,
  output logic             rd_first_o,     // the block's first vector
  output logic             rd_last_o,      // its last
  output logic             rd_pair_o,      // lanes i and i + 1: the second vector
                                           // lane_stride bytes into the read
  output logic [CntW-1:0]  rd_beats_o      // the block's beats, 1..vec
);

  logic             active_q;
  logic [AddrW-1:0] grp_q;    // base + (j / taps)*tile_stride
  logic [AddrW-1:0] blk_q;    // grp + (j % taps)*tap_stride
  logic [AddrW-1:0] addr_q;   // blk + i*lane_stride
  logic [6:0]       tap_q;    // j % taps
  logic [CntW-1:0]  lane_q;   // i
  logic [15:0]      left_q;   // beats of block j and after
  logic [CntW-1:0]  m_q, vec_q;
  logic [6:0]       taps_q;
  logic [AddrW-1:0] lane_stride_q, tile_stride_q;
  logic [11:0]      tap_stride_q;
  logic             pair_q;   // two lanes per read
  logic [CntW:0]    step;     // lanes this read covers

  logic fire, block_done, last_block;
  // Idle also in the cycle the last read is taken, so back-to-back windows read without a gap.
  assign idle_o     = !active_q || (block_done && last_block);
  assign rd_valid_o = active_q;
  assign rd_addr_o  = addr_q;
  assign rd_first_o = lane_q == '0;
  assign rd_pair_o  = pair_q && (CntW+1)'(lane_q) + (CntW+1)'(2) <= (CntW+1)'(m_q);
  assign step       = rd_pair_o ? (CntW+1)'(2) : (CntW+1)'(1);
  assign rd_last_o  = (CntW+1)'(lane_q) + step == (CntW+1)'(m_q);
  assign rd_beats_o = left_q < 16'(vec_q) ? CntW'(left_q) : vec_q;
  assign fire       = rd_valid_o && rd_ready_i;
  assign block_done = fire && rd_last_o;
  assign last_block = left_q <= 16'(vec_q);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      active_q      <= 1'b0;
      grp_q         <= '0;
      blk_q         <= '0;
      addr_q        <= '0;
      tap_q         <= '0;
      lane_q        <= '0;
      left_q        <= '0;
      m_q           <= '0;
      vec_q         <= '0;
      taps_q        <= '0;
      lane_stride_q <= '0;
      tile_stride_q <= '0;
      tap_stride_q  <= '0;
      pair_q        <= 1'b0;
    end else if (start_i && idle_o) begin
      active_q      <= 1'b1;
      grp_q         <= base_i;
      blk_q         <= base_i;
      addr_q        <= base_i;
      tap_q         <= '0;
      lane_q        <= '0;
      left_q        <= k_i;
      m_q           <= m_i;
      vec_q         <= vec_i;
      taps_q        <= taps_i;
      lane_stride_q <= lane_stride_i;
      tile_stride_q <= tile_stride_i;
      tap_stride_q  <= tap_stride_i;
      // Both vectors within the 2 * Rows bytes one read returns.
      pair_q        <= 32'(lane_stride_i) + 32'(vec_i) * (wide_i ? 32'd2 : 32'd1) <=
                       32'(2 * Rows);
    end else if (block_done) begin
      lane_q <= '0;
      left_q <= last_block ? '0 : left_q - 16'(vec_q);
      if (last_block) begin
        active_q <= 1'b0;
      end else if (tap_q == taps_q - 1'b1) begin
        // The next channel tile's first tap.
        tap_q  <= '0;
        grp_q  <= grp_q + tile_stride_q;
        blk_q  <= grp_q + tile_stride_q;
        addr_q <= grp_q + tile_stride_q;
      end else begin
        tap_q  <= tap_q + 1'b1;
        blk_q  <= blk_q + AddrW'(tap_stride_q);
        addr_q <= blk_q + AddrW'(tap_stride_q);
      end
    end else if (fire) begin
      lane_q <= lane_q + CntW'(step);
      addr_q <= addr_q + (rd_pair_o ? lane_stride_q << 1 : lane_stride_q);
    end
  end

  `PRIM_ASSERT(WindowInRange_A, (start_i && idle_o) |->
               (m_i >= CntW'(1) && m_i <= CntW'(Rows) && vec_i >= CntW'(1) &&
                vec_i <= CntW'(Rows) && taps_i != '0 && k_i != '0), clk_i, rst_ni,
               ("nnc_window_seq: m and vec must be 1..Rows, taps and k at least 1"))

endmodule
