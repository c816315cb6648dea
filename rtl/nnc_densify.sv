// Densify unit: turns a TACO-style sparse tensor (NNAPI DENSIFY: traversal order, block
// map, per-level DENSE or SPARSE_CSR with segments and indices, up to 8 levels) into its
// dense form in memory. It only moves elements (8, 16 or 32 bits), so any element type works.
//
// One operation (the DENSIFY command): the metadata comes from a descriptor in memory
// (docs/rtl-datapath.md has the layout), the buffers and the element size from the command:
//   1. load    the descriptor (header + one 8-word record per level);
//   2. check   ranks, traversal order, block map, formats, sizes; compute the dense shape,
//              its element count and each level's weight (dense offset per coordinate step);
//   3. scan    every SPARSE_CSR level's segments and indices once, as the reference's
//              validator does (positions per level, segments start at 0, never decrease,
//              end at the indices count, indices inside the level), and the values count;
//   4. fill    the whole output with the fill value (zero / the zero point);
//   5. walk    the levels depth first and write each stored value at its dense offset.
// Any error ends the operation with done_o and an error code; errors found in steps 1-3
// leave the output untouched. The walk re-checks every bound it relies on (segment and
// index ranges, value index, dense offset < output count), so even metadata that changes
// under the unit cannot make it read a beat outside the described arrays or write outside
// the output. The output must not overlap the inputs (lines are not snooped; if it does,
// reads may see the bytes before or after the fill, still all inside bounds). Not checked: duplicate indices within a segment (the reference rejects them; here
// the later value wins, still inside the output).
//
// Memory: whole bus beats. Reads go through nnc_densify_reader (a few buffered beats per
// array, prefetched in address order, several reads in flight), so sequential elements hit
// on chip; the fill writes whole beats under byte strobes, a stored value one element. The
// operation ends once all its reads are back.
`include "prim_assert.svh"

module nnc_densify
#(
  parameter int unsigned BusBytes    = nnc_isa_pkg::AxiDataBytes,
  parameter int unsigned StreamDepth = nnc_isa_pkg::DensifyBeats,  // buffered beats per array (reader)
  parameter int unsigned MaxReads    = nnc_isa_pkg::DensifyReads,  // reads in flight (reader)
  localparam int unsigned BusBits    = BusBytes * 8,
  localparam int unsigned BeatBits   = $clog2(BusBytes)
) (
  input  logic         clk_i,
  input  logic         rst_ni,

  // Control: start_i and the operands are taken while idle; err_o is valid with done_o and
  // held until the next start.
  input  logic         start_i,
  input  logic [31:0]  desc_addr_i,    // byte address of the descriptor
  input  logic [31:0]  values_addr_i,  // byte address of the stored values
  input  logic [31:0]  out_addr_i,     // byte address of the dense output
  input  logic [31:0]  out_bytes_i,    // output size: must be the dense size exactly
  input  logic [1:0]            elem_size_i,    // nnc_pkg::elem_size_e, or 3: an error
  output logic         busy_o,
  output logic         done_o,         // one-cycle pulse
  output nnc_pkg::densify_err_e err_o,
  output logic [31:0]  written_o,      // stored values written by the last operation
  // With DensifyErrBus: the byte address of the element access that failed and the AXI
  // response of its beat (0: the element straddles two beats, nothing was sent).
  output logic [31:0]  err_addr_o,
  output logic [1:0]   err_resp_o,
  output logic         rd_wait_o,      // waiting for read data (a stall on memory latency)

  // Reads: beat-aligned, several in flight, responses in request order and always taken.
  output logic                rd_req_valid_o,
  input  logic                rd_req_ready_i,
  output logic [31:0]         rd_req_addr_o,
  input  logic                rd_rsp_valid_i,
  input  logic [BusBits-1:0]  rd_rsp_data_i,
  input  logic [1:0]          rd_rsp_resp_i,

  // Writes: beat-aligned under byte strobes, posted, complete on the handshake.
  output logic                wr_req_valid_o,
  input  logic                wr_req_ready_i,
  output logic [31:0]         wr_req_addr_o,
  output logic [BusBits-1:0]  wr_req_data_o,
  output logic [BusBytes-1:0] wr_req_strb_o
);

  localparam int unsigned MaxLevels = nnc_pkg::DensifyMaxRank;

  typedef enum logic [3:0] {
    StIdle, StRd, StCheck, StShape, StScanLevel, StFill, StEnter, StStep, StCoord,
    StWrite, StDone
  } state_e;

  // What an outstanding read is for: its response handler.
  typedef enum logic [2:0] {
    RdDesc, RdScanSeg, RdScanIdx, RdSegLo, RdSegHi, RdIdx, RdVal
  } rd_kind_e;

  // Per-level registers: level l's word in element l. The level weights are one flat
  // vector (level l in slice l), written whole.
  typedef logic [MaxLevels*32-1:0] per_level_t;

  // --- State ----------------------------------------------------------------------------------
  state_e       state_d, state_q;
  rd_kind_e     rd_kind_d, rd_kind_q;
  logic [31:0]  rd_addr_d, rd_addr_q;
  logic [1:0]   rd_size_d, rd_size_q;  // nnc_pkg::elem_size_e (plain: code 3 may pass)
  nnc_pkg::densify_err_e err_d, err_q;
  logic [31:0]  written_d, written_q;
  logic [31:0]  err_addr_d, err_addr_q;
  logic [1:0]   err_resp_d, err_resp_q;

  // Descriptor.
  logic [31:0]  desc_d, desc_q;
  logic [6:0]   word_d, word_q;         // descriptor word being loaded
  logic [31:0]  levels_d, levels_q;     // n + k
  logic [31:0]  nblk_d, nblk_q;         // k
  logic [1:0]   esize_d, esize_q;      // nnc_pkg::elem_size_e
  logic [31:0]  val_addr_d, val_addr_q, val_cnt_d, val_cnt_q;
  logic [31:0]  out_addr_d, out_addr_q, out_cnt_d, out_cnt_q, out_bytes_d, out_bytes_q;
  logic [31:0]  fill_d, fill_q;
  logic [31:0]  trav_q [MaxLevels], fmt_q [MaxLevels], dim_q [MaxLevels], bmap_q [MaxLevels];
  logic [31:0]  seg_addr_q [MaxLevels], seg_cnt_q [MaxLevels], idx_addr_q [MaxLevels];
  logic [31:0]  idx_cnt_q [MaxLevels];

  // Derived by the checks.
  per_level_t   weight_q;               // dense offset per coordinate step, per level
  logic [31:0]  elems_d, elems_q;       // dense element count (<= 2^31)

  // Scan and fill.
  logic [3:0]   scan_l_d, scan_l_q;
  logic [31:0]  npos_d, npos_q;         // positions of the level above
  logic [31:0]  cnt_d, cnt_q;           // entry being scanned / element being filled
  logic [31:0]  prev_d, prev_q;         // previous segment value
  logic [32:0]  fcur_d, fcur_q;         // fill: address of the beat being written

  // Walk.
  logic [2:0]   lvl_d, lvl_q;
  logic [31:0]  pos_q [MaxLevels], end_q [MaxLevels], first_q [MaxLevels];
  logic [31:0]  partial_q [MaxLevels];
  logic [31:0]  coord_d, coord_q, off_d, off_q, val_d, val_q;

  // --- Descriptor checks and the dense shape -------------------------------------------------
  // Logic of the loaded descriptor, evaluated only in the states that use them (StCheck,
  // StShape), so an idle or walking unit does not recompute them every cycle.
  logic [3:0]  nlev;   // levels, once checked to be 1..8
  logic [3:0]  rank;   // n = levels - k
  assign nlev = levels_q[3:0];
  assign rank = levels_q[3:0] - nblk_q[3:0];

  // The first failing check in the documented order, or DensifyOk.
  nnc_pkg::densify_err_e check_err;  // evaluated in StCheck only
  always_comb begin : desc_check
    logic [MaxLevels-1:0] seen;
    logic trav_ok, bmap_ok, fmt_ok, dim_ok;
    check_err = nnc_pkg::DensifyOk;
    trav_ok = 1'b1;
    bmap_ok = 1'b1;
    fmt_ok  = 1'b1;
    dim_ok  = 1'b1;
    seen    = '0;
    if (state_q == StCheck) begin
      for (int unsigned p = 0; p < MaxLevels; p++) begin
        if (p < 32'(nlev)) begin
          // Grid levels permute [0, n), block levels permute [n, n + k).
          if ($signed(trav_q[p]) < $signed(p < 32'(rank) ? 32'd0 : 32'(rank)) ||
              $signed(trav_q[p]) >= $signed(p < 32'(rank) ? 32'(rank) : 32'(nlev))) begin
            trav_ok = 1'b0;
          end else if (seen[trav_q[p][2:0]]) begin
            trav_ok = 1'b0;
          end else begin
            seen[trav_q[p][2:0]] = 1'b1;
          end
          if (fmt_q[p] > 32'd1) fmt_ok = 1'b0;
          // A DENSE level has no arrays.
          if (fmt_q[p] == 32'd0 && (seg_cnt_q[p] != '0 || idx_cnt_q[p] != '0)) fmt_ok = 1'b0;
          if ($signed(dim_q[p]) < 1) dim_ok = 1'b0;
        end
        if (p < 32'(nblk_q[3:0])) begin
          if ($signed(bmap_q[p]) < 0 || $signed(bmap_q[p]) >= $signed(32'(rank))) bmap_ok = 1'b0;
          if (p > 0 && $signed(bmap_q[p]) <= $signed(bmap_q[(p + MaxLevels - 1) % MaxLevels])) begin
            bmap_ok = 1'b0;
          end
        end
      end
      if (!trav_ok)      check_err = nnc_pkg::DensifyErrTraversal;
      else if (!bmap_ok) check_err = nnc_pkg::DensifyErrBlockMap;
      else if (!fmt_ok)  check_err = nnc_pkg::DensifyErrFormat;
      else if (!dim_ok)  check_err = nnc_pkg::DensifyErrDimension;
      else               check_err = nnc_pkg::DensifyOk;
    end
  end

  // Dense shape, element count and level weights. Only used once the checks above passed,
  // so every index below is in range. (A single-cycle cone: fine for a model; silicon would
  // sequence it over the levels.)
  typedef struct packed {
    logic        ok;
    logic [63:0] elems;
    per_level_t  weight;
  } shape_t;
  // Per-level vectors below are flat (level i in slice i): Yosys has no multi-dimensional
  // packed arrays.

  shape_t shape_now;  // evaluated in StShape only
  always_comb begin : dense_shape
    logic [MaxLevels*64-1:0] shape;
    logic [MaxLevels*32-1:0] blk;
    logic [MaxLevels*64-1:0] stride;
    logic [2:0]  d, t;
    logic        ok;
    logic [63:0] elems;
    per_level_t  weight;
    d      = '0;
    t      = '0;
    ok     = 1'b1;
    elems  = 64'd1;
    weight = '0;
    shape  = '0;
    blk    = '0;
    stride = '0;
    shape_now = '0;
    if (state_q == StShape) begin
      for (int unsigned i = 0; i < MaxLevels; i++) blk[32*i +: 32] = 32'd1;
      for (int unsigned p = 0; p < MaxLevels; p++) begin
        if (p < 32'(rank)) shape[64*trav_q[p][2:0] +: 64] = {32'd0, dim_q[p]};
      end
      for (int unsigned p = 0; p < MaxLevels; p++) begin
        if (p >= 32'(rank) && p < 32'(nlev)) begin
          t                 = 3'(trav_q[p][2:0] - rank[2:0]);
          d                 = bmap_q[t][2:0];
          blk[32*d +: 32]   = dim_q[p];
          shape[64*d +: 64] = shape[64*d +: 64] * {32'd0, dim_q[p]};  // both < 2^31
        end
      end
      for (int unsigned i = 0; i < MaxLevels; i++) begin
        if (i < 32'(rank) && ok) begin
          if (shape[64*i +: 64] > 64'h0000_0000_ffff_ffff) begin
            ok = 1'b0;
          end else begin
            elems = elems * shape[64*i +: 64];  // <= 2^31 * 2^32
            if (elems > 64'h0000_0000_8000_0000) ok = 1'b0;
          end
        end
      end
      // Row-major strides of the dense tensor; with ok every one is <= 2^31.
      for (int i = MaxLevels - 1; i >= 0; i--) begin
        if (i == 32'(rank) - 1) stride[64*i +: 64] = 64'd1;
        else if (i < 32'(rank) - 1) stride[64*i +: 64] = stride[64*((i+1) % MaxLevels) +: 64] *
                                                    shape[64*((i+1) % MaxLevels) +: 64];
      end
      for (int unsigned p = 0; p < MaxLevels; p++) begin
        t = trav_q[p][2:0];
        if (p < 32'(rank)) begin
          weight[32*p +: 32] = 32'(stride[64*t +: 64] * {32'd0, blk[32*t +: 32]});
        end else if (p < 32'(nlev)) begin
          d                  = bmap_q[3'(t - rank[2:0])][2:0];
          weight[32*p +: 32] = 32'(stride[64*d +: 64]);
        end
      end
      shape_now = {ok, elems, weight};
    end
  end

  // --- Reads: element lookups in the reader's streams ----------------------------------------
  // Stream per array: 0 descriptor, 1 values, 2 + l segments of level l, 10 + l indices of
  // level l; each lookup names the end of its array, the prefetcher's bound.
  localparam int unsigned Streams = 2 + 2 * MaxLevels;
  localparam int unsigned SidW    = $clog2(Streams);
  localparam int unsigned OfsW    = BeatBits + 2;  // byte offset in a beat + element bytes

  // The element read of this cycle: StRd's pending one, or the index / value read that StStep
  // and StCoord look up at once (a hit is handled in the same cycle, a miss waits in StRd).
  logic              rq_valid;
  rd_kind_e          rq_kind;
  logic [31:0]       rq_addr;
  logic [1:0]        rq_size;       // nnc_pkg::elem_size_e
  logic              rd_straddle;   // the element crosses a beat boundary: a bus error
  logic [2:0]        rd_lvl;        // level of the array being read
  logic [SidW-1:0]   rd_stream;
  logic [34:0]       rd_end;
  logic              lk_valid, lk_hit, rd_idle;
  logic [31:0]       lk_data;
  logic [1:0]        lk_resp;

  // Only for a read this cycle (the reader ignores the lookup fields otherwise).
  always_comb begin
    rd_straddle = 1'b0;
    rd_lvl      = '0;
    rd_stream   = '0;
    rd_end      = '0;
    if (rq_valid) begin
      rd_straddle = OfsW'(rq_addr[BeatBits-1:0]) + (OfsW'(1) << rq_size) > OfsW'(BusBytes);
      rd_lvl      = rq_kind == RdScanSeg || rq_kind == RdScanIdx ? scan_l_q[2:0] : lvl_q;
      unique case (rq_kind)
        RdDesc: begin
          rd_stream = '0;
          rd_end    = word_q < 7'd8 ? 35'(desc_q) + 35'd16
                                    : 35'(desc_q) + 35'd32 + 35'({levels_q[3:0], 5'd0});
        end
        RdVal: begin
          rd_stream = SidW'(1);
          rd_end    = 35'(val_addr_q) + (35'(val_cnt_q) << esize_q);
        end
        RdScanSeg, RdSegLo, RdSegHi: begin
          rd_stream = SidW'(2 + 32'(rd_lvl));
          rd_end    = 35'(seg_addr_q[rd_lvl]) + {1'b0, seg_cnt_q[rd_lvl], 2'd0};
        end
        default: begin  // indices
          rd_stream = SidW'(2 + MaxLevels + 32'(rd_lvl));
          rd_end    = 35'(idx_addr_q[rd_lvl]) + {1'b0, idx_cnt_q[rd_lvl], 2'd0};
        end
      endcase
    end
  end
  assign lk_valid = rq_valid && !rd_straddle;

  nnc_densify_reader #(
    .BusBytes (BusBytes),
    .Streams  (Streams),
    .Depth    (StreamDepth),
    .MaxReads (MaxReads)
  ) u_reader (
    .clk_i,
    .rst_ni,
    .active_i       (state_q != StIdle),
    .flush_i        (state_q == StIdle && start_i),
    .stop_i         (state_q == StDone),
    .idle_o         (rd_idle),
    .lk_valid_i     (lk_valid),
    .lk_stream_i    (rd_stream),
    .lk_addr_i      (rq_addr),
    .lk_size_i      (rq_size),
    .lk_end_i       (rd_end),
    .lk_hit_o       (lk_hit),
    .lk_data_o      (lk_data),
    .lk_resp_o      (lk_resp),
    .rd_req_valid_o,
    .rd_req_ready_i,
    .rd_req_addr_o,
    .rd_rsp_valid_i,
    .rd_rsp_data_i,
    .rd_rsp_resp_i
  );

  // --- Writes -----------------------------------------------------------------------------------
  // Fill: the beat at fcur_q, bytes inside [out_addr, out_addr + out_bytes), each the fill
  // value's byte for its position in its element. A stored value: one element at wr_addr.
  logic [32:0]         fill_end;
  logic [BusBits-1:0]  fill_data;
  logic [BusBytes-1:0] fill_strb;
  logic [31:0]         wr_addr;
  logic                wr_straddle;
  // Each value is computed only in the state that uses it (StFill, StWrite): the unit is idle
  // most of the time, and Verilator evaluates this block on every cycle.
  always_comb begin
    logic [1:0] emask;
    logic [1:0] lane;
    logic [32:0] a;
    emask       = '0;
    fill_end    = '0;
    fill_data   = '0;
    fill_strb   = '0;
    lane        = '0;
    a           = '0;
    wr_addr     = '0;
    wr_straddle = 1'b0;
    if (state_q == StFill) begin
      emask    = esize_q == nnc_pkg::Elem8 ? 2'd0 : (esize_q == nnc_pkg::Elem16 ? 2'd1 : 2'd3);
      fill_end = {1'b0, out_addr_q} + {1'b0, out_bytes_q};
      for (int unsigned i = 0; i < BusBytes; i++) begin
        lane                = (2'(i) - out_addr_q[1:0]) & emask;
        fill_data[8*i +: 8] = fill_q[8*lane +: 8];
        a                   = fcur_q + 33'(i);
        fill_strb[i]        = a >= {1'b0, out_addr_q} && a < fill_end;
      end
    end
    if (state_q == StWrite) begin
      wr_addr     = out_addr_q + (off_q << esize_q);
      wr_straddle = OfsW'(wr_addr[BeatBits-1:0]) + (OfsW'(1) << esize_q) > OfsW'(BusBytes);
    end
  end

  // --- Main FSM -------------------------------------------------------------------------------
  logic [2:0]  lvl_up;         // lvl - 1
  logic [2:0]  lvl_dn;         // lvl + 1
  logic [31:0] parent;         // position of the level above the one being entered
  logic [31:0] dense_first;    // parent * dim (< 2^31 once the scan passed)
  logic [63:0] coord_off;      // partial + coord * weight
  logic [63:0] npos_next;      // positions * dim for a DENSE level in the scan
  logic [32:0] npos_plus1;
  logic [2:0]  scan_l3;        // the level being scanned (scan_l < levels)
  logic [6:0]  last_word;      // last descriptor word of this operation
  // The walk's and the scan's arithmetic (three multiplies), skipped while idle.
  always_comb begin
    lvl_up      = lvl_q - 3'd1;
    lvl_dn      = lvl_q + 3'd1;
    scan_l3     = scan_l_q[2:0];
    last_word   = 7'(7'd7 + {levels_q[3:0], 3'd0});
    parent      = '0;
    dense_first = '0;
    coord_off   = '0;
    npos_next   = '0;
    npos_plus1  = '0;
    if (state_q != StIdle) begin
      parent      = lvl_q == 3'd0 ? 32'd0 : pos_q[lvl_up];
      dense_first = parent * dim_q[lvl_q];
      coord_off   = {32'd0, partial_q[lvl_q]} + {32'd0, coord_q} * {32'd0, weight_q[32*lvl_q +: 32]};
      npos_next   = {32'd0, npos_q} * {32'd0, dim_q[scan_l3[2:0]]};
      npos_plus1  = {1'b0, npos_q} + 33'd1;
    end
  end

  always_comb begin
    rq_valid = 1'b0;
    rq_kind  = rd_kind_q;
    rq_addr  = rd_addr_q;
    rq_size  = rd_size_q;
    unique case (state_q)
      StRd: rq_valid = 1'b1;
      StStep: begin
        if (pos_q[lvl_q] != end_q[lvl_q] && fmt_q[lvl_q] != 32'd0) begin
          rq_valid = 1'b1;
          rq_kind  = RdIdx;
          rq_addr  = idx_addr_q[lvl_q] + (pos_q[lvl_q] << 2);
          rq_size  = nnc_pkg::Elem32;
        end
      end
      StCoord: begin
        // After the offset and value-count checks (they come first, as documented).
        if (coord_off < {32'd0, out_cnt_q} && {1'b0, lvl_q} == nlev - 4'd1 &&
            pos_q[lvl_q] < val_cnt_q) begin
          rq_valid = 1'b1;
          rq_kind  = RdVal;
          rq_addr  = val_addr_q + (pos_q[lvl_q] << esize_q);
          rq_size  = esize_q;
        end
      end
      default: ;
    endcase
  end

  // Write ports of the per-level registers (one write per array per cycle), so the FSM does
  // not copy them every cycle: a level record word of the descriptor, the level weights, and
  // the walk's pos / end / first / partial entries.
  logic        rec_we;               // descriptor word word_q >= 8 arrives (lk_data)
  logic [5:0]  rec_w;                // its index in the level records: level, field
  logic        weight_we;            // the dense shape was accepted (shape_now.weight)
  logic        pos_we, end_we, first_we, partial_we;
  logic [2:0]  pos_idx, partial_idx; // end and first are written at lvl_q
  logic [31:0] pos_val, end_val, first_val, partial_val;

  assign rec_w = 6'(word_q - 7'd8);

  always_comb begin
    logic [31:0] rsp;
    // Defaults: hold.
    state_d    = state_q;
    rd_kind_d  = rd_kind_q;
    rd_addr_d  = rd_addr_q;
    rd_size_d  = rd_size_q;
    err_d      = err_q;
    written_d  = written_q;
    err_addr_d = err_addr_q;
    err_resp_d = err_resp_q;
    fcur_d     = fcur_q;
    desc_d     = desc_q;
    word_d     = word_q;
    levels_d   = levels_q;
    nblk_d     = nblk_q;
    esize_d    = esize_q;
    val_addr_d = val_addr_q;
    val_cnt_d  = val_cnt_q;
    out_addr_d = out_addr_q;
    out_cnt_d  = out_cnt_q;
    out_bytes_d = out_bytes_q;
    fill_d     = fill_q;
    elems_d    = elems_q;
    scan_l_d   = scan_l_q;
    npos_d     = npos_q;
    cnt_d      = cnt_q;
    prev_d     = prev_q;
    lvl_d      = lvl_q;
    rec_we      = 1'b0;
    weight_we   = 1'b0;
    pos_we      = 1'b0;
    pos_idx     = lvl_q;
    pos_val     = '0;
    end_we      = 1'b0;
    end_val     = '0;
    first_we    = 1'b0;
    first_val   = '0;
    partial_we  = 1'b0;
    partial_idx = lvl_q;
    partial_val = '0;
    coord_d    = coord_q;
    off_d      = off_q;
    val_d      = val_q;

    rsp            = lk_data;

    unique case (state_q)
      StIdle: begin
        if (start_i) begin
          desc_d      = desc_addr_i;
          val_addr_d  = values_addr_i;
          out_addr_d  = out_addr_i;
          out_bytes_d = out_bytes_i;
          out_cnt_d   = out_bytes_i >> elem_size_i;
          esize_d     = elem_size_i;
          err_d       = nnc_pkg::DensifyOk;
          err_resp_d  = '0;
          written_d   = '0;
          word_d      = '0;
          // Unloaded level records must not look valid to the checks.
          levels_d    = '0;
          nblk_d      = '0;
          if (elem_size_i != nnc_pkg::Elem8 && elem_size_i != nnc_pkg::Elem16 &&
              elem_size_i != nnc_pkg::Elem32) begin
            err_d   = nnc_pkg::DensifyErrElemSize;
            state_d = StDone;
          end else begin
            rd_kind_d = RdDesc;
            rd_addr_d = desc_addr_i;
            rd_size_d = nnc_pkg::Elem32;
            state_d   = StRd;
          end
        end
      end

      // An element read that missed: waits here until the reader has its beat (the element
      // is handled below, in the cycle of the hit).
      StRd: ;

      StCheck: begin
        err_d   = check_err;
        state_d = err_d == nnc_pkg::DensifyOk ? StShape : StDone;
      end

      StShape: begin
        if (!shape_now.ok) begin
          err_d   = nnc_pkg::DensifyErrDimension;
          state_d = StDone;
        end else if ({32'd0, out_bytes_q} != shape_now.elems << esize_q) begin
          err_d   = nnc_pkg::DensifyErrOutput;
          state_d = StDone;
        end else begin
          weight_we = 1'b1;
          elems_d   = shape_now.elems[31:0];
          scan_l_d = '0;
          npos_d   = 32'd1;
          state_d  = StScanLevel;
        end
      end

      StScanLevel: begin
        if (scan_l_q == nlev) begin
          if (val_cnt_q != npos_q) begin
            err_d   = nnc_pkg::DensifyErrValues;
            state_d = StDone;
          end else begin
            fcur_d  = {1'b0, out_addr_q[31:BeatBits], BeatBits'(0)};
            state_d = StFill;
          end
        end else if (fmt_q[scan_l3[2:0]] == 32'd0) begin
          if (npos_next > {32'd0, elems_q}) begin
            err_d   = nnc_pkg::DensifyErrIndex;  // only repeated indices above can get here
            state_d = StDone;
          end else begin
            npos_d   = npos_next[31:0];
            scan_l_d = scan_l_q + 4'd1;
          end
        end else if ({1'b0, seg_cnt_q[scan_l3[2:0]]} != npos_plus1) begin
          err_d   = nnc_pkg::DensifyErrSegment;
          state_d = StDone;
        end else begin
          cnt_d     = '0;
          prev_d    = '0;
          rd_kind_d = RdScanSeg;
          rd_addr_d = seg_addr_q[scan_l3[2:0]];
          state_d   = StRd;
        end
      end

      StFill: begin
        if (wr_req_ready_i) begin
          fcur_d = fcur_q + 33'(BusBytes);
          if (fcur_q + 33'(BusBytes) >= fill_end) begin
            lvl_d        = '0;
            partial_we   = 1'b1;
            partial_idx  = '0;
            state_d      = StEnter;
          end
        end
      end

      StEnter: begin
        if (fmt_q[lvl_q] == 32'd0) begin
          first_we       = 1'b1;
          first_val      = dense_first;
          pos_we         = 1'b1;
          pos_val        = dense_first;
          end_we         = 1'b1;
          end_val        = dense_first + dim_q[lvl_q];
          state_d        = StStep;
        end else if ({1'b0, parent} + 33'd1 >= {1'b0, seg_cnt_q[lvl_q]}) begin
          err_d   = nnc_pkg::DensifyErrSegment;
          state_d = StDone;
        end else begin
          rd_kind_d = RdSegLo;
          rd_addr_d = seg_addr_q[lvl_q] + (parent << 2);
          rd_size_d = nnc_pkg::Elem32;
          state_d   = StRd;
        end
      end

      StStep: begin
        if (pos_q[lvl_q] == end_q[lvl_q]) begin
          if (lvl_q == '0) begin
            state_d = StDone;  // the walk is complete
          end else begin
            lvl_d         = lvl_up;
            pos_we        = 1'b1;
            pos_idx       = lvl_up;
            pos_val       = pos_q[lvl_up] + 32'd1;
          end
        end else if (fmt_q[lvl_q] == 32'd0) begin
          coord_d = pos_q[lvl_q] - first_q[lvl_q];
          state_d = StCoord;
        end
        // else: the index read (rq_*), handled below
      end

      StCoord: begin
        if (coord_off >= {32'd0, out_cnt_q}) begin
          err_d   = nnc_pkg::DensifyErrOutput;
          state_d = StDone;
        end else if ({1'b0, lvl_q} == nlev - 4'd1) begin
          if (pos_q[lvl_q] >= val_cnt_q) begin
            err_d   = nnc_pkg::DensifyErrValues;
            state_d = StDone;
          end else begin
            off_d = coord_off[31:0];  // the value read (rq_*) is handled below
          end
        end else begin
          partial_we        = 1'b1;
          partial_idx       = lvl_dn;
          partial_val       = coord_off[31:0];
          lvl_d             = lvl_dn;
          state_d           = StEnter;
        end
      end

      StWrite: begin
        if (wr_straddle) begin
          err_d      = nnc_pkg::DensifyErrBus;
          err_addr_d = wr_addr;
          err_resp_d = 2'b00;
          state_d    = StDone;
        end else if (wr_req_ready_i) begin
          pos_we       = 1'b1;
          pos_val      = pos_q[lvl_q] + 32'd1;
          written_d    = written_q + 32'd1;
          state_d      = StStep;
        end
      end

      StDone: begin
        // Reads still in flight (prefetches) come back before the operation ends.
        if (rd_idle) state_d = StIdle;
      end

      default: begin
        state_d = StIdle;
      end
    endcase

    // The element read of this cycle (rq_*): an error, the handler of its kind on a hit (it
    // looks up the next element from StRd, or moves on), or a wait in StRd on a miss.
    if (rq_valid) begin
      if (rd_straddle || (lk_hit && lk_resp != 2'b00)) begin
        err_d      = nnc_pkg::DensifyErrBus;
        err_addr_d = rq_addr;
        err_resp_d = rd_straddle ? 2'b00 : lk_resp;
        state_d    = StDone;
      end else if (lk_hit) begin
        unique case (rq_kind)
          RdDesc: begin
            if (word_q < 7'd8) begin
              // Words 4..7 are reserved (never used).
              unique case (word_q[1:0])
                2'd0:    levels_d  = rsp;
                2'd1:    nblk_d    = rsp;
                2'd2:    val_cnt_d = rsp;
                default: fill_d    = rsp;
              endcase
            end else begin
              rec_we = 1'b1;
            end
            if (word_q == 7'd3 &&
                (levels_q == '0 || levels_q > 32'(MaxLevels) || nblk_q >= levels_q ||
                 {nblk_q, 1'b0} > {1'b0, levels_q})) begin
              err_d   = nnc_pkg::DensifyErrRank;
              state_d = StDone;
            end else if (word_q >= 7'd8 && word_q == last_word) begin
              state_d = StCheck;
            end else begin
              // The header's reserved words 4..7 are skipped.
              word_d    = word_q == 7'd3 ? 7'd8 : word_q + 7'd1;
              rd_addr_d = desc_q + {23'd0, word_d, 2'd0};
              state_d   = StRd;
            end
          end

          RdScanSeg: begin
            // cnt = q, reading segments[q] for q = 0 .. npos.
            if ((cnt_q == '0 && rsp != '0) || (cnt_q != '0 && $signed(rsp) < $signed(prev_q)) ||
                (cnt_q == npos_q && rsp != idx_cnt_q[scan_l3[2:0]])) begin
              err_d   = nnc_pkg::DensifyErrSegment;
              state_d = StDone;
            end else if (cnt_q != npos_q) begin
              prev_d    = rsp;
              cnt_d     = cnt_q + 32'd1;
              rd_addr_d = seg_addr_q[scan_l3[2:0]] + ((cnt_q + 32'd1) << 2);
              state_d   = StRd;
            end else if (idx_cnt_q[scan_l3[2:0]] > elems_q) begin
              // More positions than dense elements: some index repeats.
              err_d   = nnc_pkg::DensifyErrIndex;
              state_d = StDone;
            end else if (idx_cnt_q[scan_l3[2:0]] == '0) begin
              npos_d   = '0;
              scan_l_d = scan_l_q + 4'd1;
              state_d  = StScanLevel;
            end else begin
              cnt_d     = '0;
              rd_kind_d = RdScanIdx;
              rd_addr_d = idx_addr_q[scan_l3[2:0]];
              state_d   = StRd;
            end
          end

          RdScanIdx: begin
            if ($signed(rsp) < 0 || $signed(rsp) >= $signed(dim_q[scan_l3[2:0]])) begin
              err_d   = nnc_pkg::DensifyErrIndex;
              state_d = StDone;
            end else if (cnt_q + 32'd1 == idx_cnt_q[scan_l3[2:0]]) begin
              npos_d   = idx_cnt_q[scan_l3[2:0]];
              scan_l_d = scan_l_q + 4'd1;
              state_d  = StScanLevel;
            end else begin
              cnt_d     = cnt_q + 32'd1;
              rd_addr_d = idx_addr_q[scan_l3[2:0]] + ((cnt_q + 32'd1) << 2);
              state_d   = StRd;
            end
          end

          RdSegLo: begin
            pos_we       = 1'b1;
            pos_val      = rsp;
            rd_kind_d    = RdSegHi;
            rd_addr_d    = seg_addr_q[lvl_q] + ((parent + 32'd1) << 2);
            state_d      = StRd;
          end

          RdSegHi: begin
            if ($signed(pos_q[lvl_q]) < 0 || $signed(rsp) < $signed(pos_q[lvl_q]) ||
                rsp > idx_cnt_q[lvl_q]) begin
              err_d   = nnc_pkg::DensifyErrSegment;
              state_d = StDone;
            end else begin
              end_we       = 1'b1;
              end_val      = rsp;
              state_d      = StStep;
            end
          end

          RdIdx: begin
            if ($signed(rsp) < 0 || $signed(rsp) >= $signed(dim_q[lvl_q])) begin
              err_d   = nnc_pkg::DensifyErrIndex;
              state_d = StDone;
            end else begin
              coord_d = rsp;
              state_d = StCoord;
            end
          end

          default: begin  // RdVal
            val_d   = rsp;
            state_d = StWrite;
          end
        endcase
      end else begin
        rd_kind_d = rq_kind;
        rd_addr_d = rq_addr;
        rd_size_d = rq_size;
        state_d   = StRd;
      end
    end
  end

  // --- Flops ----------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= StIdle;
      err_q      <= nnc_pkg::DensifyOk;
      written_q  <= '0;
      err_addr_q <= '0;
      err_resp_q <= '0;
    end else begin
      state_q    <= state_d;
      err_q      <= err_d;
      written_q  <= written_d;
      err_addr_q <= err_addr_d;
      err_resp_q <= err_resp_d;
    end
  end

  // Everything else is loaded before it is used in an operation: no reset needed. An idle unit
  // without a start holds every register (the FSM's defaults), so they load only while an
  // operation runs or starts.
  always_ff @(posedge clk_i) begin
    if (state_q != StIdle || start_i) begin
      rd_kind_q   <= rd_kind_d;
      rd_addr_q   <= rd_addr_d;
      rd_size_q   <= rd_size_d;
      desc_q      <= desc_d;
      word_q      <= word_d;
      levels_q    <= levels_d;
      nblk_q      <= nblk_d;
      esize_q     <= esize_d;
      val_addr_q  <= val_addr_d;
      val_cnt_q   <= val_cnt_d;
      out_addr_q  <= out_addr_d;
      out_cnt_q   <= out_cnt_d;
      out_bytes_q <= out_bytes_d;
      fill_q      <= fill_d;
      elems_q     <= elems_d;
      scan_l_q    <= scan_l_d;
      npos_q      <= npos_d;
      cnt_q       <= cnt_d;
      prev_q      <= prev_d;
      fcur_q      <= fcur_d;
      lvl_q       <= lvl_d;
      coord_q     <= coord_d;
      off_q       <= off_d;
      val_q       <= val_d;
    end
    if (rec_we) begin
      unique case (rec_w[2:0])
        3'd0:    trav_q[rec_w[5:3]]     <= lk_data;
        3'd1:    fmt_q[rec_w[5:3]]      <= lk_data;
        3'd2:    dim_q[rec_w[5:3]]      <= lk_data;
        3'd3:    bmap_q[rec_w[5:3]]     <= lk_data;
        3'd4:    seg_addr_q[rec_w[5:3]] <= lk_data;
        3'd5:    seg_cnt_q[rec_w[5:3]]  <= lk_data;
        3'd6:    idx_addr_q[rec_w[5:3]] <= lk_data;
        default: idx_cnt_q[rec_w[5:3]]  <= lk_data;
      endcase
    end
    if (weight_we)  weight_q <= shape_now.weight;
    if (pos_we)     pos_q[pos_idx] <= pos_val;
    if (end_we)     end_q[lvl_q] <= end_val;
    if (first_we)   first_q[lvl_q] <= first_val;
    if (partial_we) partial_q[partial_idx] <= partial_val;
  end

  // Requests and done depend on the state only (no path from the ready inputs).
  assign wr_req_valid_o = state_q == StFill || (state_q == StWrite && !wr_straddle);
  always_comb begin
    wr_req_addr_o = fcur_q[31:0];
    wr_req_data_o = fill_data;
    wr_req_strb_o = fill_strb;
    if (state_q == StWrite) begin  // a stored value: shifted only while writing one
      wr_req_addr_o = {wr_addr[31:BeatBits], BeatBits'(0)};
      wr_req_data_o = BusBits'(val_q) << (8 * wr_addr[BeatBits-1:0]);
      wr_req_strb_o = BusBytes'({{2{esize_q == nnc_pkg::Elem32}}, esize_q != nnc_pkg::Elem8, 1'b1})
                      << wr_addr[BeatBits-1:0];
    end
  end
  assign done_o         = state_q == StDone && rd_idle;

  assign busy_o        = state_q != StIdle;
  assign err_o         = err_q;
  assign written_o     = written_q;
  assign err_addr_o    = err_addr_q;
  assign err_resp_o    = err_resp_q;
  assign rd_wait_o     = (lk_valid && !lk_hit) || (state_q == StDone && !rd_idle);

  // --- Assertions ---------------------------------------------------------------------------
  // Every write lands inside the output (the walk's own bound checks make this hold).
  `PRIM_ASSERT(WriteInOutput_A, (wr_req_valid_o && state_q == StWrite) |-> off_q < out_cnt_q,
               clk_i, rst_ni, ("nnc_densify: write beyond the output"))

endmodule
