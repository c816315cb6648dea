// Read side of the densify unit: per-stream line buffers with sequential prefetch.
//
// Every array the densify unit reads (the descriptor, the values, each level's segments and
// indices) is read in increasing address order within a phase (scan or walk), so each gets
// a stream: a window of up to Depth consecutive bus beats, [head, next), that are buffered or
// requested. A lookup of beat b in stream s
//   - hits when b's slot (b mod Depth) holds b: the element is answered in the same cycle;
//   - inside the window or at its end (b = next): drops the beats before b (head = b) and
//     waits for b;
//   - outside it (backwards, or beyond the next beat): restarts the window at b.
// The prefetcher keeps every window full: it requests beat `next` of a stream while
// next < head + Depth and next < the stream's end (the end of its array, given with each
// lookup), so it never reads a beat that holds no byte of the arrays being read. The stream
// of the lookup goes first, then the lowest-numbered one. Up to MaxReads reads are in
// flight; responses come back in request order (one AXI ID) and land in their slot, or are
// dropped if the window moved past them meanwhile. A beat answered with an error keeps its
// response code: the error shows only if an element of that beat is looked up.
//
// The unit never writes what it reads (the output may not overlap the inputs), so lines are
// only invalidated at the start of an operation (flush_i) and by moving windows.
`include "prim_assert.svh"

module nnc_densify_reader #(
  parameter int unsigned BusBytes = nnc_isa_pkg::AxiDataBytes,
  parameter int unsigned Streams  = 2 + 2 * nnc_pkg::DensifyMaxRank,  // nnc_densify's
  parameter int unsigned Depth    = nnc_isa_pkg::DensifyBeats,  // beats per stream, a power of two
  parameter int unsigned MaxReads = nnc_isa_pkg::DensifyReads,  // reads in flight, a power of two
  localparam int unsigned BusBits  = BusBytes * 8,
  localparam int unsigned BeatBits = $clog2(BusBytes),
  localparam int unsigned SidW     = $clog2(Streams),
  localparam int unsigned SlotW    = Depth > 1 ? $clog2(Depth) : 1,
  localparam int unsigned BeatW    = 35 - BeatBits  // beat numbers of 35-bit byte bounds
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  input  logic                active_i,     // an operation runs (idle: nothing is evaluated)
  input  logic                flush_i,      // operation start: forget every line and window
  input  logic                stop_i,       // issue no new reads (the operation is ending)
  output logic                idle_o,       // no read in flight

  // Lookup of one element (it must not straddle a beat): answered in the same cycle.
  input  logic                lk_valid_i,
  input  logic [SidW-1:0]     lk_stream_i,
  input  logic [31:0]         lk_addr_i,
  input  logic [1:0]          lk_size_i,    // log2 bytes: 0, 1, 2
  input  logic [34:0]         lk_end_i,     // byte bound (exclusive) of the stream's array
  output logic                lk_hit_o,
  output logic [31:0]         lk_data_o,    // right-justified
  output logic [1:0]          lk_resp_o,    // the beat's AXI response

  // Memory: beat-aligned reads, responses in request order, always accepted.
  output logic                rd_req_valid_o,
  input  logic                rd_req_ready_i,
  output logic [31:0]         rd_req_addr_o,
  input  logic                rd_rsp_valid_i,
  input  logic [BusBits-1:0]  rd_rsp_data_i,
  input  logic [1:0]          rd_rsp_resp_i
);

  typedef logic [BeatW-1:0] beat_t;
  localparam int unsigned CntW = $clog2(MaxReads + 1);
  localparam int unsigned TagW = $clog2(MaxReads);

  // --- Windows and slots ------------------------------------------------------------------
  // Flat vectors (Yosys has no multi-dimensional packed arrays): stream s's window bounds
  // are slice s of head_q, next_q, end_q; its slot k is bit {s, k} (Depth * s + k) of the
  // flags.
  logic [Streams*BeatW-1:0] head_q, next_q, end_q;
  logic [Streams*Depth-1:0] valid_q, pend_q, stale_q;  // stale: pending, then dropped
  beat_t              tag_q  [Streams][Depth];
  logic [BusBits-1:0] data_q [Streams][Depth];
  logic [1:0]         resp_q [Streams][Depth];

  // In-flight reads, oldest first: which slot each response goes to.
  logic [SidW-1:0]  inf_sid_q  [MaxReads];
  logic [SlotW-1:0] inf_slot_q [MaxReads];
  logic [TagW-1:0] inf_wr_q, inf_rd_q;
  logic [CntW-1:0] inf_cnt_q;

  // --- Lookup -------------------------------------------------------------------------------
  beat_t            lk_beat, lk_end_beat;
  logic [SlotW-1:0] lk_slot;
  logic             lk_in_window, lk_restart, lk_advance;
  logic [BusBits-1:0] lk_line;
  beat_t            lk_head, lk_next;  // the looked-up stream's window

  // Evaluated only for a lookup: the unit is idle most of the time, and Verilator evaluates
  // this block on every cycle.
  always_comb begin
    logic [31:0] raw;
    lk_beat     = '0;
    lk_end_beat = '0;
    lk_head     = '0;
    lk_next     = '0;
    lk_slot     = '0;
    lk_hit_o    = 1'b0;
    lk_resp_o   = '0;
    lk_line     = '0;
    raw         = '0;
    lk_data_o   = '0;
    if (lk_valid_i) begin
      lk_beat     = BeatW'(lk_addr_i[31:BeatBits]);
      lk_end_beat = BeatW'((36'(lk_end_i) + 36'(BusBytes) - 36'd1) >> BeatBits);
      lk_head     = head_q[BeatW*32'(lk_stream_i) +: BeatW];
      lk_next     = next_q[BeatW*32'(lk_stream_i) +: BeatW];
      lk_slot     = SlotW'(lk_beat);
      lk_hit_o    = valid_q[{lk_stream_i, lk_slot}] && tag_q[lk_stream_i][lk_slot] == lk_beat;
      lk_resp_o   = resp_q[lk_stream_i][lk_slot];
      lk_line = data_q[lk_stream_i][lk_slot];
      raw     = 32'(lk_line >> (8 * lk_addr_i[BeatBits-1:0]));
      unique case (lk_size_i)
        2'd0:    lk_data_o = {24'd0, raw[7:0]};
        2'd1:    lk_data_o = {16'd0, raw[15:0]};
        default: lk_data_o = raw;
      endcase
    end
  end
  // Inside the window, or the next beat to request: no restart needed.
  assign lk_in_window = lk_beat >= lk_head && lk_beat <= lk_next;
  assign lk_restart   = lk_valid_i && !lk_in_window;
  assign lk_advance   = lk_valid_i && lk_in_window && lk_beat != lk_head;

  // --- Prefetch -----------------------------------------------------------------------------
  logic [Streams-1:0] want;
  logic               issue, found;
  logic [SidW-1:0]    is_sid;
  logic [SlotW-1:0]   is_slot;
  beat_t              is_next;  // its next beat

  always_comb begin
    want = '0;
    if (active_i) begin
      for (int unsigned s = 0; s < Streams; s++) begin
        want[s] = next_q[BeatW*s +: BeatW] < end_q[BeatW*s +: BeatW] &&
                  next_q[BeatW*s +: BeatW] - head_q[BeatW*s +: BeatW] < BeatW'(Depth) &&
                  !pend_q[{SidW'(s), SlotW'(next_q[BeatW*s +: BeatW])}];
      end
    end
    // A stream restarted by this cycle's lookup waits a cycle (its window is being moved).
    if (lk_restart) want[lk_stream_i] = 1'b0;
    found  = 1'b0;
    is_sid = '0;
    if (want[lk_stream_i] && lk_valid_i) begin
      found  = 1'b1;
      is_sid = lk_stream_i;
    end else begin
      for (int s = Streams - 1; s >= 0; s--) begin
        if (want[s]) begin
          found  = 1'b1;
          is_sid = SidW'(s);
        end
      end
    end
    is_next = '0;
    if (found) is_next = next_q[BeatW*32'(is_sid) +: BeatW];
    is_slot = SlotW'(is_next);
  end

  assign rd_req_valid_o = found && !stop_i && !flush_i && 32'(inf_cnt_q) < MaxReads;
  assign rd_req_addr_o  = {is_next[31-BeatBits:0], BeatBits'(0)};
  assign issue          = rd_req_valid_o && rd_req_ready_i;
  assign idle_o         = inf_cnt_q == '0;

  // --- Responses ----------------------------------------------------------------------------
  logic             rsp_take;
  logic [SidW-1:0]  rsp_sid;
  logic [SlotW-1:0] rsp_slot;
  assign rsp_take = rd_rsp_valid_i && inf_cnt_q != '0;
  assign rsp_sid  = inf_sid_q[inf_rd_q];
  assign rsp_slot = inf_slot_q[inf_rd_q];

  // --- State --------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q    <= '0;
      next_q    <= '0;
      end_q     <= '0;
      valid_q   <= '0;
      pend_q    <= '0;
      stale_q   <= '0;
      inf_wr_q  <= '0;
      inf_rd_q  <= '0;
      inf_cnt_q <= '0;
    end else begin
      // A response fills its slot (or frees it if the window moved past it).
      if (rsp_take) begin
        pend_q[{rsp_sid, rsp_slot}]  <= 1'b0;
        stale_q[{rsp_sid, rsp_slot}] <= 1'b0;
        valid_q[{rsp_sid, rsp_slot}] <= !stale_q[{rsp_sid, rsp_slot}];
        inf_rd_q <= TagW'(inf_rd_q + 1'b1);
      end
      if (issue) begin
        pend_q[{is_sid, is_slot}] <= 1'b1;
        next_q[BeatW*is_sid +: BeatW]         <= is_next + BeatW'(1);
        inf_wr_q <= TagW'(inf_wr_q + 1'b1);
      end
      inf_cnt_q <= inf_cnt_q + CntW'(issue) - CntW'(rsp_take);

      // The lookup moves its stream's window; lines it leaves behind are dropped (an
      // arriving or pending one too: it is marked stale).
      if (lk_valid_i) begin
        end_q[BeatW*lk_stream_i +: BeatW] <= lk_end_beat;
        if (lk_restart || lk_advance) begin
          head_q[BeatW*lk_stream_i +: BeatW] <= lk_beat;
          for (int unsigned k = 0; k < Depth; k++) begin
            if (lk_restart || tag_q[lk_stream_i][k] < lk_beat) begin
              valid_q[{lk_stream_i, SlotW'(k)}] <= 1'b0;
              stale_q[{lk_stream_i, SlotW'(k)}] <=
                  pend_q[{lk_stream_i, SlotW'(k)}] &&
                  !(rsp_take && rsp_sid == lk_stream_i && rsp_slot == SlotW'(k));
            end
          end
        end
        if (lk_restart) next_q[BeatW*lk_stream_i +: BeatW] <= lk_beat;
      end

      if (flush_i) begin
        valid_q <= '0;
        stale_q <= pend_q & ~({Streams * Depth{rsp_take}} &
                              ((Streams * Depth)'(1) << (32'(rsp_sid) * Depth + 32'(rsp_slot))));
        end_q   <= '0;
        head_q  <= '0;
        next_q  <= '0;
      end
    end
  end

  // Line contents and in-flight slots: written before they are read, no reset.
  always_ff @(posedge clk_i) begin
    if (rsp_take) begin
      data_q[rsp_sid][rsp_slot] <= rd_rsp_data_i;
      resp_q[rsp_sid][rsp_slot] <= rd_rsp_resp_i;
    end
    if (issue) begin
      tag_q[is_sid][is_slot] <= is_next;
      inf_sid_q[inf_wr_q]    <= is_sid;
      inf_slot_q[inf_wr_q]   <= is_slot;
    end
  end

  `PRIM_ASSERT(RspExpected_A, rd_rsp_valid_i |-> inf_cnt_q != '0, clk_i, rst_ni,
               ("nnc_densify_reader: read response with no read in flight"))

endmodule
