// Depthwise unit: one row tile of a depthwise convolution per start, every PE computing its
// own channel (issue 13's DWCONV; docs/rtl-datapath.md §7). For lanes i < m (output pixels
// of one output row) and channels j < Cols:
//
//   acc(i, j) = sum over fy < fh, fx < fw of
//               (INP[inp_addr + fy*row_stride + (i*sw + fx*dw)*Cols + j] - a_zp) *
//               (WGT[wgt_addr + (fy*fw + fx)*Cols + j] - b_zp)
//
// INP holds, per filter row, the span of pixel vectors (Cols int8 channels each, side by
// side: the window mapping's piece, a channel tile) the row tile reads, span = (m-1)*sw +
// (fw-1)*dw + 1. Unlike the MAC array's outer product, each PE takes its own activation:
// for tap fx, lane i's vector is entry i*sw + fx*dw of a line buffer holding the filter
// row's span, so a beat (one tap for all m x Cols PEs) needs no operand beyond that buffer
// and one weight vector.
//
// Flow: the unit reads a filter row's span into one of three line buffers (VecPerRead
// vectors per INP read) while the taps of the others run, one beat per cycle (a WGT read of
// the tap's weight vector in the cycle before), so a filter row takes max(reads, taps)
// cycles: a 3x3 stride-1 tile of 16 lanes 3 x max(3, 3) with 8 vectors per read (ISA
// 1.11). Three buffers, not two: a row's buffer is busy from its first read to its last
// tap, reads + 2 + taps cycles, which two buffers cannot hide when reads and taps are
// equal. A tile's sums move to one of two result banks at its last beat and drain two rows
// per cycle (rows 2i and 2i+1: an ACC write of Cols*8 bytes holds two int32 rows) while the
// next tile accumulates, so 16 rows take 8 cycles, under a 3x3 tile's 9 beats. A start is
// taken once the current tile's reads are all issued.
//
// Beside the array (ISA 1.14): the unit shares INP's and WGT's read ports with the GEMMs
// running at the same time. INP reads wait for inp_gnt_i (the GEMMs' reads go first: the
// unit then runs slower, hidden under their beats). The GEMMs read WGT every beat, so the
// unit keeps a tile's weight vectors (up to MaxTaps^2, tagged by the tile's wgt_addr) and
// reads WGT only for those it does not hold; those reads go first and stall the GEMM's
// issue for a cycle each. A WGT write (a DMA beat) meeting the kept vectors' span drops
// them all, so the kept copy is always what WGT holds.
//
// int8 operands; the sums are int32 (they wrap modulo 2^32 as ACC does).
`include "prim_assert.svh"

module nnc_dwconv
#(
  parameter int unsigned Rows    = nnc_isa_pkg::ArrayRows,
  parameter int unsigned Cols    = nnc_isa_pkg::ArrayCols,
  parameter int unsigned AddrW   = nnc_isa_pkg::BufAddrBits,
  parameter int unsigned MaxTaps = 7,   // fh, fw <= MaxTaps; sw, dw in 1..2
  // Bytes an INP read returns (INP's line): VecPerRead pixel vectors of Cols bytes.
  parameter int unsigned InpReadBytes = Rows * nnc_isa_pkg::InpLineVectors,
  // Bytes a WGT write moves (the DMA's bus beat): the window the kept weights are checked
  // against.
  parameter int unsigned WgtWriteBytes = nnc_isa_pkg::AxiDataBytes,
  localparam int unsigned SpanMax    = (Rows - 1) * 2 + (MaxTaps - 1) * 2 + 1,
  localparam int unsigned VecPerRead = InpReadBytes / Cols,
  localparam int unsigned CntW       = $clog2(Rows + 1),
  localparam int unsigned TapW       = $clog2(MaxTaps + 1),
  localparam int unsigned RowIdxW    = Rows > 1 ? $clog2(Rows) : 1,
  localparam int unsigned KeepTaps   = MaxTaps * MaxTaps,
  localparam int unsigned KeepW      = $clog2(KeepTaps)
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,

  // One row tile, taken when start_i && idle_o.
  input  logic                    start_i,
  input  logic [AddrW-1:0]        inp_addr_i,
  input  logic [AddrW-1:0]        row_stride_i,
  input  logic [AddrW-1:0]        wgt_addr_i,
  input  logic [CntW-1:0]         m_i,          // 1..Rows
  input  logic [TapW-1:0]         fh_i,         // 1..MaxTaps
  input  logic [TapW-1:0]         fw_i,         // 1..MaxTaps
  input  logic [1:0]              sw_i,         // 1..2
  input  logic [1:0]              dw_i,         // 1..2
  input  logic                    a_signed_i,
  input  logic                    b_signed_i,
  input  logic signed [16:0]      a_zp_i,
  input  logic signed [16:0]      b_zp_i,
  output logic                    idle_o,       // the last tile's reads are issued

  // INP (InpReadBytes per read) and WGT (Cols*2 bytes per read; the first Cols bytes are
  // used) read ports, one-cycle latency.
  output logic                    inp_re_o,     // a read request, taken with inp_gnt_i
  input  logic                    inp_gnt_i,
  output logic [AddrW-1:0]        inp_raddr_o,
  input  logic [InpReadBytes*8-1:0] inp_rdata_i,
  output logic                    wgt_re_o,     // always taken (the GEMM's issue waits)
  output logic [AddrW-1:0]        wgt_raddr_o,
  input  logic [Cols*16-1:0]      wgt_rdata_i,
  // WGT's write port (the DMA), watched so the kept weight vectors never go stale.
  input  logic                    wgt_we_i,
  input  logic [AddrW-1:0]        wgt_waddr_i,

  // Results: rows 0..m-1 of each tile in order, two per cycle: rows out_row_o (even) and
  // out_row_o + 1 (when < m; else its half is zero).
  output logic                    out_valid_o,
  input  logic                    out_ready_i,
  output logic [RowIdxW-1:0]      out_row_o,
  output logic                    out_last_o,
  output logic [Cols*64-1:0]      out_acc_o,    // row r's channel j in bits 32j+31:32j,
                                                // row r+1's 32(Cols+j)+31:32(Cols+j)

  output logic                    busy_o        // a tile is read, computed or drained
);

  localparam int unsigned VecW  = Cols * 8;
  localparam int unsigned SpanW = $clog2(SpanMax + 1);
  localparam int unsigned ReadsMax = (SpanMax + VecPerRead - 1) / VecPerRead;
  localparam int unsigned ReadW = $clog2(ReadsMax + 1);

  // What a filter row's taps need, kept with the row from its load to its last tap (the
  // load side may start the next tile while the compute side finishes this one).
  typedef struct packed {
    logic [CntW-1:0]   m;
    logic [TapW-1:0]   fw;
    logic [1:0]        sw;
    logic [1:0]        dw;
    logic              asg;
    logic              bsg;
    logic signed [16:0] azp;
    logic signed [16:0] bzp;
    logic [AddrW-1:0]  wgt;     // the row's first weight vector
    logic [AddrW-1:0]  base;    // the tile's first weight vector (the kept vectors' tag)
    logic [KeepW-1:0]  tap0;    // the row's first tap index, fy * fw
    logic              first;   // the tile's first filter row
    logic              last;    // the tile's last filter row
  } row_t;

  // --- Load side: a tile's filter rows, one INP read at a time --------------------------
  logic              ld_active_q;
  logic [TapW-1:0]   ld_fy_q, ld_fh_q;
  logic [ReadW-1:0]  ld_read_q, ld_reads_q;   // reads issued for the row / reads per row
  logic [AddrW-1:0]  ld_addr_q, ld_row_q, ld_stride_q;
  row_t              ld_meta_q;               // the tile's fields (first/last set per row)
  logic [1:0]        ld_buf_q;                // the buffer the row loads into (0..2)
  logic [2:0]        full_q;                  // buffer b holds a whole row
  logic [2:0]        loading_q;               // buffer b is being loaded
  // Three of each, not arrays: Yosys 0.23 reads an unpacked array of a packed struct as one
  // element.
  row_t              meta0_q, meta1_q, meta2_q, ld_row_meta;
  // Line buffers: entry k of buffer b is pixel vector k of its row's span.
  logic [VecW-1:0]   line_q [3][SpanMax];

  // The buffer after b in turn.
  function automatic logic [1:0] next_buf(logic [1:0] b);
    next_buf = b == 2'd2 ? 2'd0 : b + 2'd1;
  endfunction

  logic              ld_go, ld_fire, ld_last_read;
  assign ld_go        = ld_active_q && !full_q[ld_buf_q] &&
                        !(loading_q[ld_buf_q] && ld_read_q == '0);
  assign ld_fire      = ld_go && inp_gnt_i;
  assign ld_last_read = ld_read_q + 1'b1 == ld_reads_q;
  assign idle_o       = !ld_active_q || (ld_fire && ld_last_read && ld_fy_q + 1'b1 == ld_fh_q);
  assign inp_re_o     = ld_go;
  assign inp_raddr_o  = ld_addr_q;

  // A read's data, the cycle after it: its buffer and first entry.
  logic              pend_q, pend_last_q;
  logic [1:0]        pend_buf_q;
  logic [ReadW-1:0]  pend_read_q;  // its index in the row: entries from pend_read_q * VecPerRead

  // --- Compute side: taps of the full buffer, one beat per cycle ------------------------
  logic [1:0]        cp_buf_q;                // the buffer whose taps run next
  logic [TapW-1:0]   cp_fx_q;
  row_t              cp_meta;
  logic              issue, issue_last_tap, issue_close;
  logic [1:0]        banks_q;                 // result banks holding undrained tiles
  logic              bank_frees;              // a bank's last row leaves this cycle

  assign cp_meta        = cp_buf_q == 2'd0 ? meta0_q : cp_buf_q == 2'd1 ? meta1_q : meta2_q;
  assign issue_last_tap = cp_fx_q + 1'b1 == cp_meta.fw;
  assign issue_close    = issue_last_tap && cp_meta.last;
  // A tile's last beat needs a result bank (counting the close the PEs take this cycle).
  logic [1:0] banks_next;
  assign banks_next     = banks_q + 2'(take_q && take_close_q) - 2'(bank_frees);
  assign issue          = full_q[cp_buf_q] && (!issue_close || banks_next < 2'd2);

  // Kept weight vectors: entry t is WGT[keep_tag_q + t*Cols] while keep_valid_q[t].
  logic [Cols*8-1:0]   keep_q [KeepTaps];
  logic [KeepTaps-1:0] keep_valid_q;
  logic [AddrW-1:0]    keep_tag_q;
  logic                keep_drop, keep_drop_q, issue_hit;
  logic [KeepW-1:0]    issue_tap;
  assign issue_tap   = cp_meta.tap0 + KeepW'(cp_fx_q);
  assign issue_hit   = keep_valid_q[issue_tap] && cp_meta.base == keep_tag_q;
  // A write window meeting [tag, tag + KeepTaps*Cols): whatever was kept may be stale.
  assign keep_drop   = wgt_we_i && 32'(wgt_waddr_i) < 32'(keep_tag_q) + KeepTaps * Cols &&
                       32'(keep_tag_q) < 32'(wgt_waddr_i) + WgtWriteBytes;
  assign wgt_re_o    = issue && !issue_hit;
  assign wgt_raddr_o = cp_meta.wgt + AddrW'(32'(cp_fx_q) * Cols);

  // The beat issued last cycle: its lanes (entry i*sw of the buffer), taken by the PEs now.
  logic              take_q, take_first_q, take_close_q, take_hit_q;
  logic [KeepW-1:0]  take_tap_q;
  logic [AddrW-1:0]  take_base_q;
  logic [CntW-1:0]   take_m_q;
  logic              take_bsg_q;
  logic signed [16:0] take_bzp_q;
  logic [Rows*Cols*18-1:0] act_q;             // PE (i, j)'s operand in bits 18*(i*Cols + j)

  function automatic logic signed [17:0] to_operand(logic [7:0] x, logic is_signed,
                                                    logic signed [16:0] zp);
    logic signed [17:0] v;
    v = is_signed ? 18'(signed'(x)) : {10'd0, x};
    to_operand = v - 18'(zp);
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ld_active_q  <= 1'b0;
      ld_fy_q      <= '0;
      ld_fh_q      <= '0;
      ld_read_q    <= '0;
      ld_reads_q   <= '0;
      ld_addr_q    <= '0;
      ld_row_q     <= '0;
      ld_stride_q  <= '0;
      ld_meta_q    <= '0;
      ld_buf_q     <= '0;
      full_q       <= '0;
      loading_q    <= '0;
      meta0_q      <= '0;
      meta1_q      <= '0;
      meta2_q      <= '0;
      pend_q       <= 1'b0;
      pend_last_q  <= 1'b0;
      pend_buf_q   <= '0;
      pend_read_q  <= '0;
      cp_buf_q     <= '0;
      cp_fx_q      <= '0;
      take_q       <= 1'b0;
      take_first_q <= 1'b0;
      take_close_q <= 1'b0;
      take_hit_q   <= 1'b0;
      take_tap_q   <= '0;
      take_base_q  <= '0;
      take_m_q     <= '0;
      take_bsg_q   <= 1'b0;
      take_bzp_q   <= '0;
    end else begin
      // --- load: a read per cycle into the row's buffer
      pend_q <= ld_fire;
      if (ld_fire) begin
        pend_last_q  <= ld_last_read;
        pend_buf_q   <= ld_buf_q;
        pend_read_q  <= ld_read_q;
        loading_q[ld_buf_q] <= 1'b1;
        if (ld_read_q == '0 && ld_buf_q == 2'd0) meta0_q <= ld_row_meta;
        if (ld_read_q == '0 && ld_buf_q == 2'd1) meta1_q <= ld_row_meta;
        if (ld_read_q == '0 && ld_buf_q == 2'd2) meta2_q <= ld_row_meta;
        if (ld_last_read) begin
          ld_read_q <= '0;
          ld_buf_q  <= next_buf(ld_buf_q);
          ld_fy_q   <= ld_fy_q + 1'b1;
          ld_row_q  <= ld_row_q + ld_stride_q;
          ld_addr_q <= ld_row_q + ld_stride_q;
          if (ld_fy_q + 1'b1 == ld_fh_q) ld_active_q <= 1'b0;
        end else begin
          ld_read_q <= ld_read_q + 1'b1;
          ld_addr_q <= ld_addr_q + AddrW'(InpReadBytes);
        end
      end
      if (pend_q && pend_last_q) begin
        full_q[pend_buf_q]    <= 1'b1;
        loading_q[pend_buf_q] <= 1'b0;
      end
      // A new tile: its fields, its first row at the next buffer in turn.
      if (start_i && idle_o) begin
        logic [SpanW-1:0] span;
        span = SpanW'((32'(m_i) - 1) * 32'(sw_i) + (32'(fw_i) - 1) * 32'(dw_i) + 1);
        ld_active_q     <= 1'b1;
        ld_fy_q         <= '0;
        ld_fh_q         <= fh_i;
        ld_read_q       <= '0;
        ld_reads_q      <= ReadW'((32'(span) + VecPerRead - 1) / VecPerRead);
        ld_addr_q       <= inp_addr_i;
        ld_row_q        <= inp_addr_i;
        ld_stride_q     <= row_stride_i;
        ld_meta_q.m     <= m_i;
        ld_meta_q.fw    <= fw_i;
        ld_meta_q.sw    <= sw_i;
        ld_meta_q.dw    <= dw_i;
        ld_meta_q.asg   <= a_signed_i;
        ld_meta_q.bsg   <= b_signed_i;
        ld_meta_q.azp   <= a_zp_i;
        ld_meta_q.bzp   <= b_zp_i;
        ld_meta_q.wgt   <= wgt_addr_i;
        ld_meta_q.base  <= wgt_addr_i;
        ld_meta_q.tap0  <= '0;
        ld_meta_q.first <= 1'b0;
        ld_meta_q.last  <= 1'b0;
      end

      // --- compute: the taps of the full buffer
      take_q <= issue;
      if (issue) begin
        take_first_q <= cp_fx_q == '0 && cp_meta.first;
        take_close_q <= issue_close;
        take_m_q     <= cp_meta.m;
        take_bsg_q   <= cp_meta.bsg;
        take_bzp_q   <= cp_meta.bzp;
        take_hit_q   <= issue_hit;
        take_tap_q   <= issue_tap;
        take_base_q  <= cp_meta.base;
        if (issue_last_tap) begin
          cp_fx_q          <= '0;
          full_q[cp_buf_q] <= 1'b0;
          cp_buf_q         <= next_buf(cp_buf_q);
        end else begin
          cp_fx_q <= cp_fx_q + 1'b1;
        end
      end
    end
  end

  // The row's fields as its buffer keeps them: its weight vectors, first and last flags.
  always_comb begin
    ld_row_meta       = ld_meta_q;
    ld_row_meta.wgt   = ld_meta_q.wgt + AddrW'(32'(ld_fy_q) * 32'(ld_meta_q.fw) * Cols);
    ld_row_meta.tap0  = KeepW'(32'(ld_fy_q) * 32'(ld_meta_q.fw));
    ld_row_meta.first = ld_fy_q == '0;
    ld_row_meta.last  = ld_fy_q + 1'b1 == ld_fh_q;
  end

  // The line buffers: a read's vectors into their entries. Loading and computing never
  // share a buffer. No reset: entries are read only after their row was loaded. (Entries,
  // not one wide vector: a partial write of a wide register costs the simulator a copy of
  // all of it every cycle.)
  always_ff @(posedge clk_i) begin
    if (pend_q) begin
      for (int unsigned v = 0; v < VecPerRead; v++) begin
        // Entry e takes vector e % VecPerRead of a read: no multiplexer in front of it.
        if (32'(pend_read_q) * VecPerRead + v < SpanMax) begin
          line_q[pend_buf_q][32'(pend_read_q) * VecPerRead + v] <= inp_rdata_i[v*VecW +: VecW];
        end
      end
    end
  end

  // The beat's operands: tap fx's lane i is entry i*sw + fx*dw of the buffer, its zero point
  // off. Computed in the clocked process under `issue` only (Verilator evaluates a
  // combinational block every cycle: a 256-PE one would cost an idle unit most of a GEMM's
  // simulation time); no reset: read only under take_q.
  logic [SpanW-1:0] tap_off;
  assign tap_off = SpanW'(32'(cp_fx_q) * 32'(cp_meta.dw));
  always_ff @(posedge clk_i) begin
    if (issue) begin
      for (int unsigned i = 0; i < Rows; i++) begin
        logic [VecW-1:0] lane;
        logic [SpanW-1:0] entry;
        entry = SpanW'((cp_meta.sw == 2'd2 ? 2 * i : i) + 32'(tap_off));
        lane  = line_q[cp_buf_q][entry];
        for (int unsigned j = 0; j < Cols; j++) begin
          act_q[18*(i*Cols + j) +: 18] <= to_operand(lane[8*j +: 8], cp_meta.asg, cp_meta.azp);
        end
      end
    end
  end

  // Keeping: a vector read from WGT is kept when its tile's tag is still the kept one and no
  // write met the span in its read's cycle or since (the read may have returned the bytes
  // from before the write). A new tile's wgt_addr becomes the tag and drops the rest.
  logic keep_fill;
  assign keep_fill = take_q && !take_hit_q && take_base_q == keep_tag_q && !keep_drop &&
                     !keep_drop_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      keep_valid_q <= '0;
      keep_tag_q   <= '0;
      keep_drop_q  <= 1'b0;
    end else begin
      keep_drop_q <= keep_drop;
      if (keep_fill) keep_valid_q[take_tap_q] <= 1'b1;
      if (keep_drop) keep_valid_q <= '0;
      if (start_i && idle_o && wgt_addr_i != keep_tag_q) begin
        keep_tag_q   <= wgt_addr_i;
        keep_valid_q <= '0;
      end
    end
  end
  // No reset: an entry is read only while valid.
  always_ff @(posedge clk_i) begin
    if (keep_fill) keep_q[take_tap_q] <= wgt_rdata_i[Cols*8-1:0];
  end

  // --- PE grid: acc(i, j) += act(i, j) * w(j) -------------------------------------------
  // 18-bit operands sign-extended to 64 bits in the product: one multiply per PE in the
  // simulator (as in nnc_mac_array) and one 18 x 18 DSP in synthesis, which keeps the low
  // 32 bits.
  logic signed [17:0] wgt_x [Cols];
  always_comb begin
    for (int unsigned j = 0; j < Cols; j++) wgt_x[j] = '0;
    if (take_q) begin
      for (int unsigned j = 0; j < Cols; j++) begin
        wgt_x[j] = to_operand(take_hit_q ? keep_q[take_tap_q][8*j +: 8] : wgt_rdata_i[8*j +: 8],
                              take_bsg_q, take_bzp_q);
      end
    end
  end

  logic [31:0] acc_q  [Rows][Cols];
  logic [31:0] res0_q [Rows][Cols];
  logic [31:0] res1_q [Rows][Cols];
  logic        wr_bank_q, rd_bank_q;
  logic [CntW-1:0] res_m_q [2];

  always_ff @(posedge clk_i) begin
    if (take_q) begin
      for (int unsigned i = 0; i < Rows; i++) begin
        for (int unsigned j = 0; j < Cols; j++) begin
          acc_q[i][j] <= (take_first_q ? 32'd0 : acc_q[i][j]) +
                         32'(64'(signed'(act_q[18*(i*Cols + j) +: 18])) * 64'(wgt_x[j]));
        end
      end
    end
    if (take_q && take_close_q && !wr_bank_q) begin
      for (int unsigned i = 0; i < Rows; i++) begin
        for (int unsigned j = 0; j < Cols; j++) begin
          res0_q[i][j] <= (take_first_q ? 32'd0 : acc_q[i][j]) +
                          32'(64'(signed'(act_q[18*(i*Cols + j) +: 18])) * 64'(wgt_x[j]));
        end
      end
    end
    if (take_q && take_close_q && wr_bank_q) begin
      for (int unsigned i = 0; i < Rows; i++) begin
        for (int unsigned j = 0; j < Cols; j++) begin
          res1_q[i][j] <= (take_first_q ? 32'd0 : acc_q[i][j]) +
                          32'(64'(signed'(act_q[18*(i*Cols + j) +: 18])) * 64'(wgt_x[j]));
        end
      end
    end
  end

  // --- Drain: rows 0..m-1 of the oldest bank, two a cycle ----------------------------------
  logic [RowIdxW-1:0] drow_q;  // even
  logic               bank_close;
  assign bank_close  = take_q && take_close_q;
  assign out_valid_o = banks_q != 2'd0;
  assign out_row_o   = drow_q;
  assign out_last_o  = 32'(drow_q) + 2 >= 32'(res_m_q[rd_bank_q]);
  assign bank_frees  = out_valid_o && out_ready_i && out_last_o;

  always_comb begin
    out_acc_o = '0;
    // Only while a bank drains (the select costs a loop over every PE in the simulator).
    // Rows past m are zero (a bank's rows past its tile's m hold stale sums).
    if (out_valid_o) begin
      for (int unsigned i = 0; i < Rows; i++) begin
        if (32'(i) < 32'(res_m_q[rd_bank_q]) && i / 2 == 32'(drow_q) / 2) begin
          for (int unsigned j = 0; j < Cols; j++) begin
            out_acc_o[32*((i % 2) * Cols + j) +: 32] = rd_bank_q ? res1_q[i][j] : res0_q[i][j];
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      banks_q    <= '0;
      wr_bank_q  <= 1'b0;
      rd_bank_q  <= 1'b0;
      drow_q     <= '0;
      res_m_q[0] <= '0;
      res_m_q[1] <= '0;
    end else begin
      banks_q <= banks_q + 2'(bank_close) - 2'(bank_frees);
      if (bank_close) begin
        res_m_q[wr_bank_q] <= take_m_q;
        wr_bank_q          <= !wr_bank_q;
      end
      if (out_valid_o && out_ready_i) begin
        if (out_last_o) begin
          drow_q    <= '0;
          rd_bank_q <= !rd_bank_q;
        end else begin
          drow_q <= drow_q + RowIdxW'(2);
        end
      end
    end
  end

  assign busy_o = ld_active_q || full_q != '0 || loading_q != '0 || pend_q || take_q ||
                  banks_q != '0;

  `PRIM_ASSERT(StartInRange_A, (start_i && idle_o) |->
               (m_i >= CntW'(1) && 32'(m_i) <= Rows && fh_i >= TapW'(1) && fw_i >= TapW'(1) &&
                32'(fh_i) <= MaxTaps && 32'(fw_i) <= MaxTaps && sw_i >= 2'd1 && sw_i <= 2'd2 &&
                dw_i >= 2'd1 && dw_i <= 2'd2), clk_i, rst_ni,
               ("nnc_dwconv: m, fh, fw, sw or dw out of range"))

  logic unused_dwconv;
  assign unused_dwconv = ^{inp_rdata_i, wgt_rdata_i[Cols*16-1:Cols*8]};

endmodule
