// Transposer: blocks of up to Lanes vectors of Elems elements in, the same blocks out one
// element index per beat (beat k: element k of every vector, vector r in lane r). It is the
// piece between INP and the MAC array that GEMM window mode needs (docs/driver.md, "Plan:
// activations resident in device DRAM"): INP then holds pixel vectors (the channels of one
// pixel, the resident channel-tile layout) while the array takes, per beat, one channel of
// 16 output pixels.
//
// Two banks: one fills while the other streams, so one vector in and one beat out per cycle
// keep the array busy when blocks have Elems beats and Lanes vectors. A block ends with its
// Lanes-th vector or earlier with in_last_i (the tail of an output row); the lanes it did not
// write read as zero, so nothing of an earlier block leaks into a short one. Its beat count
// (1..Elems: a last channel tile of fewer than Elems channels) comes with its last vector.
// A pair (in_pair_i) is two vectors at once, lanes r and r + 1 of the block (the window
// fetch reads two short vectors per INP read, ISA 1.10): r + 1 must be a lane of the block.
//
// Verified by `nncosim testbench transpose`; nnc_window_fetch runs it.
`include "prim_assert.svh"

module nnc_transpose
#(
  parameter int unsigned Lanes = nnc_isa_pkg::ArrayRows,
  parameter int unsigned Elems = nnc_isa_pkg::ArrayRows,
  parameter int unsigned ElemW = 16,
  localparam int unsigned LaneIdxW = Lanes > 1 ? $clog2(Lanes) : 1,
  localparam int unsigned BeatIdxW = Elems > 1 ? $clog2(Elems) : 1,
  localparam int unsigned BeatsW   = $clog2(Elems + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,

  input  logic                   in_valid_i,
  output logic                   in_ready_o,
  input  logic [Elems*ElemW-1:0] in_vec_i,    // element k in slice k
  input  logic                   in_pair_i,   // in_vec2_i too, the next lane's vector
  input  logic [Elems*ElemW-1:0] in_vec2_i,
  input  logic                   in_last_i,   // closes the block before its Lanes-th vector
  input  logic [BeatsW-1:0]      in_beats_i,  // with the block's last vector: 1..Elems

  output logic                   out_valid_o,
  input  logic                   out_ready_i,
  output logic [Lanes*ElemW-1:0] out_beat_o,  // element k of vector r in slice r
  output logic                   out_last_o   // the block's last beat
);

  // Even and odd lanes in two memories, so a pair (one lane of each) is one write to each
  // and both stay single-write-port memories (LUT RAM, not flip-flops). Bank b, lane r at
  // entry b*Lanes/2 + r/2 of memory r % 2: plain vectors (Yosys reads these as written).
  localparam int unsigned Half = Lanes / 2;
  logic [Elems*ElemW-1:0] even_q [2*Half];
  logic [Elems*ElemW-1:0] odd_q [2*Half];
  logic [Lanes-1:0]       written_q [2];  // lanes of the bank's block
  logic [BeatsW-1:0]      beats_q [2];
  logic [1:0]             full_q;         // the bank holds a block not yet streamed out

  logic                wbank_q, rbank_q;
  logic [LaneIdxW-1:0] wlane_q;
  logic [BeatIdxW-1:0] rbeat_q;

  localparam int unsigned EntryW = Half > 1 ? $clog2(2 * Half) : 1;
  logic [EntryW-1:0] rbase, weven, wodd;
  logic              wodd_lane;  // the input's first lane is odd
  assign wodd_lane = wlane_q[0];
  // An odd first lane's pair partner is the next even lane, (r + 1) / 2.
  assign weven = EntryW'(wbank_q) * EntryW'(Half) + EntryW'(wlane_q >> 1) + EntryW'(wodd_lane);
  assign wodd  = EntryW'(wbank_q) * EntryW'(Half) + EntryW'(wlane_q >> 1);
  assign rbase = EntryW'(rbank_q) * EntryW'(Half);

  logic in_fire, out_fire, block_closes;
  logic [LaneIdxW:0] wnext;  // the lane after this input's vectors
  assign in_ready_o   = !full_q[wbank_q];
  assign in_fire      = in_valid_i && in_ready_o;
  assign wnext        = (LaneIdxW+1)'(wlane_q) + (in_pair_i ? (LaneIdxW+1)'(2) : (LaneIdxW+1)'(1));
  assign block_closes = in_last_i || wnext == (LaneIdxW+1)'(Lanes);
  assign out_valid_o  = full_q[rbank_q];
  assign out_last_o   = BeatsW'(rbeat_q) + 1'b1 == beats_q[rbank_q];
  assign out_fire     = out_valid_o && out_ready_i;

  // Only the write port touches the vectors: no reset, no per-cycle copy.
  always_ff @(posedge clk_i) begin
    if (in_fire && (!wodd_lane || in_pair_i)) even_q[weven] <= wodd_lane ? in_vec2_i : in_vec_i;
    if (in_fire && (wodd_lane || in_pair_i)) odd_q[wodd] <= wodd_lane ? in_vec_i : in_vec2_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      full_q       <= '0;
      wbank_q      <= 1'b0;
      rbank_q      <= 1'b0;
      wlane_q      <= '0;
      rbeat_q      <= '0;
      written_q[0] <= '0;
      written_q[1] <= '0;
      beats_q[0]   <= '0;
      beats_q[1]   <= '0;
    end else begin
      // Reading and writing never share a bank (one needs it full, the other empty).
      if (out_fire) begin
        if (out_last_o) begin
          full_q[rbank_q] <= 1'b0;
          rbank_q         <= !rbank_q;
          rbeat_q         <= '0;
        end else begin
          rbeat_q <= rbeat_q + 1'b1;
        end
      end
      if (in_fire) begin
        // The block's first vector starts its lane set afresh.
        written_q[wbank_q] <= (wlane_q == '0 ? '0 : written_q[wbank_q])
                              | (Lanes'(in_pair_i ? 3 : 1) << wlane_q);
        if (block_closes) begin
          full_q[wbank_q]  <= 1'b1;
          beats_q[wbank_q] <= in_beats_i;
          wbank_q          <= !wbank_q;
          wlane_q          <= '0;
        end else begin
          wlane_q <= LaneIdxW'(wnext);
        end
      end
    end
  end

  // Beat k of the bank being read: element k of each written lane, zero elsewhere (and all
  // zero while no bank is full: the lane multiplexers are then not evaluated, which keeps
  // an idle transposer cheap to simulate).
  always_comb begin
    out_beat_o = '0;
    if (out_valid_o) begin
      for (int unsigned r = 0; r < Lanes; r++) begin
        if (written_q[rbank_q][r]) begin
          out_beat_o[r*ElemW +: ElemW] = r % 2 == 1
              ? odd_q[rbase + EntryW'(r / 2)][rbeat_q*ElemW +: ElemW]
              : even_q[rbase + EntryW'(r / 2)][rbeat_q*ElemW +: ElemW];
        end
      end
    end
  end

  `PRIM_ASSERT(PairInBlock_A, (in_fire && in_pair_i) |->
               (LaneIdxW+1)'(wlane_q) + (LaneIdxW+1)'(1) < (LaneIdxW+1)'(Lanes), clk_i, rst_ni,
               ("nnc_transpose: a pair's second vector past the block's last lane"))
  `PRIM_ASSERT_INIT(EvenLanes_A, Lanes % 2 == 0, ("nnc_transpose: Lanes must be even"))
  // A block's beat count is 1..Elems; more would read past its vectors.
  `PRIM_ASSERT(BeatsInRange_A, (in_fire && block_closes) |->
               (in_beats_i >= BeatsW'(1) && in_beats_i <= BeatsW'(Elems)), clk_i, rst_ni,
               ("nnc_transpose: a block's beat count must be 1..Elems"))

endmodule
