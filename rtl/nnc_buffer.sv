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
// Read latency is one cycle: rdata_o holds a read's window in the cycle after it (and is
// zero in the other cycles). Addresses wrap modulo SizeBytes; callers check bounds.
//
// Each bank is a prim_ram_1r1w_be (synchronous read, a write enable per byte), so synthesis
// maps the buffers to block RAM; the window shifts sit on either side of the banks.
`include "prim_assert.svh"

module nnc_buffer #(
  parameter int unsigned SizeBytes = 16384,  // power of two, at least 4 lines
  parameter int unsigned LineBytes = 32,     // power of two
  // A read with rnarrow_i forms only the window's first NarrowBytes (a power of two, at
  // most LineBytes; the rest of rdata_o is zero): INP's readers but the depthwise unit take
  // 2R of its 8R bytes, and the simulator then shifts a quarter of the bits.
  parameter int unsigned NarrowBytes = LineBytes,
  localparam int unsigned AddrWidth = $clog2(SizeBytes)
) (
  input  logic                      clk_i,

  input  logic                      we_i,
  input  logic [AddrWidth-1:0]      waddr_i,
  input  logic [LineBytes*8-1:0]    wdata_i,  // byte i goes to waddr_i + i
  input  logic [LineBytes-1:0]      wbe_i,    // byte enables, window relative

  input  logic                      re_i,
  input  logic                      rnarrow_i,
  input  logic [AddrWidth-1:0]      raddr_i,
  output logic [LineBytes*8-1:0]    rdata_o   // byte i is raddr_i + i (of the previous cycle)
);

  localparam int unsigned LineBits = LineBytes * 8;
  localparam int unsigned OfsBits  = $clog2(LineBytes);
  localparam int unsigned LineW    = AddrWidth - OfsBits;  // line index
  localparam int unsigned RowW     = LineW - 1;            // row within a bank
  localparam int unsigned BankRows = SizeBytes / LineBytes / 2;

  typedef logic [LineBits-1:0]   line_t;
  typedef logic [LineW-1:0]      line_idx_t;
  typedef logic [RowW-1:0]       row_t;

  // Line l lives in bank l[0] at row l >> 1. The pair (l, l + 1) uses row l >> 1 of the odd
  // bank and this row of the even bank:
  function automatic row_t even_row(line_idx_t l);
    even_row = l[0] ? RowW'((l + 1'b1) >> 1) : l[LineW-1:1];
  endfunction

  // --- Write: the window rotated into place, each bank writing the lanes it holds ---------
  // Lane k of either line of the pair takes window byte (k - offset) mod LineBytes, so both
  // banks get the same rotated data; the byte enables, shifted into a pair of lines, choose.
  // Evaluated only for a write (the rotation is the widest logic of a write).
  line_idx_t              wl;
  logic [OfsBits-1:0]     wofs;
  line_t                  wrot;
  logic [2*LineBytes-1:0] wbe_pair;
  logic [LineBytes-1:0]   ev_wbe, od_wbe;

  assign wl   = waddr_i[AddrWidth-1:OfsBits];
  assign wofs = waddr_i[OfsBits-1:0];
  always_comb begin
    wrot     = '0;
    wbe_pair = '0;
    if (we_i) begin
      wrot     = (wdata_i << (8 * wofs)) | (wdata_i >> (LineBits - 8 * 32'(wofs)));
      wbe_pair = (2*LineBytes)'(wbe_i) << wofs;
    end
  end
  assign ev_wbe = wl[0] ? wbe_pair[2*LineBytes-1:LineBytes] : wbe_pair[LineBytes-1:0];
  assign od_wbe = wl[0] ? wbe_pair[LineBytes-1:0] : wbe_pair[2*LineBytes-1:LineBytes];

  // --- Read: both banks; the pair in line order, the window shifted out of it -------------
  // The banks read synchronously; the line order and the offset of the read wait beside
  // them, and the window is formed from the banks' outputs in the cycle after the read.
  // It is formed in that cycle only (else rdata_o is zero): every user takes a read's data
  // in the cycle after it, and an idle buffer then costs the simulation nothing.
  line_idx_t          rl;
  logic               rvalid_q;  // a read happened in the previous cycle
  logic               rnarrow_q; // it was narrow
  logic               rodd_q;    // its first line was odd
  logic [OfsBits-1:0] rofs_q;    // its offset in its first line
  line_t              ev_rdata, od_rdata;

  assign rl = raddr_i[AddrWidth-1:OfsBits];

  always_ff @(posedge clk_i) begin
    rvalid_q <= re_i;
    if (re_i) begin
      rnarrow_q <= rnarrow_i;
      rodd_q <= rl[0];
      rofs_q <= raddr_i[OfsBits-1:0];
    end
  end

  prim_ram_1r1w_be #(
    .Width (LineBits),
    .Depth (BankRows)
  ) u_even (  // lines 0, 2, 4, ...
    .clk_i,
    .we_i    (ev_wbe != '0),  // zero unless we_i
    .waddr_i (even_row(wl)),
    .wdata_i (wrot),
    .wbe_i   (ev_wbe),
    .re_i,
    .raddr_i (even_row(rl)),
    .rdata_o (ev_rdata)
  );

  prim_ram_1r1w_be #(
    .Width (LineBits),
    .Depth (BankRows)
  ) u_odd (  // lines 1, 3, 5, ...
    .clk_i,
    .we_i    (od_wbe != '0),
    .waddr_i (wl[LineW-1:1]),
    .wdata_i (wrot),
    .wbe_i   (od_wbe),
    .re_i,
    .raddr_i (rl[LineW-1:1]),
    .rdata_o (od_rdata)
  );

  localparam int unsigned NarrowBits = NarrowBytes * 8;
  // The window at byte `ofs` of a line pair; narrow: its first NarrowBytes only, which lie in
  // the pair's 2*NarrowBytes from the NarrowBytes-aligned byte at or below `ofs`.
  function automatic logic [LineBits-1:0] window_of(logic [2*LineBits-1:0] pair,
                                                   logic [OfsBits-1:0] ofs, logic narrow);
    logic [2*NarrowBits-1:0] chunk;
    chunk = '0;
    if (narrow && NarrowBytes < LineBytes) begin
      chunk     = pair[NarrowBits * (32'(ofs) / NarrowBytes) +: 2 * NarrowBits];
      window_of = LineBits'(NarrowBits'(chunk >> (8 * (32'(ofs) % NarrowBytes))));
    end else begin
      window_of = LineBits'(pair >> (8 * ofs));
    end
  endfunction
  always_comb begin
    rdata_o = '0;
    if (rvalid_q) begin
      rdata_o = window_of(rodd_q ? {ev_rdata, od_rdata} : {od_rdata, ev_rdata}, rofs_q, rnarrow_q);
    end
  end

  // --- Assertions ---------------------------------------------------------------------------
  `PRIM_ASSERT_INIT(Pow2_A,
                    (SizeBytes & (SizeBytes - 1)) == 0 && (LineBytes & (LineBytes - 1)) == 0,
                    ("nnc_buffer: SizeBytes and LineBytes must be powers of two"))
  `PRIM_ASSERT_INIT(TwoLinesPerBank_A, SizeBytes >= 4 * LineBytes,
                    ("nnc_buffer: at least two lines per bank"))
  `PRIM_ASSERT_INIT(NarrowInLine_A,
                    NarrowBytes >= 1 && NarrowBytes <= LineBytes &&
                        (NarrowBytes & (NarrowBytes - 1)) == 0,
                    ("nnc_buffer: NarrowBytes must be a power of two within the line"))

endmodule
