// Output-stationary systolic MAC array of Rows x Cols nnc_pe (docs/rtl-datapath.md).
//
// Stream a tile as K beats: beat k carries column k of the Rows x K activation tile and
// row k of the K x Cols weight tile; the tile's last beat has in_last_i set. The array
// subtracts the zero points at its edge, skews row r by r cycles and column c by c cycles
// internally, and every PE(r,c) sums (a[r][k] - za) * (w[k][c] - zw) over k. When a tile
// closes, its sums move to per-PE result registers and the next tile accumulates at once;
// the results then drain one row per cycle (row 0 first) on the out_* port.
//
// Throughput: a tile's last beat is accepted at least max(Rows, Cols) enabled cycles after
// the previous tile's (so a row drains before the next tile overwrites it and two rows
// never finish in the same cycle); tiles with K >= max(Rows, Cols) stream with no stall.
// A held output (out_valid_o && !out_ready_i) stalls the whole array, which keeps every
// internal schedule fixed in terms of enabled cycles.
module nnc_mac_array
  import nnc_pkg::*;
#(
  parameter int unsigned Rows = 16,
  parameter int unsigned Cols = 16,
  localparam int unsigned RowIdxWidth = Rows > 1 ? $clog2(Rows) : 1
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,

  // Operand beats. Per beat (not per tile) so a tile may change them; normally constant.
  input  logic                                 in_valid_i,
  output logic                                 in_ready_o,
  input  logic                                 in_last_i,        // last k of the tile
  input  logic [Rows-1:0][15:0]                in_act_i,         // a[r][k]
  input  logic [Cols-1:0][15:0]                in_wgt_i,         // w[k][c]
  input  logic                                 in_wide_i,        // 16-bit operands (else bits 7:0)
  input  logic                                 in_act_signed_i,
  input  logic                                 in_wgt_signed_i,
  input  logic signed [16:0]                   in_act_zp_i,
  input  logic signed [16:0]                   in_wgt_zp_i,

  // Drain: one row of a closed tile per beat, rows 0..Rows-1 in order.
  output logic                                 out_valid_o,
  input  logic                                 out_ready_i,
  output logic [RowIdxWidth-1:0]               out_row_o,
  output logic                                 out_last_o,       // row Rows-1: tile complete
  output logic [Cols-1:0][AccWidth-1:0]        out_acc_o,        // signed sums

  output logic                                 idle_o            // nothing in flight
);

  localparam int unsigned Spacing = Rows > Cols ? Rows : Cols;
  localparam int unsigned CntWidth = $clog2(Spacing + 1);

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
  function automatic logic signed [OperandWidth-1:0] to_operand(
      logic [15:0] x, logic wide, logic is_signed, logic signed [16:0] zp);
    logic signed [16:0] v;
    if (wide) v = is_signed ? 17'(signed'(x))      : {1'b0, x};
    else      v = is_signed ? 17'(signed'(x[7:0])) : {9'd0, x[7:0]};
    return OperandWidth'(v) - OperandWidth'(zp);
  endfunction

  // --- Skew: row r and column c enter r and c cycles late -----------------------------------
  // pe_a[r][c] / pe_w[r][c] / tags are the inputs of PE(r,c); index Cols / Rows is the output
  // of the last PE of a row / column.
  logic signed [OperandWidth-1:0] pe_a     [Rows][Cols+1];
  logic signed [OperandWidth-1:0] pe_w     [Rows+1][Cols];
  logic                           pe_valid [Rows][Cols+1];
  logic                           pe_last  [Rows][Cols+1];
  logic signed [AccWidth-1:0]     pe_res   [Rows][Cols];

  // Tags (valid, last) are the same for every row, just later: one shared shift register.
  logic [Rows-1:0][1:0] tag_d, tag_q;
  if (Rows > 1) begin : g_tag_multi
    assign tag_d = en ? {tag_q[Rows-2:0], {in_fire, in_fire && in_last_i}} : tag_q;
  end else begin : g_tag_single
    assign tag_d = en ? {in_fire, in_fire && in_last_i} : tag_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tag_q <= '0;
    end else begin
      tag_q <= tag_d;
    end
  end

  for (genvar r = 0; r < Rows; r++) begin : g_row_skew
    // Depth r + 1: the edge register plus r skew stages. Bubbles carry stale data, which the
    // tags mask.
    logic [r:0][OperandWidth-1:0] chain_d, chain_q;
    logic signed [OperandWidth-1:0] edge_val;
    assign edge_val = to_operand(in_act_i[r], in_wide_i, in_act_signed_i, in_act_zp_i);
    if (r == 0) begin : g_first
      assign chain_d = en ? edge_val : chain_q;
    end else begin : g_later
      assign chain_d = en ? {chain_q[r-1:0], edge_val} : chain_q;
    end
    always_ff @(posedge clk_i) begin
      chain_q <= chain_d;
    end
    assign pe_a[r][0]     = chain_q[r];
    assign pe_valid[r][0] = tag_q[r][1];
    assign pe_last[r][0]  = tag_q[r][0];
  end

  for (genvar c = 0; c < Cols; c++) begin : g_col_skew
    logic [c:0][OperandWidth-1:0] chain_d, chain_q;
    logic signed [OperandWidth-1:0] edge_val;
    assign edge_val = to_operand(in_wgt_i[c], in_wide_i, in_wgt_signed_i, in_wgt_zp_i);
    if (c == 0) begin : g_first
      assign chain_d = en ? edge_val : chain_q;
    end else begin : g_later
      assign chain_d = en ? {chain_q[c-1:0], edge_val} : chain_q;
    end
    always_ff @(posedge clk_i) begin
      chain_q <= chain_d;
    end
    assign pe_w[0][c] = chain_q[c];
  end

  // --- The PE grid --------------------------------------------------------------------------
  for (genvar r = 0; r < Rows; r++) begin : g_pe_row
    for (genvar c = 0; c < Cols; c++) begin : g_pe_col
      nnc_pe u_pe (
        .clk_i,
        .rst_ni,
        .en_i    (en),
        .a_i     (pe_a[r][c]),
        .w_i     (pe_w[r][c]),
        .valid_i (pe_valid[r][c]),
        .last_i  (pe_last[r][c]),
        .a_o     (pe_a[r][c+1]),
        .w_o     (pe_w[r+1][c]),
        .valid_o (pe_valid[r][c+1]),
        .last_o  (pe_last[r][c+1]),
        .res_o   (pe_res[r][c])
      );
    end
  end

  // --- Drain ----------------------------------------------------------------------------------
  // Row r's results are complete when the last tag leaves its last column; that happens for
  // at most one row per cycle (the Spacing rule), rows of a tile in order.
  logic [Rows-1:0]                row_done;
  logic                           any_done;
  logic [RowIdxWidth-1:0]         done_row;
  logic                           out_valid_d, out_valid_q;
  logic [RowIdxWidth-1:0]         out_row_d, out_row_q;
  logic [Cols-1:0][AccWidth-1:0]  out_acc_d, out_acc_q;

  always_comb begin
    any_done = 1'b0;
    done_row = '0;
    for (int unsigned r = 0; r < Rows; r++) begin
      row_done[r] = pe_valid[r][Cols] && pe_last[r][Cols];
      if (row_done[r]) begin
        any_done = 1'b1;
        done_row = RowIdxWidth'(r);
      end
    end
  end

  always_comb begin
    out_valid_d = out_valid_q;
    out_row_d   = out_row_q;
    out_acc_d   = out_acc_q;
    if (en) begin
      out_valid_d = any_done;
      out_row_d   = done_row;
      for (int unsigned c = 0; c < Cols; c++) out_acc_d[c] = pe_res[done_row][c];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
    end else begin
      out_valid_q <= out_valid_d;
    end
  end

  always_ff @(posedge clk_i) begin
    out_row_q <= out_row_d;
    out_acc_q <= out_acc_d;
  end

  assign out_valid_o = out_valid_q;
  assign out_row_o   = out_row_q;
  assign out_last_o  = out_row_q == RowIdxWidth'(Rows - 1);
  assign out_acc_o   = out_acc_q;

  // Idle: no beat anywhere in the skew, the grid or the output register.
  logic busy;
  always_comb begin
    busy = out_valid_q;
    for (int unsigned r = 0; r < Rows; r++) begin
      busy |= tag_q[r][1];
      for (int unsigned c = 1; c <= Cols; c++) busy |= pe_valid[r][c];
    end
  end
  assign idle_o = !busy;

  // --- Assertions ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  // The Spacing rule keeps row completions one per cycle.
  OneRowDone_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(row_done))
    else $error("nnc_mac_array: two rows finished in the same cycle");
`endif

endmodule
