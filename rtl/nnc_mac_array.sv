// Output-stationary MAC array of Rows x Cols processing elements (docs/rtl-datapath.md).
//
// Stream a tile as K beats: beat k carries column k of the Rows x K activation tile and
// row k of the K x Cols weight tile; the tile's last beat has in_last_i set. The array
// subtracts the zero points at its edge, broadcasts activation r along row r and weight c
// down column c, and every PE(r,c) sums (a[r][k] - za) * (w[k][c] - zw) over k in its own
// accumulator. When a tile closes, its sums move to one of two result banks and the next
// tile accumulates at once; the results then drain one row per cycle (row 0 first) on the
// out_* port.
//
// Timing is that of a systolic array with skewed rows and columns: row r of a tile leaves
// Cols + 2 + r cycles after the tile's last beat was accepted. A tag shift register (one
// stage per anti-diagonal r + c of such an array) times the drain; the two result banks
// hold a tile's sums until its last row has left.
//
// Throughput: a tile's last beat is accepted at least max(Rows, Cols) enabled cycles after
// the previous tile's (so rows of consecutive tiles never finish in the same cycle, and a
// bank is reused only after its last row has drained); tiles with K >= max(Rows, Cols)
// stream with no stall. A held output (out_valid_o && !out_ready_i) stalls the whole array,
// which keeps every internal schedule fixed in terms of enabled cycles.
//
// Why broadcast and result banks rather than operands travelling through per-PE registers:
// the results and the timing are the same, and Verilator simulates it about 7x faster (no
// per-PE operand copies, one sign extension per row and column instead of two per PE).
`include "prim_assert.svh"

module nnc_mac_array
#(
  parameter int unsigned Rows = nnc_isa_pkg::ArrayRows,
  parameter int unsigned Cols = nnc_isa_pkg::ArrayCols,
  localparam int unsigned RowIdxWidth = Rows > 1 ? $clog2(Rows) : 1
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,

  // Operand beats. Per beat (not per tile) so a tile may change them; normally constant.
  input  logic                                 in_valid_i,
  output logic                                 in_ready_o,
  input  logic                                 in_last_i,        // last k of the tile
  input  logic [Rows*16-1:0]                   in_act_i,         // a[r][k] in bits 16r+15:16r
  input  logic [Cols*16-1:0]                   in_wgt_i,         // w[k][c] in bits 16c+15:16c
  input  logic                                 in_act_wide_i,    // 16-bit activations (else bits 7:0)
  input  logic                                 in_wgt_wide_i,    // 16-bit weights (else bits 7:0)
  input  logic                                 in_act_signed_i,
  input  logic                                 in_wgt_signed_i,
  input  logic signed [16:0]                   in_act_zp_i,
  input  logic signed [16:0]                   in_wgt_zp_i,

  // Drain: one row of a closed tile per beat, rows 0..Rows-1 in order.
  output logic                                 out_valid_o,
  input  logic                                 out_ready_i,
  output logic [RowIdxWidth-1:0]               out_row_o,
  output logic                                 out_last_o,       // row Rows-1: tile complete
  output logic [Cols*nnc_pkg::AccWidth-1:0]    out_acc_o,        // signed sums, column c in
                                                                 // slice c; held between rows

  output logic                                 idle_o            // nothing in flight
);

  localparam int unsigned Spacing  = Rows > Cols ? Rows : Cols;
  localparam int unsigned CntWidth = $clog2(Spacing + 1);
  localparam int unsigned Diag     = Rows + Cols;  // tag stages: edge, then one per anti-diagonal

  // --- Flow control -------------------------------------------------------------------------
  logic en;        // the array advances
  logic in_fire;
  logic [CntWidth-1:0] since_last_d, since_last_q;  // enabled cycles since a last beat

  assign en         = !(out_valid_o && !out_ready_i);
  assign in_ready_o = en && (!in_last_i || since_last_q >= CntWidth'(Spacing));
  assign in_fire    = in_valid_i && in_ready_o;

  always_comb begin
    since_last_d = since_last_q;
    if (en) begin
      if (in_fire && in_last_i) begin
        since_last_d = CntWidth'(1);
      end else if (since_last_q < CntWidth'(Spacing)) begin
        since_last_d = since_last_q + CntWidth'(1);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      since_last_q <= CntWidth'(Spacing);
    end else begin
      since_last_q <= since_last_d;
    end
  end

  // --- Edge: zero points off, 18-bit signed operands ----------------------------------------
  function automatic logic signed [nnc_pkg::OperandWidth-1:0] to_operand(
      logic [15:0] x, logic wide, logic is_signed, logic signed [16:0] zp);
    logic signed [16:0] v;
    if (wide) v = is_signed ? 17'(signed'(x))      : {1'b0, x};
    else      v = is_signed ? 17'(signed'(x[7:0])) : {9'd0, x[7:0]};
    to_operand = nnc_pkg::OperandWidth'(v) - nnc_pkg::OperandWidth'(zp);
  endfunction

  // Operands of the accepted beat; only read under its tag, so they load on a transfer only.
  logic signed [nnc_pkg::OperandWidth-1:0] act_q [Rows];
  logic signed [nnc_pkg::OperandWidth-1:0] wgt_q [Cols];
  always_ff @(posedge clk_i) begin
    if (en && in_fire) begin
      for (int unsigned r = 0; r < Rows; r++) begin
        act_q[r] <= to_operand(in_act_i[16*r +: 16], in_act_wide_i, in_act_signed_i, in_act_zp_i);
      end
      for (int unsigned c = 0; c < Cols; c++) begin
        wgt_q[c] <= to_operand(in_wgt_i[16*c +: 16], in_wgt_wide_i, in_wgt_signed_i, in_wgt_zp_i);
      end
    end
  end

  // --- Tags ---------------------------------------------------------------------------------
  // Stage 0 holds the beat the PEs take this cycle; stage r + Cols the one whose row r
  // completes (where a systolic array's beat would leave row r's last PE).
  logic [Diag-1:0] tvalid_q, tlast_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tvalid_q <= '0;
      tlast_q  <= '0;
    end else if (en) begin
      tvalid_q <= {tvalid_q[Diag-2:0], in_fire};
      tlast_q  <= {tlast_q[Diag-2:0], in_fire && in_last_i};
    end
  end

  // --- The PE grid --------------------------------------------------------------------------
  // PE(r,c): acc_q[r][c] and its two result registers res0_q[r][c] and res1_q[r][c].
  // Each PE multiplies two 18-bit signed operands: one 18 x 18 multiplier (a DSP48E1 with
  // its accumulator) in synthesis. The operands are sign-extended once per row and column,
  // so each PE's product is one 64-bit multiply for Verilator (a narrower signed multiply
  // sign-extends both operands in every PE: 40 % of bench_gemm's speed); synthesis strips
  // the copies of the sign bit (scripts/synth.sh checks one DSP per PE) and keeps the low
  // AccWidth bits.
  logic signed [63:0] act_x [Rows];
  logic signed [63:0] wgt_x [Cols];
  always_comb begin
    for (int unsigned r = 0; r < Rows; r++) act_x[r] = 64'(act_q[r]);
    for (int unsigned c = 0; c < Cols; c++) wgt_x[c] = 64'(wgt_q[c]);
  end

  logic                take, close;   // the PEs take a beat / the tile's last one
  logic                wr_bank_q;     // bank of the next tile to close
  logic [nnc_pkg::AccWidth-1:0] acc_q [Rows][Cols];
  // One array per bank, each element written at a constant index (a bank index in the write
  // would make Yosys build one memory with a write port per PE, which its memory passes take
  // quadratic time over); the drain selects its row by comparison (an indexed read of a
  // [Rows][Cols] array becomes, per column, a shifter across every PE's bits in Yosys).
  logic [nnc_pkg::AccWidth-1:0] res0_q [Rows][Cols];
  logic [nnc_pkg::AccWidth-1:0] res1_q [Rows][Cols];

  assign take  = en && tvalid_q[0];
  assign close = take && tlast_q[0];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned r = 0; r < Rows; r++) begin
        for (int unsigned c = 0; c < Cols; c++) acc_q[r][c] <= '0;
      end
    end else if (take) begin
      for (int unsigned r = 0; r < Rows; r++) begin
        for (int unsigned c = 0; c < Cols; c++) begin
          acc_q[r][c] <= close ? '0 : acc_q[r][c] + nnc_pkg::AccWidth'(act_x[r] * wgt_x[c]);
        end
      end
    end
  end

  // Result registers need no reset: a row is only read after its tile closed.
  always_ff @(posedge clk_i) begin
    if (close && !wr_bank_q) begin
      for (int unsigned r = 0; r < Rows; r++) begin
        for (int unsigned c = 0; c < Cols; c++) begin
          res0_q[r][c] <=
              acc_q[r][c] + nnc_pkg::AccWidth'(act_x[r] * wgt_x[c]);
        end
      end
    end
    if (close && wr_bank_q) begin
      for (int unsigned r = 0; r < Rows; r++) begin
        for (int unsigned c = 0; c < Cols; c++) begin
          res1_q[r][c] <=
              acc_q[r][c] + nnc_pkg::AccWidth'(act_x[r] * wgt_x[c]);
        end
      end
    end
  end

  // --- Drain ----------------------------------------------------------------------------------
  // Row r of a tile is complete when its last tag reaches stage r + Cols; that happens for at
  // most one row per cycle (the Spacing rule), rows of a tile in order, tiles in order (so
  // the bank to read flips after each tile's last row).
  logic [Rows-1:0]                row_done;
  logic                           any_done;
  logic [RowIdxWidth-1:0]         done_row;
  logic                           rd_bank_q;
  logic                           out_valid_q;
  logic [RowIdxWidth-1:0]         out_row_q;
  logic [Cols*nnc_pkg::AccWidth-1:0] out_acc_q;

  always_comb begin
    any_done = 1'b0;
    done_row = '0;
    for (int unsigned r = 0; r < Rows; r++) begin
      row_done[r] = tvalid_q[r+Cols] && tlast_q[r+Cols];
      if (row_done[r]) begin
        any_done = 1'b1;
        done_row = RowIdxWidth'(r);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
      wr_bank_q   <= 1'b0;
      rd_bank_q   <= 1'b0;
    end else if (en) begin
      out_valid_q <= any_done;
      if (close) wr_bank_q <= !wr_bank_q;
      if (row_done[Rows-1]) rd_bank_q <= !rd_bank_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) out_row_q <= done_row;
    if (en && any_done) begin
      for (int unsigned r = 0; r < Rows; r++) begin
        if (done_row == RowIdxWidth'(r)) begin
          for (int unsigned c = 0; c < Cols; c++) begin
            out_acc_q[nnc_pkg::AccWidth*c +: nnc_pkg::AccWidth] <=
                rd_bank_q ? res1_q[r][c] : res0_q[r][c];
          end
        end
      end
    end
  end

  assign out_valid_o = out_valid_q;
  assign out_row_o   = out_row_q;
  assign out_last_o  = out_row_q == RowIdxWidth'(Rows - 1);
  assign out_acc_o   = out_acc_q;

  // Idle: no beat in any tag stage or in the output register.
  assign idle_o = !(out_valid_q || |tvalid_q);

  // --- Assertions ---------------------------------------------------------------------------
  // The Spacing rule keeps row completions one per cycle.
  `PRIM_ASSERT(OneRowDone_A, $onehot0(row_done), clk_i, rst_ni,
               ("nnc_mac_array: two rows finished in the same cycle"))

endmodule
