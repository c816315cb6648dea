// Simple dual-port RAM: one write port with a write enable per byte, one read port with a
// synchronous read (rdata_o is the word at raddr_i of the cycle re_i was set, held until the
// next read). A read of a word being written in the same cycle returns its old contents.
//
// Written so synthesis infers block RAM: the array is only indexed by the port addresses,
// the write is a per-byte select (mapped to true byte write enables, see below) and the
// read is registered under its enable. The storage has no reset.
`include "prim_assert.svh"

module prim_ram_1r1w_be #(
  parameter int unsigned Width = 64,    // bits, a multiple of 8
  parameter int unsigned Depth = 512,   // words
  localparam int unsigned Bytes = Width / 8,
  localparam int unsigned AddrW = Depth > 1 ? $clog2(Depth) : 1
) (
  input  logic             clk_i,

  input  logic             we_i,
  input  logic [AddrW-1:0] waddr_i,
  input  logic [Width-1:0] wdata_i,
  input  logic [Bytes-1:0] wbe_i,

  input  logic             re_i,
  input  logic [AddrW-1:0] raddr_i,
  output logic [Width-1:0] rdata_o
);

  // Block RAM even when the array is shallow (the PRM buffer's banks are 32 words deep,
  // which synthesis would otherwise put in LUT RAM with a register beside it).
  (* ram_style = "block" *) logic [Width-1:0] mem [Depth];
  logic [Width-1:0] rdata_q;

  // The write as a per-byte select between the new and the old word: synthesis turns the
  // select into the RAM's byte write enables (Yosys's memory feedback pass; an AND/OR mask
  // of the old word would stay a read-modify-write), and Verilator simulates one word write.
  // A block variable, not a function: Verilator clears a function's temporaries every cycle.
  always_ff @(posedge clk_i) begin
    if (we_i) begin
      logic [Width-1:0] word;
      word = mem[waddr_i];
      for (int unsigned b = 0; b < Bytes; b++) begin
        if (wbe_i[b]) word[8*b +: 8] = wdata_i[8*b +: 8];
      end
      mem[waddr_i] <= word;
    end
  end

  always_ff @(posedge clk_i) begin
    if (re_i) rdata_q <= mem[raddr_i];
  end

  assign rdata_o = rdata_q;

  `PRIM_ASSERT_INIT(WidthBytes_A, Width % 8 == 0, ("prim_ram_1r1w_be: Width must be whole bytes"))

endmodule
