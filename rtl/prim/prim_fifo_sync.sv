// Synchronous FIFO of Depth entries, Width bits each, with a fall-through head: rdata_o is
// the oldest entry in the same cycle it becomes valid, and a push and a pop may happen in
// the same cycle (even on a full FIFO: the pop frees the slot at the clock edge).
//
// No ready/valid flow control of its own: the owner keeps its own count of what is in
// flight (count_o) and never pushes into a full FIFO or pops an empty one (asserted). The
// storage has no reset: an entry is read only after it was written.
`include "prim_assert.svh"

module prim_fifo_sync #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 4,  // a power of two, at least 2
  localparam int unsigned PtrW = $clog2(Depth),
  localparam int unsigned CntW = PtrW + 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  input  logic             push_i,
  input  logic [Width-1:0] wdata_i,
  input  logic             pop_i,
  output logic [Width-1:0] rdata_o,   // the oldest entry (while count_o != 0)
  output logic [CntW-1:0]  count_o    // entries held
);

  logic [Width-1:0] mem_q [Depth];
  logic [PtrW-1:0]  wr_q, rd_q;
  logic [CntW-1:0]  cnt_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q  <= '0;
      rd_q  <= '0;
      cnt_q <= '0;
    end else begin
      if (push_i) wr_q <= wr_q + 1'b1;
      if (pop_i)  rd_q <= rd_q + 1'b1;
      cnt_q <= cnt_q + CntW'(push_i) - CntW'(pop_i);
    end
  end

  always_ff @(posedge clk_i) begin
    if (push_i) mem_q[wr_q] <= wdata_i;
  end

  assign rdata_o = mem_q[rd_q];
  assign count_o = cnt_q;

  `PRIM_ASSERT(NoOverflow_A, !(push_i && !pop_i && cnt_q == CntW'(Depth)), clk_i, rst_ni,
               ("prim_fifo_sync: push into a full FIFO"))
  `PRIM_ASSERT(NoUnderflow_A, !(pop_i && cnt_q == '0), clk_i, rst_ni,
               ("prim_fifo_sync: pop from an empty FIFO"))
  `PRIM_ASSERT_INIT(DepthPow2_A, Depth >= 2 && (Depth & (Depth - 1)) == 0,
                    ("prim_fifo_sync: Depth must be a power of two, at least 2"))

endmodule
