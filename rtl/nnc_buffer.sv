// On-chip SRAM buffer, byte addressed, with one write and one read port that each move a
// window of up to LineBytes bytes starting at ANY byte address in one cycle.
//
// Why: the DMA moves bus beats to unaligned buffer addresses and the datapath reads rows at
// arbitrary offsets. The buffer is made of lines of LineBytes bytes, even lines in one
// SRAM bank and odd lines in another (each one line wide, with byte write enables). A
// window at byte address A covers the end of line A / LineBytes and the start of the next
// line, which is always in the other bank: every window reads or writes each bank at most
// once, so no realignment engine or second cycle is needed.
//
// Read latency is one cycle; rdata_o changes only after a read. Addresses wrap modulo
// SizeBytes; callers check bounds.
//
// Simulation cost: both ports do their work inside the clocked process, under their
// enables, so an idle port costs nothing in the Verilated model.
module nnc_buffer #(
  parameter int unsigned SizeBytes = 16384,  // power of two, at least 4 lines
  parameter int unsigned LineBytes = 32,     // power of two
  localparam int unsigned AddrWidth = $clog2(SizeBytes)
) (
  input  logic                      clk_i,

  input  logic                      we_i,
  input  logic [AddrWidth-1:0]      waddr_i,
  input  logic [LineBytes*8-1:0]    wdata_i,  // byte i goes to waddr_i + i
  input  logic [LineBytes-1:0]      wbe_i,    // byte enables, window relative

  input  logic                      re_i,
  input  logic [AddrWidth-1:0]      raddr_i,
  output logic [LineBytes*8-1:0]    rdata_o   // byte i is raddr_i + i (of the previous cycle)
);

  localparam int unsigned LineBits = LineBytes * 8;
  localparam int unsigned OfsBits  = $clog2(LineBytes);
  localparam int unsigned LineW    = AddrWidth - OfsBits;  // line index
  localparam int unsigned RowW     = LineW - 1;            // row within a bank
  localparam int unsigned BankRows = SizeBytes / LineBytes / 2;

  typedef logic [LineBits-1:0]   line_t;
  typedef logic [2*LineBits-1:0] pair_t;   // line L in the low half, line L + 1 in the high half
  typedef logic [LineW-1:0]      line_idx_t;
  typedef logic [RowW-1:0]       row_t;

  line_t mem_even [BankRows];  // lines 0, 2, 4, ...
  line_t mem_odd  [BankRows];  // lines 1, 3, 5, ...

  // Line l lives in bank l[0] at row l >> 1. The pair (l, l + 1) uses row l >> 1 of the odd
  // bank and this row of the even bank:
  function automatic row_t even_row(line_idx_t l);
    return l[0] ? row_t'((l + 1'b1) >> 1) : l[LineW-1:1];
  endfunction

  // Bit mask of the enabled bytes of a window.
  function automatic line_t byte_mask(logic [LineBytes-1:0] be);
    line_t m;
    for (int unsigned b = 0; b < LineBytes; b++) m[8*b +: 8] = {8{be[b]}};
    return m;
  endfunction

  // --- Write: the window shifted into a pair of lines, each written under its byte mask ----
  always_ff @(posedge clk_i) begin
    if (we_i) begin
      line_idx_t l;
      pair_t     data, mask;
      line_t     ev_data, ev_mask, od_data, od_mask;
      l    = waddr_i[AddrWidth-1:OfsBits];
      data = pair_t'(wdata_i) << (8 * waddr_i[OfsBits-1:0]);
      mask = pair_t'(byte_mask(wbe_i)) << (8 * waddr_i[OfsBits-1:0]);
      if (!l[0]) begin
        ev_data = data[LineBits-1:0];         ev_mask = mask[LineBits-1:0];
        od_data = data[2*LineBits-1:LineBits]; od_mask = mask[2*LineBits-1:LineBits];
      end else begin
        od_data = data[LineBits-1:0];         od_mask = mask[LineBits-1:0];
        ev_data = data[2*LineBits-1:LineBits]; ev_mask = mask[2*LineBits-1:LineBits];
      end
      if (ev_mask != '0) begin
        mem_even[even_row(l)] <= (mem_even[even_row(l)] & ~ev_mask) | (ev_data & ev_mask);
      end
      if (od_mask != '0) begin
        mem_odd[l[LineW-1:1]] <= (mem_odd[l[LineW-1:1]] & ~od_mask) | (od_data & od_mask);
      end
    end
  end

  // --- Read: both banks, the pair in line order, the window shifted out of it --------------
  line_t rdata_q;
  always_ff @(posedge clk_i) begin
    if (re_i) begin
      line_idx_t l;
      line_t     ev, od;
      pair_t     pair;
      l    = raddr_i[AddrWidth-1:OfsBits];
      ev   = mem_even[even_row(l)];
      od   = mem_odd[l[LineW-1:1]];
      pair = l[0] ? {ev, od} : {od, ev};
      rdata_q <= line_t'(pair >> (8 * raddr_i[OfsBits-1:0]));
    end
  end

  assign rdata_o = rdata_q;

  // --- Assertions ---------------------------------------------------------------------------
  // pragma translate_off
  initial begin
    assert ((SizeBytes & (SizeBytes - 1)) == 0 && (LineBytes & (LineBytes - 1)) == 0)
      else $error("nnc_buffer: SizeBytes and LineBytes must be powers of two");
    assert (SizeBytes >= 4 * LineBytes) else $error("nnc_buffer: at least two lines per bank");
  end
  // pragma translate_on

endmodule
