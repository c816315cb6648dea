// One row walker of the DMA: steps through the bus beats of a transfer of up to count2
// planes of count1 rows of row_len bytes (strided in DRAM and in the buffer), and tells
// which bytes of its current beat belong to the row, where they go in the buffer, and how
// long a burst from here may be. nnc_dma runs four: the load engine's AR and R walkers,
// the store engine's AW and buffer-read walkers.
//
// A module (not functions of a walker struct, as it once was): Yosys's SV reader takes no
// struct-typed function arguments.
module nnc_dma_walker #(
  parameter int unsigned BusBytes = nnc_isa_pkg::AxiDataBytes,
  localparam int unsigned BeatBits = $clog2(BusBytes),
  localparam int unsigned BAddrW   = nnc_isa_pkg::BufAddrBits
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  // The transfer (nnc_dma's decoded command), field by field.
  input  logic [31:0]         dram_addr_i,
  input  logic [31:0]         dram_stride1_i,
  input  logic [31:0]         dram_stride2_i,
  input  logic [BAddrW-1:0]   buf_addr_i,
  input  logic [BAddrW-1:0]   buf_stride1_i,
  input  logic [BAddrW-1:0]   buf_stride2_i,
  input  logic [15:0]         count1_i,
  input  logic [11:0]         count2_i,
  input  logic [19:0]         row_len_i,    // bytes

  input  logic                start_i,    // go to the transfer's first beat (before advance_i)
  input  logic                advance_i,  // move on by beats_i beats
  input  logic [8:0]          beats_i,    // 1 for a data walker, a burst for an address walker

  output logic [31:0]         beat_o,     // the current beat's address
  output logic                done_o,     // every row walked
  output logic [8:0]          burst_o,    // beats of a burst from here: to the row end, at
                                          // most 256, never across 4 KiB
  output logic [BeatBits:0]   lo_o,       // bytes [lo, hi) of the current beat are the row's
  output logic [BeatBits:0]   hi_o,
  output logic [BAddrW-1:0]   buf_addr_o  // buffer address of byte lo
);


  // The walker's position.
  typedef struct packed {
    logic [31:0] plane_dram;  // start of the current plane's first row
    logic [31:0] row_dram;    // start of the current row
    logic [BAddrW-1:0] plane_buf;
    logic [BAddrW-1:0] row_buf;
    logic [15:0] y;
    logic [11:0] z;
    logic [31:0] beat;        // current beat address within the row
    logic        done;        // every row walked
  } walk_t;

  walk_t       w_q;
  logic [31:0] row_last_byte, row_last_beat;
  logic [31:0] next_row_dram, next_plane_dram;  // the first byte of the next row, plane

  assign next_row_dram   = w_q.row_dram + dram_stride1_i;
  assign next_plane_dram = w_q.plane_dram + dram_stride2_i;

  assign row_last_byte = w_q.row_dram + 32'(row_len_i) - 32'd1;
  assign row_last_beat = {row_last_byte[31:BeatBits], BeatBits'(0)};

  // The next position: the transfer's first beat (start), the beat beats_i on, or the first
  // beat of the next row (or done) when that passes the row's end. Written in the clocked
  // process, only when the walker moves: a hold default (w_d = w_q) would copy the whole
  // position on every cycle of the simulation, and most cycles a walker stands still.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w_q <= '0;
    end else if (start_i) begin
      w_q.plane_dram <= dram_addr_i;
      w_q.row_dram   <= dram_addr_i;
      w_q.plane_buf  <= buf_addr_i;
      w_q.row_buf    <= buf_addr_i;
      w_q.y          <= '0;
      w_q.z          <= '0;
      w_q.beat       <= {dram_addr_i[31:BeatBits], BeatBits'(0)};
      w_q.done       <= 1'b0;
    end else if (advance_i) begin
      if (w_q.beat + (32'(9'(beats_i - 9'd1)) << BeatBits) == row_last_beat) begin
        if (w_q.y + 16'd1 < count1_i) begin
          w_q.y        <= w_q.y + 16'd1;
          w_q.row_dram <= next_row_dram;
          w_q.row_buf  <= w_q.row_buf + buf_stride1_i;
          w_q.beat     <= {next_row_dram[31:BeatBits], BeatBits'(0)};
        end else if (w_q.z + 12'd1 < count2_i) begin
          w_q.y          <= '0;
          w_q.z          <= w_q.z + 12'd1;
          w_q.plane_dram <= next_plane_dram;
          w_q.plane_buf  <= w_q.plane_buf + buf_stride2_i;
          w_q.row_dram   <= next_plane_dram;
          w_q.row_buf    <= w_q.plane_buf + buf_stride2_i;
          w_q.beat       <= {next_plane_dram[31:BeatBits], BeatBits'(0)};
        end else begin
          w_q.done <= 1'b1;
          w_q.beat <= {w_q.row_dram[31:BeatBits], BeatBits'(0)};
        end
      end else begin
        w_q.beat <= w_q.beat + (32'(beats_i) << BeatBits);
      end
    end
  end

  assign beat_o = w_q.beat;
  assign done_o = w_q.done;

  always_comb begin
    logic [31:0] left_row;
    logic [12:0] left_4k;
    left_row = ((row_last_beat - w_q.beat) >> BeatBits) + 32'd1;
    left_4k  = (13'd4096 - {1'b0, w_q.beat[11:0]}) >> BeatBits;
    burst_o  = left_row < 32'(left_4k) ? 9'(left_row) : 9'(left_4k);
  end

  assign lo_o = w_q.beat == {w_q.row_dram[31:BeatBits], BeatBits'(0)}
                ? (BeatBits+1)'(w_q.row_dram[BeatBits-1:0]) : '0;
  assign hi_o = w_q.beat == row_last_beat ? (BeatBits+1)'(row_last_byte[BeatBits-1:0]) + 1'b1
                                          : (BeatBits+1)'(BusBytes);
  assign buf_addr_o = w_q.row_buf + BAddrW'(w_q.beat + 32'(lo_o) - w_q.row_dram);

endmodule
