// On-chip SRAM buffer, byte addressed, with one write and one read port that each move a
// window of up to LineBytes bytes starting at ANY byte address in one cycle.
//
// Why: the DMA moves bus beats to unaligned buffer addresses and the datapath reads rows at
// arbitrary offsets; byte interleaving over LineBytes banks makes every window hit each
// bank at most once, so no realignment engine or second cycle is needed. Byte i of a
// window at address A lives in bank (A+i) % LineBytes, row (A+i) / LineBytes.
//
// Read latency is one cycle. Addresses wrap modulo SizeBytes; callers check bounds.
module nnc_buffer #(
  parameter int unsigned SizeBytes = 16384,  // power of two
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

  localparam int unsigned Banks     = LineBytes;
  localparam int unsigned BankBits  = $clog2(Banks);
  localparam int unsigned Depth     = SizeBytes / Banks;
  localparam int unsigned RowWidth  = AddrWidth - BankBits;

  // --- Write: rotate the window onto the banks ---------------------------------------------
  logic [BankBits-1:0]   wofs;
  logic [RowWidth-1:0]   wrow;
  logic [2*LineBytes*8-1:0] wdata_dbl;
  logic [2*LineBytes-1:0]   wbe_dbl;
  logic [LineBytes*8-1:0] wdata_rot;
  logic [LineBytes-1:0]   wbe_rot;

  assign wofs = waddr_i[BankBits-1:0];
  assign wrow = waddr_i[AddrWidth-1:BankBits];
  // Rotate left by wofs bytes: bank b receives window byte (b - wofs) mod Banks.
  assign wdata_dbl = {wdata_i, wdata_i} << (8 * wofs);
  assign wbe_dbl   = {wbe_i, wbe_i} << wofs;
  assign wdata_rot = wdata_dbl[2*LineBytes*8-1 -: LineBytes*8];
  assign wbe_rot   = wbe_dbl[2*LineBytes-1 -: LineBytes];

  // --- Read: each bank reads its row; the result is rotated back ---------------------------
  logic [BankBits-1:0]    rofs, rofs_q;
  logic [RowWidth-1:0]    rrow;
  logic [LineBytes*8-1:0] rdata_banks;
  logic [2*LineBytes*8-1:0] rdata_dbl;

  assign rofs = raddr_i[BankBits-1:0];
  assign rrow = raddr_i[AddrWidth-1:BankBits];

  for (genvar b = 0; b < Banks; b++) begin : g_bank
    logic [7:0] mem [Depth];
    logic [RowWidth-1:0] wrow_b, rrow_b;
    logic [7:0] rdata_q;
    // Banks below the window's start offset hold bytes of the next row.
    assign wrow_b = wrow + RowWidth'(b < int'(wofs));
    assign rrow_b = rrow + RowWidth'(b < int'(rofs));

    always_ff @(posedge clk_i) begin
      if (we_i && wbe_rot[b]) begin
        mem[wrow_b] <= wdata_rot[8*b +: 8];
      end
    end
    always_ff @(posedge clk_i) begin
      if (re_i) begin
        rdata_q <= mem[rrow_b];
      end
    end
    assign rdata_banks[8*b +: 8] = rdata_q;
  end

  always_ff @(posedge clk_i) begin
    if (re_i) begin
      rofs_q <= rofs;
    end
  end

  // Rotate right by the read offset: window byte i comes from bank (i + rofs) mod Banks.
  assign rdata_dbl = {rdata_banks, rdata_banks} >> (8 * rofs_q);
  assign rdata_o   = rdata_dbl[LineBytes*8-1:0];

  // The rotations keep one half of their doubled operands.
  logic unused_halves;
  assign unused_halves = ^{wdata_dbl[LineBytes*8-1:0], wbe_dbl[LineBytes-1:0],
                           rdata_dbl[2*LineBytes*8-1:LineBytes*8]};

  // --- Assertions ---------------------------------------------------------------------------
  // pragma translate_off
  initial begin
    assert ((SizeBytes & (SizeBytes - 1)) == 0 && (LineBytes & (LineBytes - 1)) == 0)
      else $error("nnc_buffer: SizeBytes and LineBytes must be powers of two");
    assert (SizeBytes >= 2 * LineBytes) else $error("nnc_buffer: at least two lines");
  end
  // pragma translate_on

endmodule
