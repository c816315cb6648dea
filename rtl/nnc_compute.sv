// Compute unit of the NPU: executes the compute queue's GEMM, DWCONV, REQUANT_STORE, ELTWISE,
// POOL and DENSIFY commands on the datapath blocks (nnc_mac_array, nnc_dwconv, nnc_requant,
// nnc_eltwise_engine, nnc_pool_engine, nnc_densify). ELTWISE and POOL (ISA 1.7) run alone;
// REQUANT_STORE runs beside the tiles behind it (ISA 1.10, below).
//
// GEMM: streams k beats from INP and WGT (one line each per cycle) into the MAC array (a WGT
// line is C bytes with wgt8, int16 activations times 8-bit weights, else C * operand bytes); the
// array's drained rows go to ACC through a two-stage read-add-write (accumulate) or a plain
// write. In window mode (ISA 1.5) the A beats come from nnc_window_fetch, which reads pixel
// vectors through INP's read port and transposes them; each beat's WGT line is read when its
// A beat is there. A window GEMM is accepted while the one ahead of it still streams, as soon
// as the fetch has issued that one's reads, so back-to-back window GEMMs pay the transposer's
// first fill once. ACC ports are C*8 bytes wide so a row moves in one access in both element sizes:
//
//   int32 row (acc64 = 0):  | lane 0 | lane 1 | ... | lane C-1 |  (unused, bytes off)  |
//                             4 bytes each, C*4 bytes under the byte enables
//   int64 row (acc64 = 1):  | lane 0          | lane 1          | ... | lane C-1        |
//                             8 bytes each: the array's 48-bit sums sign-extended
//
// Accumulation adds word by word: each 64-bit word is one int64 lane or two int32 lanes
// (a 64-bit adder with its carry into bit 32 cut), so both layouts share the adders. GEMMs overlap: the next one streams while the previous one drains, which is what
// keeps the array busy for back-to-back tiles. DENSIFY, ELTWISE and POOL wait until the
// unit is empty.
//
// REQUANT_STORE beside the tiles (ISA 1.10): it is accepted while GEMM/DWCONV tiles are in
// flight and reads ACC once those ahead of it have drained (it reads what they wrote); the
// tiles behind it stream and drain meanwhile, so the array does not wait for the requant
// unit. A tile whose ACC rows the REQUANT_STORE reads, or whose INP operand its to_inp rows
// write, is not accepted until the REQUANT_STORE completes, so every command still sees the
// effects of the ones before it and none of the ones after. The drain's accumulate reads
// take ACC's read port first. A tile behind it that drains first has its done pulse held
// and released after the REQUANT_STORE's, so completions stay in command order.
//
// A second REQUANT_STORE (ISA 1.15): accepted while one is in flight, it waits in a pending
// slot and starts once that one has completed and the done pulses held behind it have left;
// the tiles behind it are accepted meanwhile (checked against both REQUANT_STOREs' spans),
// and the done pulses of those behind the pending one that drain first are held in a count
// of their own, released after its completion. So the queue no longer stops at a
// REQUANT_STORE that arrives while another runs.
//
// REQUANT_STORE: loads the bias/multiplier/shift vectors from PRM, streams ACC rows (int32
// or, with acc64, int64 elements) through nnc_requant and writes the packed rows to OUT, or
// with to_inp (ISA 1.9, 8-bit outputs) to INP, where the next commands of this queue read
// them: the on-chip path from one layer's results to the next one's operands.
// The unit has 2C lanes: an ACC read of C*8 bytes is two int32 rows, so 8- and 16-bit
// outputs take two rows per cycle (their two rows fit OUT's write port); int64 rows and
// 32-bit outputs one. The requant unit runs with the int32 output
// type and an activation range intersected with the output type's range:
// sat(clamp(y, lo, hi)) == clamp(y, clamp(lo, tmin, tmax), clamp(hi, tmin, tmax)), which
// covers the unsigned 16-bit output nnc_requant has no type for. (An unsigned 32-bit
// output saturates to [0, 2^31 - 1].)
//
// DENSIFY: runs nnc_densify on the memory through nnc_dma's aux client (single aligned
// beats: the unit's prefetching reads, several in flight, and its strobed writes), and waits
// for its posted writes to be acknowledged before completing. A read error is reported when
// the unit stops on it (ErrCodeBusError at the element's address).
//
// Every command's buffer footprint is checked before it starts (ErrCodeDmaOob, ERR_INFO =
// buffer id); a failed check completes the command at once with the error.
`include "prim_assert.svh"

module nnc_compute
#(
  parameter int unsigned Rows        = nnc_isa_pkg::ArrayRows,
  parameter int unsigned Cols        = nnc_isa_pkg::ArrayCols,
  parameter int unsigned BusBytes    = nnc_isa_pkg::AxiDataBytes,
  parameter int unsigned InpBytes    = nnc_isa_pkg::InpBufBytes,
  parameter int unsigned WgtBytes    = nnc_isa_pkg::WgtBufBytes,
  parameter int unsigned AccBytes    = nnc_isa_pkg::AccBufBytes,
  parameter int unsigned OutBytes    = nnc_isa_pkg::OutBufBytes,
  parameter int unsigned PrmBytes    = nnc_isa_pkg::PrmBufBytes,
  // GEMM tiles in flight (a power of two); the densify reader's beats per array and reads in
  // flight.
  parameter int unsigned TileFifo    = nnc_isa_pkg::GemmTiles,
  parameter int unsigned StreamDepth = nnc_isa_pkg::DensifyBeats,
  parameter int unsigned MaxReads    = nnc_isa_pkg::DensifyReads,
  // Bytes an INP read returns (INP's line): the depthwise unit takes all of them, the other
  // readers the first Rows*2.
  parameter int unsigned InpReadBytes = Rows * nnc_isa_pkg::InpLineVectors,
  localparam int unsigned BusBits = BusBytes * 8
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,

  // Commands from the compute queue
  input  logic                   cmd_valid_i,
  output logic                   cmd_ready_o,
  input  nnc_isa_pkg::cmd_t                   cmd_i,
  output logic                   done_o,      // pulse, in command order
  output logic                   err_o,
  output nnc_isa_pkg::err_code_e              err_code_o,
  output logic [31:0]            err_addr_o,  // bus address (bus errors)
  output logic [31:0]            err_info_o,

  // Buffers (this unit has priority on every port it uses)
  output logic                   inp_re_o,
  output logic                   inp_rwide_o,  // the read takes the whole line (depthwise)
  output logic [nnc_isa_pkg::BufAddrBits-1:0] inp_raddr_o,
  input  logic [InpReadBytes*8-1:0] inp_rdata_i,
  output logic                   wgt_re_o,
  output logic [nnc_isa_pkg::BufAddrBits-1:0] wgt_raddr_o,
  input  logic [Cols*16-1:0]     wgt_rdata_i,
  // WGT's write port (the DMA's beats): the depthwise unit's kept weights follow it.
  input  logic                   wgt_we_i,
  input  logic [nnc_isa_pkg::BufAddrBits-1:0] wgt_waddr_i,
  output logic                   acc_re_o,
  output logic [nnc_isa_pkg::BufAddrBits-1:0] acc_raddr_o,
  input  logic [Cols*64-1:0]     acc_rdata_i,
  output logic                   acc_we_o,
  output logic [nnc_isa_pkg::BufAddrBits-1:0] acc_waddr_o,
  output logic [Cols*64-1:0]     acc_wdata_o,
  output logic [Cols*8-1:0]      acc_wbe_o,
  output logic                   out_we_o,
  output logic [nnc_isa_pkg::BufAddrBits-1:0] out_waddr_o,
  output logic [Cols*32-1:0]     out_wdata_o,
  output logic [Cols*4-1:0]      out_wbe_o,
  output logic                   inp_we_o,    // REQUANT_STORE to_inp (ISA 1.9)
  output logic [nnc_isa_pkg::BufAddrBits-1:0] inp_waddr_o,
  output logic [Rows*16-1:0]     inp_wdata_o,
  output logic [Rows*2-1:0]      inp_wbe_o,
  output logic                   prm_re_o,
  output logic [nnc_isa_pkg::BufAddrBits-1:0] prm_raddr_o,
  input  logic [Cols*32-1:0]     prm_rdata_i,

  // Memory for the densify unit (nnc_dma aux client)
  output logic                   aux_req_valid_o,
  input  logic                   aux_req_ready_i,
  output logic                   aux_req_write_o,
  output logic [31:0]            aux_req_addr_o,
  output logic [BusBits-1:0]     aux_req_wdata_o,
  output logic [BusBytes-1:0]    aux_req_wstrb_o,
  input  logic                   aux_rrsp_valid_i,
  input  logic [BusBits-1:0]     aux_rrsp_data_i,
  input  logic [1:0]             aux_rrsp_resp_i,
  input  logic                   aux_brsp_valid_i,
  input  logic [1:0]             aux_brsp_resp_i,

  // Events
  output logic                   densify_busy_o,
  output logic                   densify_stall_o,
  output logic [15:0]            macs_o,
  output logic                   progress_o
);

  localparam int unsigned OpFifo   = 4;       // operand / accumulator rows in flight
  localparam int unsigned TPtrW    = $clog2(TileFifo);
  localparam int unsigned OPtrW    = $clog2(OpFifo);
  localparam int unsigned RowIdxW  = Rows > 1 ? $clog2(Rows) : 1;

  localparam int unsigned BAddrW = nnc_isa_pkg::BufAddrBits;
  typedef logic [BAddrW-1:0] baddr_t;

  // =========================================================================================
  // Command decode and footprint checks
  // =========================================================================================
  logic [7:0]     c_op;  // nnc_isa_pkg::opcode_e
  nnc_isa_pkg::gemm_t          c_g;
  nnc_isa_pkg::requant_store_t c_r;
  nnc_isa_pkg::densify_t       c_d;
  nnc_isa_pkg::dwconv_t        c_w;
  nnc_isa_pkg::eltwise_t       c_e;
  nnc_isa_pkg::pool_t          c_p;
  logic           c_is_gemm, c_is_dw, c_oob;
  nnc_isa_pkg::buffer_e        c_oob_buf;
  // A GEMM's or DWCONV's INP read span and ACC span, [addr, end), for the hazard check
  // against a REQUANT_STORE in flight.
  logic [39:0]    c_inp_end, c_acc_end;

  // Views of the command (no casts: Yosys's SV reader has no typedef casts).
  assign c_op      = cmd_i[7:0];
  assign c_g       = cmd_i;
  assign c_r       = cmd_i;
  assign c_d       = cmd_i;
  assign c_w       = cmd_i;
  assign c_e       = cmd_i;
  assign c_p       = cmd_i;
  assign c_is_gemm = c_op == nnc_isa_pkg::OpcodeGemm;
  assign c_is_dw   = c_op == nnc_isa_pkg::OpcodeDwconv;

  // POOL's window (ISA 1.8): fh + 15*fh_hi rows, fw + 15*fw_hi columns, 1..240.
  logic [7:0] c_pool_fh, c_pool_fw;
  assign c_pool_fh = 8'(c_p.fh) + ({4'd0, c_p.fh_hi} << 4) - {4'd0, c_p.fh_hi};
  assign c_pool_fw = 8'(c_p.fw) + ({4'd0, c_p.fw_hi} << 4) - {4'd0, c_p.fw_hi};

  function automatic logic over(logic [39:0] end_byte, int unsigned size);
    over = end_byte > 40'(size);
  endfunction

  // Bytes of an ACC element: int32, or int64 with acc64.
  function automatic logic [39:0] acc_elem_bytes(logic acc64);
    acc_elem_bytes = acc64 ? 40'd8 : 40'd4;
  endfunction

  // A REQUANT_STORE's segments (ISA 1.13) may skip this many C-byte vectors at most.
  logic [39:0] c_seg_skip;
  assign c_seg_skip = c_r.segments ? 40'(c_r.seg_gaps) * 40'(c_r.seg_gap) : 40'd0;
  always_comb begin
    logic [39:0] eb, wb, ob, inp_end, acc_end;
    c_oob     = 1'b0;
    inp_end   = '0;
    acc_end   = '0;
    c_oob_buf = nnc_isa_pkg::BufferInp;
    eb        = c_g.mode == nnc_isa_pkg::GemmModeInt16 ? 40'd2 : 40'd1;
    wb        = c_g.wgt8 ? 40'd1 : eb;  // the decode check rejected wgt8 with mode int8
    ob        = 40'd1 << c_r.out_width;
    unique case (c_op)
      nnc_isa_pkg::OpcodeGemm: begin
        // A window reads m pixel vectors per block; its furthest byte is the last lane's vector
        // of the last inner tap of the last tile (the decode check guarantees m, taps,
        // tiles >= 1 and k = vec * taps * tiles).
        acc_end = 40'(c_g.acc_addr) + (40'(8'(c_g.m - 8'd1)) * 40'(Cols) + 40'(c_g.n)) *
                  acc_elem_bytes(c_g.acc64);
        if (c_g.window) begin
          inp_end = 40'(c_g.inp_addr) + 40'(8'(c_g.m - 8'd1)) * 40'(c_g.lane_stride) +
                    40'(7'(c_g.taps - 7'd1)) * 40'(c_g.tap_stride) +
                    40'(12'(c_g.tiles - 12'd1)) * 40'(c_g.tile_stride) + 40'(c_g.vec) * eb;
        end else begin
          inp_end = 40'(c_g.inp_addr) + 40'(c_g.k) * 40'(Rows) * eb;
        end
        if (over(inp_end, InpBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferInp;
        end else if (over(40'(c_g.wgt_addr) + 40'(c_g.k) * 40'(Cols) * wb, WgtBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferWgt;
        end else if (over(acc_end, AccBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferAcc;
        end
      end
      nnc_isa_pkg::OpcodeDwconv: begin
        // The last filter row's span of pixel vectors (C int8 channels each).
        inp_end = 40'(c_w.inp_addr) + 40'(3'(c_w.fh - 3'd1)) * 40'(c_w.row_stride) +
                  (40'(8'(c_w.m - 8'd1)) * 40'(c_w.sw) + 40'(3'(c_w.fw - 3'd1)) * 40'(c_w.dw) +
                   40'd1) * 40'(Cols);
        acc_end = 40'(c_w.acc_addr) + (40'(8'(c_w.m - 8'd1)) * 40'(Cols) + 40'(c_w.n)) * 40'd4;
        if (over(inp_end, InpBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferInp;
        end else if (over(40'(c_w.wgt_addr) + 40'(c_w.fh) * 40'(c_w.fw) * 40'(Cols), WgtBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferWgt;
        end else if (over(acc_end, AccBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferAcc;
        end
      end
      nnc_isa_pkg::OpcodeEltwise: begin
        // count elements of a, b and the results; the parameter record.
        eb = c_e.wide ? 40'd2 : 40'd1;
        if (over(40'(c_e.a_addr) + 40'(c_e.count) * eb, InpBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferInp;
        end else if (over(40'(c_e.b_addr) + 40'(c_e.count) * eb, WgtBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferWgt;
        end else if (over(40'(c_e.out_addr) + 40'(c_e.count) * (c_e.out_wide ? 40'd2 : 40'd1),
                          OutBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferOut;
        end else if (over(40'(c_e.prm_addr) + 40'(nnc_isa_pkg::EltwisePrmBytes), PrmBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferPrm;
        end
      end
      nnc_isa_pkg::OpcodePool: begin
        // The last filter row's span of pixel vectors; m result vectors, the last n wide.
        eb = c_p.wide ? 40'd2 : 40'd1;
        inp_end = 40'(c_p.inp_addr) + 40'(8'(c_pool_fh - 8'd1)) * 40'(c_p.row_stride) +
                  (40'(8'(c_p.m - 8'd1)) * 40'(c_p.sw) + 40'(c_pool_fw)) * 40'(Cols) * eb;
        if (over(inp_end, InpBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferInp;
        end else if (over(40'(c_p.out_addr) + (40'(8'(c_p.m - 8'd1)) * 40'(Cols) +
                          40'(c_p.n)) * eb, OutBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferOut;
        end
      end
      nnc_isa_pkg::OpcodeRequantStore: begin
        if (over(40'(c_r.acc_addr) + 40'(c_r.rows) * 40'(Cols) * acc_elem_bytes(c_r.acc64),
                 AccBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferAcc;
        end else if (over(40'(c_r.out_addr) + (40'(c_r.rows) + c_seg_skip) * 40'(Cols) * ob,
                          c_r.to_inp ? InpBytes : OutBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = c_r.to_inp ? nnc_isa_pkg::BufferInp : nnc_isa_pkg::BufferOut;
        end else if ((c_r.bias_en && over(40'(c_r.bias_addr) + 40'(Cols * 4), PrmBytes)) ||
                     over(40'(c_r.mult_addr) + (c_r.per_channel ? 40'(Cols * 4) : 40'd4), PrmBytes) ||
                     over(40'(c_r.shift_addr) + (c_r.per_channel ? 40'(Cols) : 40'd1), PrmBytes)) begin
          c_oob = 1'b1;
          c_oob_buf = nnc_isa_pkg::BufferPrm;
        end
      end
      default: ;
    endcase
    c_inp_end = inp_end;
    c_acc_end = acc_end;
  end

  // =========================================================================================
  // GEMM: tiles in flight, operand streaming
  // =========================================================================================
  typedef struct packed {
    baddr_t     acc_addr;
    logic [7:0] m;
    logic [7:0] n;
    logic       accumulate;
    logic       acc64;
    logic       dw;        // a DWCONV tile (drains from the depthwise unit)
  } tile_t;

  tile_t            st1_tile;  // the tile at the first drain stage
  // Plain-vector elements: Yosys 0.23 reads an unpacked array of a module's own
  // packed-struct type as a single element (the others silently lost).
  logic [$bits(st1_tile)-1:0] tiles_q [TileFifo];
  logic [TPtrW-1:0] t_wr_q, t_st1_q, t_rd_q;  // push / first drain stage / pop
  logic [TPtrW:0]   t_cnt_q;
  logic             dr_dw;      // the tile at the first drain stage is a DWCONV tile

  // A GEMM's operand stream: what its beats carry and where its next lines are.
  typedef struct packed {
    logic               win;       // A from the window fetch (else k-major from INP)
    logic               wide;      // 16-bit activations
    logic               wgt_wide;  // 16-bit weights (int16 mode without wgt8)
    logic               asg;
    logic               bsg;
    logic signed [16:0] azp;
    logic signed [16:0] bzp;
    logic [15:0]        left;      // beats still to issue
    baddr_t             inp;
    baddr_t             wgt;
    logic [15:0]        mn;
  } stream_t;
  // What a beat carries beside its lanes, kept from its read to its push (the stream may
  // have moved on to the next GEMM by then).
  typedef struct packed {
    logic               win;
    logic               wide;
    logic               wgt_wide;
    logic               asg;
    logic               bsg;
    logic signed [16:0] azp;
    logic signed [16:0] bzp;
  } beat_attr_t;

  // The GEMM streaming now (s_q), and a window GEMM accepted behind it (nx_q, its fetch
  // already reading).
  logic              s_active_q, nx_valid_q;
  stream_t           s_q, nx_q, c_stream;
  beat_attr_t        p_q;           // the beat read last cycle
  logic [Rows*16-1:0] p_act_q;      // its window lanes

  // Operand FIFO (buffer read data -> MAC array)
  // The lanes last (lowest bits), so they sit word-aligned in the simulator's storage.
  typedef struct packed {
    logic                  last;
    logic                  act_wide;    // 16-bit activations
    logic                  wgt_wide;    // 16-bit weights (int16 mode without wgt8)
    logic                  asg;
    logic                  bsg;
    logic signed [16:0]    azp;
    logic signed [16:0]    bzp;
    logic [Rows*16-1:0]    act;         // lane r in bits 16r+15:16r
    logic [Cols*16-1:0]    wgt;
  } beat_t;

  beat_t            of_in, of_head;  // the beat entering the FIFO, the oldest one
  logic [OPtrW:0]   of_cnt_q;
  logic             g_pend_q;      // INP/WGT read issued last cycle
  logic             g_pend_last_q;
  logic             g_room, g_issue, g_last, g_head_done, mac_in_fire;

  // Window fetch
  logic               f_start, f_idle, f_inp_re, f_valid, f_ready, f_empty;
  baddr_t             f_inp_raddr;
  logic [Rows*16-1:0] f_act;

  // A beat issues when the FIFO has room for its data (and, in window mode, its A beat is
  // there); its WGT line (and k-major INP line) is read in the same cycle.
  assign g_room      = 32'(of_cnt_q) + 32'(g_pend_q) < OpFifo;
  // A depthwise WGT read takes the port this cycle (it keeps most of its weight vectors).
  assign g_issue     = s_active_q && g_room && (!s_q.win || f_valid) && !dw_wgt_re;
  assign g_last      = s_q.left == 16'd1;
  assign g_head_done = g_issue && g_last;
  assign f_ready     = s_active_q && s_q.win && g_room && !dw_wgt_re;

  // MAC array
  logic                         mac_in_ready, mac_out_valid, mac_out_last, mac_idle;
  logic [RowIdxW-1:0]           mac_out_row;
  logic [Cols*nnc_pkg::AccWidth-1:0] mac_out_acc;  // column c in slice c

  nnc_mac_array #(
    .Rows(Rows),
    .Cols(Cols)
  ) u_mac_array (
    .clk_i,
    .rst_ni,
    .in_valid_i      (of_cnt_q != '0),
    .in_ready_o      (mac_in_ready),
    .in_last_i       (of_head.last),
    .in_act_i        (of_head.act),
    .in_wgt_i        (of_head.wgt),
    .in_act_wide_i   (of_head.act_wide),
    .in_wgt_wide_i   (of_head.wgt_wide),
    .in_act_signed_i (of_head.asg),
    .in_wgt_signed_i (of_head.bsg),
    .in_act_zp_i     (of_head.azp),
    .in_wgt_zp_i     (of_head.bzp),
    .out_valid_o     (mac_out_valid),
    .out_ready_i     (!dr_dw),
    .out_row_o       (mac_out_row),
    .out_last_o      (mac_out_last),
    .out_acc_o       (mac_out_acc),
    .idle_o          (mac_idle)
  );

  assign mac_in_fire = of_cnt_q != '0 && mac_in_ready;

  // Depthwise unit (DWCONV, ISA 1.6): its own PEs; its rows drain to ACC through the same
  // stages as the array's. Since ISA 1.14 DWCONV and GEMM tiles are in flight together: the
  // unit's INP reads take the cycles the GEMMs' reads leave (dw_inp_gnt), its WGT reads
  // (only for weight vectors it does not keep) go first and hold the GEMM's issue for the
  // cycle, and the tiles drain in command order (the tile FIFO's dw flag picks the source;
  // the other one waits).
  logic               dw_start, dw_idle, dw_busy, dw_inp_re, dw_inp_gnt, dw_inp_fire, dw_wgt_re;
  baddr_t             dw_inp_raddr, dw_wgt_raddr;
  logic               dw_out_valid, dw_out_last;
  logic [RowIdxW-1:0] dw_out_row;
  logic [Cols*64-1:0] dw_out_acc;  // two int32 rows: dw_out_row's, then the next one's
  assign dw_start    = cmd_fire && c_is_dw && !c_oob;
  assign dw_inp_gnt  = !(g_issue && !s_q.win) && !f_inp_re;
  assign dw_inp_fire = dw_inp_re && dw_inp_gnt;
  // The first Rows*2 bytes of an INP read: the line every reader but the depthwise unit takes.
  logic [Rows*16-1:0] inp_line;
  assign inp_line = inp_rdata_i[Rows*16-1:0];

  nnc_dwconv #(
    .Rows        (Rows),
    .Cols        (Cols),
    .AddrW       (BAddrW),
    .InpReadBytes(InpReadBytes)
  ) u_dwconv (
    .clk_i,
    .rst_ni,
    .start_i      (dw_start),
    .inp_addr_i   (c_w.inp_addr),
    .row_stride_i (c_w.row_stride),
    .wgt_addr_i   (c_w.wgt_addr),
    .m_i          ($clog2(Rows + 1)'(c_w.m)),
    .fh_i         (c_w.fh),
    .fw_i         (c_w.fw),
    .sw_i         (c_w.sw),
    .dw_i         (c_w.dw),
    .a_signed_i   (c_w.a_signed),
    .b_signed_i   (c_w.b_signed),
    .a_zp_i       (17'(c_w.a_zp)),
    .b_zp_i       (17'(c_w.b_zp)),
    .idle_o       (dw_idle),
    .inp_re_o     (dw_inp_re),
    .inp_gnt_i    (dw_inp_gnt),
    .inp_raddr_o  (dw_inp_raddr),
    .inp_rdata_i,
    .wgt_re_o     (dw_wgt_re),
    .wgt_raddr_o  (dw_wgt_raddr),
    .wgt_rdata_i,
    .wgt_we_i,
    .wgt_waddr_i,
    .out_valid_o  (dw_out_valid),
    .out_ready_i  (dr_dw),
    .out_row_o    (dw_out_row),
    .out_last_o   (dw_out_last),
    .out_acc_o    (dw_out_acc),
    .busy_o       (dw_busy)
  );

  // The drain's source: the array's rows, one a cycle, or the depthwise unit's, two int32
  // rows a cycle (ISA 1.11: the pair is one ACC access of Cols*8 bytes, so a 3x3 tile's 16
  // rows drain in 8 cycles, under its 9 beats).
  // The tile at the first drain stage names the source (tiles drain in command order).
  logic                              dr_valid, dr_last;
  logic [RowIdxW-1:0]                dr_row;
  assign dr_valid = dr_dw ? dw_out_valid : mac_out_valid;
  assign dr_last  = dr_dw ? dw_out_last : mac_out_last;
  assign dr_row   = dr_dw ? dw_out_row : mac_out_row;

  // The window fetch (GEMM window mode): its reads use INP's port whenever it has any; a
  // k-major GEMM is accepted only when nothing streams ahead of it, so the two never meet.
  assign f_start = cmd_fire && c_is_gemm && !c_oob && c_g.window;
  nnc_window_fetch #(
    .Rows (Rows),
    .AddrW(BAddrW)
  ) u_window_fetch (
    .clk_i,
    .rst_ni,
    .start_i       (f_start),
    .wide_i        (c_g.mode == nnc_isa_pkg::GemmModeInt16),
    .base_i        (c_g.inp_addr),
    .m_i           ($clog2(Rows + 1)'(c_g.m)),
    .vec_i         ($clog2(Rows + 1)'(c_g.vec)),
    .taps_i        (c_g.taps),
    .k_i           (c_g.k),
    .lane_stride_i (c_g.lane_stride),
    .tap_stride_i  (c_g.tap_stride),
    .tile_stride_i (c_g.tile_stride),
    .idle_o        (f_idle),
    .inp_re_o      (f_inp_re),
    .inp_raddr_o   (f_inp_raddr),
    .inp_rdata_i (inp_line),
    .out_valid_o   (f_valid),
    .out_ready_i   (f_ready),
    .out_act_o     (f_act),
    .empty_o       (f_empty)
  );

  // Drain: stage 1 takes a row from the array (and reads ACC to accumulate), stage 2 writes.
  logic                  d1_valid_q, d1_last_q, d1_write_q, d1_accum_q, d1_acc64_q;
  logic [Cols*64-1:0]    d1_row_q;       // the array's sums, packed as the ACC row
  baddr_t                d1_addr_q;
  logic [Cols*8-1:0]     d1_be_q;
  logic                  st1_write, st1_pair;
  baddr_t                st1_addr;
  logic                  tile_done;

  assign st1_tile  = tiles_q[t_st1_q];
  assign dr_dw     = st1_tile.dw;
  assign st1_write = 8'(dr_row) < st1_tile.m;
  assign st1_pair  = dr_dw && 8'(dr_row) + 8'd1 < st1_tile.m;  // the pair's second row
  assign st1_addr  = st1_tile.acc_addr +
                     BAddrW'((32'(dr_row) * Cols) << (st1_tile.acc64 ? 3 : 2));
  assign tile_done = d1_valid_q && d1_last_q;

  // Byte enables of lanes c < n of a row in the element size.
  function automatic logic [Cols*8-1:0] lane_be(logic [7:0] n, logic acc64);
    lane_be = '0;
    for (int unsigned c = 0; c < Cols; c++) begin
      if (acc64) lane_be[8*c +: 8] = {8{8'(c) < n}};
      else       lane_be[4*c +: 4] = {4{8'(c) < n}};
    end
  endfunction

  // A drained row of the array's (48-bit) sums packed as an ACC row in the element size:
  // int64 sign-extended, or the low 32 bits.
  function automatic logic [Cols*64-1:0] pack_sums(logic [Cols*nnc_pkg::AccWidth-1:0] sums,
                                                   logic acc64);
    pack_sums = '0;
    for (int unsigned c = 0; c < Cols; c++) begin
      if (acc64) begin
        pack_sums[64*c +: 64] = 64'(signed'(sums[nnc_pkg::AccWidth*c +: nnc_pkg::AccWidth]));
      end
      else       pack_sums[32*c +: 32] = sums[nnc_pkg::AccWidth*c +: 32];
    end
  endfunction

  // Accumulate: a packed row plus the old ACC row, element by element (two int32 lanes or
  // one int64 lane per 64-bit word; words past an int32 row are never written).
  function automatic logic [Cols*64-1:0] add_rows(logic [Cols*64-1:0] row,
                                                  logic [Cols*64-1:0] old, logic acc64);
    for (int unsigned w = 0; w < Cols; w++) begin
      if (acc64) begin
        add_rows[64*w +: 64] = row[64*w +: 64] + old[64*w +: 64];
      end else begin
        add_rows[64*w +: 32]      = row[64*w +: 32] + old[64*w +: 32];
        add_rows[64*w + 32 +: 32] = row[64*w + 32 +: 32] + old[64*w + 32 +: 32];
      end
    end
  endfunction

  // =========================================================================================
  // REQUANT_STORE
  // =========================================================================================
  typedef enum logic [1:0] {RqIdle, RqParam, RqStream} rq_state_e;
  rq_state_e             rq_state_q;
  nnc_isa_pkg::requant_store_t        rq_q;
  logic [2:0]            rq_pstep_q;
  logic [Cols*32-1:0]    rq_bias_q, rq_mult_q;  // lane c in slice c
  logic [Cols*8-1:0]     rq_shift_q;
  logic [31:0]           rq_lo_q, rq_hi_q;
  logic [12:0]           rq_issued_q, rq_written_q;  // rows (a pair's count may pass rows)
  logic                  rq_pair_q;      // two int32 rows per cycle (8- or 16-bit outputs)
  logic                  rq_pend_q;      // ACC read issued last cycle
  // Segments (ISA 1.13): the pair's column in its segment, gaps taken, vectors skipped.
  logic [11:0]           rq_col_q;
  logic [7:0]            rq_gaps_q;
  logic [19:0]           rq_skip_q;
  // ACC reads waiting for the requant unit, as read: C*8 bytes, one row of C int64 or two
  // rows of C int32 (a pair: the requant unit's 2C lanes take both in one cycle).
  logic [Cols*64-1:0]    rf_in, rf_head;  // the read entering the FIFO, the oldest one
  logic [OPtrW:0]        rf_cnt_q;
  logic                  rq_issue, rq_in_ready, rq_out_valid, rq_last_write;
  logic [2*Cols*64-1:0]  rq_lanes;        // the oldest read in the unit's 2C lanes
  logic [2*Cols*32-1:0]  rq_out_data;
  logic [12:0]           rq_step;         // rows the unit's next result holds: 2 or 1

  // ISA 1.10: the tiles ahead of the REQUANT_STORE still in flight (its reads wait for them),
  // and the done pulses of tiles behind it that drained first (released after its own).
  logic [TPtrW:0]        rq_ahead_q;
  logic [3:0]            held_q;
  logic                  rq_busy, acc_drain_read;
  assign rq_busy = rq_state_q != RqIdle;
  // ISA 1.15: the pending REQUANT_STORE, its clamp range, the tiles ahead of it still in
  // flight and the done pulses of tiles behind it that drained first. It starts (rq_promote)
  // once the unit is idle with no pulse held; one accepted with the unit so, at once.
  logic                               rqn_valid_q;
  nnc_isa_pkg::requant_store_t        rqn_q;
  logic [31:0]                        rqn_lo_q, rqn_hi_q;
  logic [TPtrW:0]                     rqn_ahead_q;
  logic [3:0]                         heldn_q;
  logic                               rq_promote, rq_accept, rq_start;
  nnc_isa_pkg::requant_store_t        rq_src;
  assign rq_promote = rqn_valid_q && !rq_busy && held_q == '0;
  // The drain reads ACC to accumulate: it has the read port (the array cannot wait).
  assign acc_drain_read = dr_valid && st1_write && st1_tile.accumulate;
  assign rq_issue = rq_state_q == RqStream && rq_ahead_q == '0 && !acc_drain_read &&
                    rq_issued_q < 13'(rq_q.rows) && (32'(rf_cnt_q) + 32'(rq_pend_q) < OpFifo);

  // Lane l: int64 lane l of the read (l < C), or int32 element l zero-extended (the unit's
  // int32 path reads bits 31:0); with one int32 row per result, lanes >= C are never written.
  function automatic logic [2*Cols*64-1:0] unpack_acc(logic [Cols*64-1:0] row, logic acc64);
    unpack_acc = '0;
    for (int unsigned l = 0; l < 2 * Cols; l++) begin
      if (acc64) begin
        if (l < Cols) unpack_acc[64*l +: 64] = row[64*l +: 64];
      end else begin
        unpack_acc[64*l +: 64] = {32'd0, row[32*l +: 32]};
      end
    end
  endfunction
  assign rq_lanes = unpack_acc(rf_head, rq_q.acc64);

  nnc_requant #(
    .Lanes(2 * Cols)
  ) u_requant (
    .clk_i,
    .rst_ni,
    .in_valid_i    (rf_cnt_q != '0),
    .in_ready_o    (rq_in_ready),
    .in_acc_i      (rq_lanes),
    .in_acc64_i    (rq_q.acc64),
    .in_bias_i     ({rq_bias_q, rq_bias_q}),  // lane C + c is channel c of the second row
    .in_mult_i     ({rq_mult_q, rq_mult_q}),
    .in_shift_i    ({rq_shift_q, rq_shift_q}),
    .in_zp_i       (32'(signed'(rq_q.out_zp))),
    .in_act_min_i  (rq_lo_q),
    .in_act_max_i  (rq_hi_q),
    .in_out_type_i (nnc_pkg::OutI32),
    .out_valid_o   (rq_out_valid),
    .out_ready_i   (1'b1),
    .out_data_o    (rq_out_data)
  );

  assign rq_step       = rq_pair_q && rq_written_q + 13'd1 < 13'(rq_q.rows) ? 13'd2 : 13'd1;
  assign rq_last_write = rq_out_valid && rq_written_q + rq_step == 13'(rq_q.rows);

  // Output type range and the clamp range intersected with it.
  function automatic logic signed [31:0] clamp32(logic signed [31:0] x, logic signed [31:0] lo,
                                                 logic signed [31:0] hi);
    if (x < lo)      clamp32 = lo;
    else if (x > hi) clamp32 = hi;
    else             clamp32 = x;
  endfunction
  logic signed [31:0] t_min, t_max;
  always_comb begin
    unique case ({c_r.out_width, c_r.out_signed})
      {nnc_isa_pkg::ElemWidthW8, 1'b1}:  begin t_min = -32'sd128;   t_max = 32'sd127;   end
      {nnc_isa_pkg::ElemWidthW8, 1'b0}:  begin t_min = 32'sd0;      t_max = 32'sd255;   end
      {nnc_isa_pkg::ElemWidthW16, 1'b1}: begin t_min = -32'sd32768; t_max = 32'sd32767; end
      {nnc_isa_pkg::ElemWidthW16, 1'b0}: begin t_min = 32'sd0;      t_max = 32'sd65535; end
      {nnc_isa_pkg::ElemWidthW32, 1'b1}: begin t_min = 32'sh8000_0000; t_max = 32'sh7fff_ffff; end
      default:              begin t_min = 32'sd0;      t_max = 32'sh7fff_ffff; end
    endcase
  end

  // Packs the unit's 2C int32 results (two rows, or one in lanes < C with 32-bit outputs)
  // into the output width: rows adjacent, as they lie in OUT.
  function automatic logic [Cols*32-1:0] pack_out(logic [2*Cols*32-1:0] d,
                                                  nnc_isa_pkg::elem_width_e w);
    pack_out = '0;
    for (int unsigned l = 0; l < 2 * Cols; l++) begin
      unique case (w)
        nnc_isa_pkg::ElemWidthW8:  pack_out[8*l +: 8]   = d[32*l +: 8];
        nnc_isa_pkg::ElemWidthW16: pack_out[16*l +: 16] = d[32*l +: 16];
        default: if (l < Cols)     pack_out[32*l +: 32] = d[32*l +: 32];
      endcase
    end
  endfunction

  // =========================================================================================
  // ELTWISE (ISA 1.7): the elementwise unit between INP/WGT and OUT
  // =========================================================================================
  logic               ew_start, ew_busy, ew_done, ew_inp_re, ew_wgt_re, ew_prm_re, ew_out_we;
  baddr_t             ew_inp_raddr, ew_wgt_raddr, ew_prm_raddr, ew_out_waddr;
  logic [Cols*32-1:0] ew_out_wdata;
  logic [Cols*4-1:0]  ew_out_wbe;
  assign ew_start = cmd_fire && c_op == nnc_isa_pkg::OpcodeEltwise && !c_oob;
  nnc_eltwise_engine #(
    .Lanes(Cols),
    .Rows (Rows),
    .AddrW(BAddrW)
  ) u_eltwise_engine (
    .clk_i,
    .rst_ni,
    .start_i      (ew_start),
    .mul_i        (c_e.mul),
    .a_signed_i   (c_e.a_signed),
    .b_signed_i   (c_e.b_signed),
    .wide_i       (c_e.wide),
    .out_wide_i   (c_e.out_wide),
    .out_signed_i (c_e.out_signed),
    .left_i       (c_e.left),
    .a_addr_i     (c_e.a_addr),
    .b_addr_i     (c_e.b_addr),
    .out_addr_i   (c_e.out_addr),
    .prm_addr_i   (c_e.prm_addr),
    .count_i      (c_e.count),
    .out_zp_i     (c_e.out_zp),
    .a_zp_i       (c_e.a_zp),
    .b_zp_i       (c_e.b_zp),
    .busy_o       (ew_busy),
    .done_o       (ew_done),
    .inp_re_o     (ew_inp_re),
    .inp_raddr_o  (ew_inp_raddr),
    .inp_rdata_i (inp_line),
    .wgt_re_o     (ew_wgt_re),
    .wgt_raddr_o  (ew_wgt_raddr),
    .wgt_rdata_i,
    .prm_re_o     (ew_prm_re),
    .prm_raddr_o  (ew_prm_raddr),
    .prm_rdata_i,
    .out_we_o     (ew_out_we),
    .out_waddr_o  (ew_out_waddr),
    .out_wdata_o  (ew_out_wdata),
    .out_wbe_o    (ew_out_wbe)
  );

  // =========================================================================================
  // POOL (ISA 1.7): the pooling unit between INP and OUT
  // =========================================================================================
  logic               pl_start, pl_busy, pl_done, pl_inp_re, pl_out_we;
  baddr_t             pl_inp_raddr, pl_out_waddr;
  logic [Cols*32-1:0] pl_out_wdata;
  logic [Cols*4-1:0]  pl_out_wbe;
  assign pl_start = cmd_fire && c_op == nnc_isa_pkg::OpcodePool && !c_oob;
  nnc_pool_engine #(
    .Lanes(Cols),
    .Rows (Rows),
    .AddrW(BAddrW)
  ) u_pool_engine (
    .clk_i,
    .rst_ni,
    .start_i      (pl_start),
    .avg_i        (c_p.avg),
    .trunc_i      (c_p.trunc),
    .a_signed_i   (c_p.a_signed),
    .wide_i       (c_p.wide),
    .m_i          (c_p.m),
    .n_i          (c_p.n),
    .inp_addr_i   (c_p.inp_addr),
    .fh_i         (c_pool_fh),
    .fw_i         (c_pool_fw),
    .sw_i         (c_p.sw),
    .row_stride_i (c_p.row_stride),
    .out_addr_i   (c_p.out_addr),
    .clamp_min_i  (c_p.clamp_min),
    .clamp_max_i  (c_p.clamp_max),
    .busy_o       (pl_busy),
    .done_o       (pl_done),
    .inp_re_o     (pl_inp_re),
    .inp_raddr_o  (pl_inp_raddr),
    .inp_rdata_i (inp_line),
    .out_we_o     (pl_out_we),
    .out_waddr_o  (pl_out_waddr),
    .out_wdata_o  (pl_out_wdata),
    .out_wbe_o    (pl_out_wbe)
  );

  // =========================================================================================
  // DENSIFY and its memory adapter
  // =========================================================================================
  logic         ds_active_q, ds_start, ds_busy, ds_done;
  nnc_pkg::densify_err_e ds_err;
  logic [31:0]  ds_written, ds_err_addr;
  logic [1:0]   ds_err_resp;
  logic         ds_rd_stall;     // the unit waits for read data
  logic         ds_finished_q;   // the unit is done, waiting for write responses
  nnc_pkg::densify_err_e ds_err_q;
  logic         ds_rd_valid, ds_rd_ready, ds_wr_valid, ds_wr_ready;
  logic [31:0]  ds_rd_addr, ds_wr_addr;
  logic [BusBits-1:0]  ds_wr_data;
  logic [BusBytes-1:0] ds_wr_strb;
  logic [15:0]  wr_out_q;                      // writes awaiting their response
  logic         bus_err_q;
  logic [31:0]  bus_err_addr_q;
  logic [1:0]   bus_err_resp_q;
  logic         wr_go, rd_go;
  logic [31:0]  c_d_out_addr_q;

  assign ds_start = cmd_valid_i && cmd_ready_o && c_op == nnc_isa_pkg::OpcodeDensify;

  nnc_densify #(
    .BusBytes    (BusBytes),
    .StreamDepth (StreamDepth),
    .MaxReads    (MaxReads)
  ) u_densify (
    .clk_i,
    .rst_ni,
    .start_i        (ds_start),
    .desc_addr_i    (c_d.desc_addr),
    .values_addr_i  (c_d.values_addr),
    .out_addr_i     (c_d.out_addr),
    .out_bytes_i    (c_d.out_size),
    .elem_size_i    (c_d.elem_width),  // the same codes
    .busy_o         (ds_busy),
    .done_o         (ds_done),
    .err_o          (ds_err),
    .written_o      (ds_written),
    .err_addr_o     (ds_err_addr),
    .err_resp_o     (ds_err_resp),
    .rd_wait_o      (ds_rd_stall),
    .rd_req_valid_o (ds_rd_valid),
    .rd_req_ready_i (ds_rd_ready),
    .rd_req_addr_o  (ds_rd_addr),
    .rd_rsp_valid_i (aux_rrsp_valid_i),
    .rd_rsp_data_i  (aux_rrsp_data_i),
    .rd_rsp_resp_i  (aux_rrsp_resp_i),
    .wr_req_valid_o (ds_wr_valid),
    .wr_req_ready_i (ds_wr_ready),
    .wr_req_addr_o  (ds_wr_addr),
    .wr_req_data_o  (ds_wr_data),
    .wr_req_strb_o  (ds_wr_strb)
  );

  // The unit speaks whole beats already; writes go first (the unit waits for them, reads
  // are mostly prefetches). Read responses go straight to the unit (aux responses are in
  // request order and never held back).
  assign wr_go  = ds_wr_valid;
  assign rd_go  = ds_rd_valid && !wr_go;
  assign aux_req_valid_o = wr_go || rd_go;
  assign aux_req_write_o = wr_go;
  assign aux_req_addr_o  = wr_go ? ds_wr_addr : ds_rd_addr;
  assign aux_req_wdata_o = ds_wr_data;
  assign aux_req_wstrb_o = ds_wr_strb;
  assign ds_rd_ready     = rd_go && aux_req_ready_i;
  assign ds_wr_ready     = wr_go && aux_req_ready_i;

  // =========================================================================================
  // Acceptance, completion, errors
  // =========================================================================================
  logic err_pend_q;
  nnc_isa_pkg::buffer_e err_buf_q;
  logic all_idle;
  logic ds_complete;

  assign all_idle    = t_cnt_q == '0 && !s_active_q && rq_state_q == RqIdle && !ds_active_q &&
                       !err_pend_q && !dw_busy && !ew_busy && !pl_busy && held_q == '0 &&
                       !rqn_valid_q && heldn_q == '0;
  // A k-major GEMM waits until nothing streams; a window GEMM until the fetch has issued the
  // reads of the (window) GEMM ahead of it, with the next-stream slot free. A DWCONV waits
  // until the depthwise unit has issued the reads of the one ahead of it. Either waits
  // while a REQUANT_STORE in flight reads its ACC span or writes (to_inp) its INP span.
  // A REQUANT_STORE waits only while one is pending (ISA 1.15).
  function automatic logic spans_meet(logic [39:0] a0, logic [39:0] a1, logic [39:0] b0,
                                      logic [39:0] b1);
    spans_meet = a0 < b1 && b0 < a1;
  endfunction
  // The running and the pending REQUANT_STORE's ACC span and, to_inp, INP span: 8-bit rows,
  // and every gap the segments may take (ISA 1.13).
  logic [39:0] rq_acc_end, rq_out_end, rqn_acc_end, rqn_out_end;
  assign rq_acc_end  = 40'(rq_q.acc_addr) + 40'(rq_q.rows) * 40'(Cols) * acc_elem_bytes(rq_q.acc64);
  assign rq_out_end  = 40'(rq_q.out_addr) +
                       (40'(rq_q.rows) + (rq_q.segments ? 40'(rq_q.seg_gaps) * 40'(rq_q.seg_gap)
                                                        : 40'd0)) * 40'(Cols);
  assign rqn_acc_end = 40'(rqn_q.acc_addr) +
                       40'(rqn_q.rows) * 40'(Cols) * acc_elem_bytes(rqn_q.acc64);
  assign rqn_out_end = 40'(rqn_q.out_addr) +
                       (40'(rqn_q.rows) + (rqn_q.segments ? 40'(rqn_q.seg_gaps) * 40'(rqn_q.seg_gap)
                                                          : 40'd0)) * 40'(Cols);
  baddr_t c_acc_addr, c_inp_addr;
  assign c_acc_addr = c_is_dw ? c_w.acc_addr : c_g.acc_addr;
  assign c_inp_addr = c_is_dw ? c_w.inp_addr : c_g.inp_addr;
  logic c_hazard;
  assign c_hazard =
      (rq_busy &&
       (spans_meet(40'(c_acc_addr), c_acc_end, 40'(rq_q.acc_addr), rq_acc_end) ||
        (rq_q.to_inp && spans_meet(40'(c_inp_addr), c_inp_end, 40'(rq_q.out_addr), rq_out_end)))) ||
      (rqn_valid_q &&
       (spans_meet(40'(c_acc_addr), c_acc_end, 40'(rqn_q.acc_addr), rqn_acc_end) ||
        (rqn_q.to_inp &&
         spans_meet(40'(c_inp_addr), c_inp_end, 40'(rqn_q.out_addr), rqn_out_end))));
  logic tiles_ok;  // the unit's other work allows a tile
  assign tiles_ok    = 32'(t_cnt_q) < TileFifo && !c_hazard && !ds_active_q &&
                       !err_pend_q && !ew_busy && !pl_busy;
  always_comb begin
    if (c_is_gemm && !c_oob) begin
      cmd_ready_o = (c_g.window ? f_idle && !nx_valid_q && (!s_active_q || s_q.win) : !s_active_q) &&
                    tiles_ok;
    end else if (c_is_dw && !c_oob) begin
      cmd_ready_o = dw_idle && tiles_ok;
    end else if (c_op == nnc_isa_pkg::OpcodeRequantStore && !c_oob) begin
      cmd_ready_o = !rqn_valid_q && !ds_active_q && !err_pend_q && !ew_busy && !pl_busy;
    end else begin
      cmd_ready_o = all_idle;
    end
  end
  assign ds_complete = ds_active_q && ds_finished_q && wr_out_q == '0;

  // A tile's completion: at once, or held while a REQUANT_STORE ahead of it (in flight with
  // no tile ahead of it left) or an older held pulse has not completed; held pulses leave
  // one per cycle once the REQUANT_STORE is done. Tiles drain in command order, so one that
  // drains with no tile ahead of the pending REQUANT_STORE left is behind it (heldn).
  logic tile_held, tile_heldn, tile_now, held_emit;
  assign tile_heldn = tile_done && rqn_valid_q && rqn_ahead_q == '0;
  assign tile_held  = tile_done && !tile_heldn && ((rq_busy && rq_ahead_q == '0) || held_q != '0);
  assign tile_now   = tile_done && !tile_held && !tile_heldn;
  assign held_emit  = !rq_busy && held_q != '0;

  always_comb begin
    done_o     = 1'b0;
    err_o      = 1'b0;
    err_code_o = nnc_isa_pkg::ErrCodeNone;
    err_addr_o = '0;
    err_info_o = '0;
    if (err_pend_q) begin
      done_o     = 1'b1;
      err_o      = 1'b1;
      err_code_o = nnc_isa_pkg::ErrCodeDmaOob;
      err_info_o = 32'(err_buf_q);
    end else if (tile_now || held_emit || rq_last_write || ew_done || pl_done) begin
      done_o = 1'b1;
    end else if (ds_complete) begin
      done_o = 1'b1;
      if (bus_err_q) begin
        err_o      = 1'b1;
        err_code_o = nnc_isa_pkg::ErrCodeBusError;
        err_addr_o = bus_err_addr_q;
        err_info_o = 32'(bus_err_resp_q);
      end else if (ds_err_q != nnc_pkg::DensifyOk) begin
        err_o      = 1'b1;
        err_code_o = nnc_isa_pkg::ErrCodeDensifyMeta;
        err_info_o = 32'(ds_err_q);
      end
    end
  end

  // =========================================================================================
  // Buffer ports
  // =========================================================================================
  always_comb begin
    // ELTWISE and POOL run alone, so their reads never meet the others'; the depthwise
    // unit's wait for the GEMMs' (dw_inp_gnt).
    inp_re_o    = (g_issue && !s_q.win) || f_inp_re || dw_inp_fire || ew_inp_re || pl_inp_re;
    inp_rwide_o = dw_inp_fire;
    inp_raddr_o = f_inp_re ? f_inp_raddr : dw_inp_fire ? dw_inp_raddr :
                  ew_inp_re ? ew_inp_raddr : pl_inp_re ? pl_inp_raddr : s_q.inp;
    wgt_re_o    = g_issue || dw_wgt_re || ew_wgt_re;
    wgt_raddr_o = dw_wgt_re ? dw_wgt_raddr : ew_wgt_re ? ew_wgt_raddr : s_q.wgt;
    // ACC reads: the drain's accumulate reads, else the requant stream's.
    acc_re_o    = acc_drain_read || rq_issue;
    acc_raddr_o = acc_drain_read ? st1_addr
                                 : rq_q.acc_addr +
                                   BAddrW'((32'(rq_issued_q) * Cols) << (rq_q.acc64 ? 3 : 2));
    acc_we_o    = d1_valid_q && d1_write_q;
    acc_waddr_o = d1_addr_q;
    // The adders run only in the cycles that write an accumulated row.
    acc_wdata_o = d1_row_q;
    if (d1_valid_q && d1_accum_q) acc_wdata_o = add_rows(d1_row_q, acc_old, d1_acc64_q);
    acc_wbe_o   = d1_be_q;
    out_we_o    = rq_out_valid && !rq_q.to_inp;
    out_waddr_o = rq_q.out_addr + BAddrW'((32'(rq_written_q) * Cols) << rq_q.out_width);
    out_wdata_o = pack_out(rq_out_data, rq_q.out_width);
    unique case (rq_q.out_width)
      nnc_isa_pkg::ElemWidthW8:  out_wbe_o = rq_step == 13'd2 ? (Cols*4)'({(2*Cols){1'b1}})
                                                              : (Cols*4)'({Cols{1'b1}});
      nnc_isa_pkg::ElemWidthW16: out_wbe_o = rq_step == 13'd2 ? {(Cols*4){1'b1}}
                                                              : (Cols*4)'({(2*Cols){1'b1}});
      default:      out_wbe_o = {(Cols*4){1'b1}};
    endcase
    // to_inp: the same rows into INP (8-bit only, the decode check's rule: the pair's 2C
    // bytes fit the INP port of 2 * Rows bytes).
    inp_we_o    = rq_out_valid && rq_q.to_inp;
    inp_waddr_o = rq_q.out_addr + BAddrW'((32'(rq_written_q) + 32'(rq_skip_q)) * Cols);
    inp_wdata_o = (Rows*16)'(out_wdata_o);
    inp_wbe_o   = (Rows*2)'(out_wbe_o);
    if (ew_out_we) begin
      out_we_o    = 1'b1;
      out_waddr_o = ew_out_waddr;
      out_wdata_o = ew_out_wdata;
      out_wbe_o   = ew_out_wbe;
    end
    if (pl_out_we) begin
      out_we_o    = 1'b1;
      out_waddr_o = pl_out_waddr;
      out_wdata_o = pl_out_wdata;
      out_wbe_o   = pl_out_wbe;
    end
    prm_re_o    = (rq_state_q == RqParam && rq_pstep_q < 3'd3) || ew_prm_re;
    unique case (rq_pstep_q)
      3'd0:    prm_raddr_o = rq_q.bias_addr;
      3'd1:    prm_raddr_o = rq_q.mult_addr;
      default: prm_raddr_o = rq_q.shift_addr;
    endcase
    if (ew_prm_re) prm_raddr_o = ew_prm_raddr;
  end

  // The row an accumulating drain read: ACC returns the row as it was before the cycle of
  // the read, so bytes the second stage wrote in that very cycle (the last rows of one tile,
  // the first of the next on the same address: DWCONVs drain back to back) are forwarded.
  // Windows are Cols*8 bytes: a depthwise pair may meet a row or pair written half a window
  // away, so the written window is shifted to its place in the read one.
  logic               fwd_hit, fwd_up, fwd_q;
  baddr_t             fwd_ahead, fwd_behind;  // write - read, read - write (modulo)
  logic [Cols*64-1:0] fwd_data_q, fwd_mask_q, acc_old;
  assign fwd_ahead  = acc_waddr_o - st1_addr;
  assign fwd_behind = st1_addr - acc_waddr_o;
  assign fwd_up     = 32'(fwd_ahead) < Cols * 8;  // the write starts inside the read window
  assign fwd_hit    = acc_drain_read && acc_we_o && (fwd_up || 32'(fwd_behind) < Cols * 8);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fwd_q <= 1'b0;
    end else begin
      fwd_q <= fwd_hit;
    end
  end
  // The written bytes and their enables as a bit mask, in the read window's place, kept only
  // when forwarded (rare), so the merge below is two wide operations a cycle.
  always_ff @(posedge clk_i) begin
    if (fwd_hit) begin
      logic [Cols*64-1:0] mask;
      for (int unsigned b = 0; b < Cols * 8; b++) mask[8*b +: 8] = {8{acc_wbe_o[b]}};
      if (fwd_up) begin
        fwd_data_q <= acc_wdata_o << (8 * 32'(fwd_ahead));
        fwd_mask_q <= mask << (8 * 32'(fwd_ahead));
      end else begin
        fwd_data_q <= acc_wdata_o >> (8 * 32'(fwd_behind));
        fwd_mask_q <= mask >> (8 * 32'(fwd_behind));
      end
    end
  end
  assign acc_old = fwd_q ? acc_rdata_i ^ ((acc_rdata_i ^ fwd_data_q) & fwd_mask_q) : acc_rdata_i;

  // =========================================================================================
  // State
  // =========================================================================================
  logic cmd_fire, tile_push;
  assign cmd_fire  = cmd_valid_i && cmd_ready_o;
  // An accepted REQUANT_STORE starts at once with the unit idle and no pulse held (nothing is
  // pending then: cmd_ready_o), else it waits in the pending slot.
  assign rq_accept = cmd_fire && !c_oob && c_op == nnc_isa_pkg::OpcodeRequantStore && !rq_busy &&
                     held_q == '0;
  assign rq_start  = rq_accept || rq_promote;
  assign rq_src    = rq_promote ? rqn_q : c_r;
  assign tile_push = cmd_fire && (c_is_gemm || c_is_dw) && !c_oob;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      t_wr_q         <= '0;
      t_st1_q        <= '0;
      t_rd_q         <= '0;
      t_cnt_q        <= '0;
      s_active_q     <= 1'b0;
      nx_valid_q     <= 1'b0;
      s_q            <= '0;
      nx_q           <= '0;
      p_q            <= '0;
      g_pend_q       <= 1'b0;
      g_pend_last_q  <= 1'b0;
      d1_valid_q     <= 1'b0;
      d1_last_q      <= 1'b0;
      d1_write_q     <= 1'b0;
      d1_accum_q     <= 1'b0;
      d1_acc64_q     <= 1'b0;
      d1_addr_q      <= '0;
      d1_be_q        <= '0;
      d1_row_q       <= '0;
      rq_state_q     <= RqIdle;
      rq_q           <= '0;
      rq_pstep_q     <= '0;
      rq_bias_q      <= '0;
      rq_mult_q      <= '0;
      rq_shift_q     <= '0;
      rq_lo_q        <= '0;
      rq_hi_q        <= '0;
      rq_issued_q    <= '0;
      rq_written_q   <= '0;
      rq_col_q       <= '0;
      rq_gaps_q      <= '0;
      rq_skip_q      <= '0;
      rq_pair_q      <= 1'b0;
      rq_pend_q      <= 1'b0;
      rq_ahead_q     <= '0;
      held_q         <= '0;
      rqn_valid_q    <= 1'b0;
      rqn_q          <= '0;
      rqn_lo_q       <= '0;
      rqn_hi_q       <= '0;
      rqn_ahead_q    <= '0;
      heldn_q        <= '0;
      ds_active_q    <= 1'b0;
      ds_finished_q  <= 1'b0;
      ds_err_q       <= nnc_pkg::DensifyOk;
      wr_out_q       <= '0;
      bus_err_q      <= 1'b0;
      bus_err_addr_q <= '0;
      bus_err_resp_q <= '0;
      err_pend_q     <= 1'b0;
      err_buf_q      <= nnc_isa_pkg::BufferInp;
    end else begin
      // --- accept ---
      err_pend_q <= 1'b0;
      if (cmd_fire) begin
        if (c_oob) begin
          err_pend_q <= 1'b1;
          err_buf_q  <= c_oob_buf;
        end else begin
          unique case (c_op)
            nnc_isa_pkg::OpcodeGemm, nnc_isa_pkg::OpcodeDwconv: t_wr_q <= t_wr_q + 1'b1;
            nnc_isa_pkg::OpcodeRequantStore: begin
              if (!rq_accept) begin  // into the pending slot (ISA 1.15)
                rqn_valid_q <= 1'b1;
                rqn_q       <= c_r;
                rqn_lo_q    <= clamp32(c_r.clamp_min, t_min, t_max);
                rqn_hi_q    <= clamp32(c_r.clamp_max, t_min, t_max);
                // Every tile in flight is ahead of it.
                rqn_ahead_q <= t_cnt_q - (TPtrW+1)'(tile_done);
              end
            end
            nnc_isa_pkg::OpcodeDensify: begin
              ds_active_q   <= 1'b1;
              ds_finished_q <= 1'b0;
              bus_err_q     <= 1'b0;
            end
            default: ;
          endcase
        end
      end

      // --- GEMM streaming ---
      if (g_issue) begin
        s_q.left <= s_q.left - 16'd1;
        s_q.inp  <= s_q.inp + BAddrW'(s_q.wide ? 2 * Rows : Rows);
        s_q.wgt  <= s_q.wgt + BAddrW'(s_q.wgt_wide ? 2 * Cols : Cols);
        p_q.win      <= s_q.win;
        p_q.wide     <= s_q.wide;
        p_q.wgt_wide <= s_q.wgt_wide;
        p_q.asg      <= s_q.asg;
        p_q.bsg      <= s_q.bsg;
        p_q.azp      <= s_q.azp;
        p_q.bzp      <= s_q.bzp;
      end
      // The head's last beat: the GEMM behind it (if any) streams next.
      if (g_head_done) begin
        if (nx_valid_q) begin
          s_q        <= nx_q;
          nx_valid_q <= 1'b0;
        end else begin
          s_active_q <= 1'b0;
        end
      end
      // An accepted GEMM streams at once when nothing else does (cmd_ready_o: nx is free).
      if (cmd_fire && c_is_gemm && !c_oob) begin
        if (!s_active_q || g_head_done) begin
          s_q        <= c_stream;
          s_active_q <= 1'b1;
        end else begin
          nx_q       <= c_stream;
          nx_valid_q <= 1'b1;
        end
      end
      g_pend_q      <= g_issue;
      g_pend_last_q <= g_issue && g_last;

      // --- drain ---
      d1_valid_q <= dr_valid;
      if (dr_valid) begin
        d1_last_q  <= dr_last;
        d1_write_q <= st1_write;
        d1_accum_q <= st1_tile.accumulate;
        d1_acc64_q <= st1_tile.acc64;
        d1_addr_q  <= st1_addr;
        // A depthwise pair: its second row's lanes in the upper half (int32 rows, acc64 is 0).
        d1_be_q    <= st1_pair ? lane_be(st1_tile.n, 1'b0) | (lane_be(st1_tile.n, 1'b0) << (Cols*4))
                               : lane_be(st1_tile.n, st1_tile.acc64);
        d1_row_q   <= dr_dw ? dw_out_acc : pack_sums(mac_out_acc, st1_tile.acc64);
        if (dr_last) t_st1_q <= t_st1_q + 1'b1;
      end
      if (tile_done) t_rd_q <= t_rd_q + 1'b1;
      if (tile_done && rq_busy && rq_ahead_q != '0) rq_ahead_q <= rq_ahead_q - 1'b1;
      if (tile_done && rqn_valid_q && rqn_ahead_q != '0) rqn_ahead_q <= rqn_ahead_q - 1'b1;
      held_q  <= held_q + 4'(tile_held) - 4'(held_emit);
      heldn_q <= heldn_q + 4'(tile_heldn);
      // A REQUANT_STORE starts: accepted with the unit idle, or the pending one. Every tile
      // in flight is ahead of one accepted so (no pulse is held then); the pending one's
      // held pulses become the unit's.
      if (rq_start) begin
        rq_state_q   <= RqParam;
        rq_q         <= rq_src;
        rq_pstep_q   <= '0;
        rq_issued_q  <= '0;
        rq_written_q <= '0;
        rq_col_q     <= rq_src.seg_first;
        rq_gaps_q    <= '0;
        rq_skip_q    <= '0;
        rq_pair_q    <= !rq_src.acc64 && rq_src.out_width != nnc_isa_pkg::ElemWidthW32;
      end
      if (rq_promote) begin
        rq_lo_q     <= rqn_lo_q;
        rq_hi_q     <= rqn_hi_q;
        rq_ahead_q  <= rqn_ahead_q - (TPtrW+1)'(tile_done && rqn_ahead_q != '0);
        rqn_valid_q <= 1'b0;
        held_q      <= heldn_q + 4'(tile_heldn);
        heldn_q     <= '0;
      end else if (rq_accept) begin
        rq_lo_q    <= clamp32(c_r.clamp_min, t_min, t_max);
        rq_hi_q    <= clamp32(c_r.clamp_max, t_min, t_max);
        rq_ahead_q <= t_cnt_q - (TPtrW+1)'(tile_done);
      end
      t_cnt_q <= t_cnt_q + (TPtrW+1)'(tile_push) - (TPtrW+1)'(tile_done);

      // --- requant ---
      if (rq_state_q == RqParam) begin
        rq_pstep_q <= rq_pstep_q + 3'd1;
        for (int unsigned c = 0; c < Cols; c++) begin
          if (rq_pstep_q == 3'd1) begin
            rq_bias_q[32*c +: 32] <= rq_q.bias_en ? prm_rdata_i[32*c +: 32] : 32'd0;
          end
          if (rq_pstep_q == 3'd2) begin
            rq_mult_q[32*c +: 32] <= rq_q.per_channel ? prm_rdata_i[32*c +: 32] : prm_rdata_i[31:0];
          end
          if (rq_pstep_q == 3'd3) begin
            rq_shift_q[8*c +: 8] <= rq_q.per_channel ? prm_rdata_i[8*c +: 8] : prm_rdata_i[7:0];
          end
        end
        if (rq_pstep_q == 3'd3) rq_state_q <= RqStream;
      end
      if (rq_issue) rq_issued_q <= rq_issued_q + (rq_pair_q ? 13'd2 : 13'd1);
      rq_pend_q <= rq_issue;
      if (rq_out_valid) rq_written_q <= rq_written_q + rq_step;
      // Segments (ISA 1.13): a gap after a pair that fills its segment, while gaps are left.
      if (rq_out_valid && rq_q.segments) begin
        if (13'(rq_col_q) + 13'd1 >= 13'(rq_q.seg_pairs) && rq_gaps_q < rq_q.seg_gaps) begin
          rq_col_q  <= '0;
          rq_gaps_q <= rq_gaps_q + 8'd1;
          rq_skip_q <= rq_skip_q + 20'(rq_q.seg_gap);
        end else begin
          rq_col_q <= rq_col_q + 12'd1;
        end
      end
      if (rq_last_write) rq_state_q <= RqIdle;

      // --- densify ---
      if (ds_done) begin
        ds_finished_q <= 1'b1;
        ds_err_q      <= ds_err;
      end
      if (ds_complete) ds_active_q <= 1'b0;
      // A read error is the unit's to report: it stops at the first element it needs from
      // a failed beat (a failed prefetch it never needs is no error). A straddling element
      // (response 0) is a metadata error, not a bus error.
      if (ds_done && ds_err == nnc_pkg::DensifyErrBus && ds_err_resp != 2'b00 && !bus_err_q) begin
        bus_err_q      <= 1'b1;
        bus_err_addr_q <= ds_err_addr;
        bus_err_resp_q <= ds_err_resp;
      end
      wr_out_q <= wr_out_q + 16'(wr_go && aux_req_ready_i) - 16'(aux_brsp_valid_i);
      if (aux_brsp_valid_i && aux_brsp_resp_i != 2'b00 && !bus_err_q) begin
        bus_err_q      <= 1'b1;
        bus_err_addr_q <= c_d_out_addr_q;
        bus_err_resp_q <= aux_brsp_resp_i;
      end
    end
  end

  // The densify output address, for write errors (the unit posts its writes).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      c_d_out_addr_q <= '0;
    end else if (ds_start) begin
      c_d_out_addr_q <= c_d.out_addr;
    end
  end

  // The accepted GEMM's stream.
  always_comb begin
    c_stream.win      = c_g.window;
    c_stream.wide     = c_g.mode == nnc_isa_pkg::GemmModeInt16;
    c_stream.wgt_wide = c_g.mode == nnc_isa_pkg::GemmModeInt16 && !c_g.wgt8;
    c_stream.asg      = c_g.a_signed;
    c_stream.bsg      = c_g.b_signed;
    c_stream.azp      = 17'(c_g.a_zp);
    c_stream.bzp      = 17'(c_g.b_zp);
    c_stream.left     = c_g.k;
    c_stream.inp      = c_g.inp_addr;
    c_stream.wgt      = c_g.wgt_addr;
    c_stream.mn       = 16'(c_g.m) * 16'(c_g.n);
  end

  // A window beat's lanes, taken from the fetch with its WGT read (no reset: guarded by
  // p_q.win).
  always_ff @(posedge clk_i) begin
    if (g_issue && s_q.win) p_act_q <= f_act;
  end

  // Tile storage without reset (guarded by the counters).
  tile_t c_tile;
  always_comb begin
    c_tile.acc_addr   = c_is_dw ? c_w.acc_addr : c_g.acc_addr;
    c_tile.m          = c_is_dw ? c_w.m : c_g.m;
    c_tile.n          = c_is_dw ? c_w.n : c_g.n;
    c_tile.accumulate = c_is_dw ? c_w.accumulate : c_g.accumulate;
    c_tile.acc64      = c_is_dw ? 1'b0 : c_g.acc64;
    c_tile.dw         = c_is_dw;
  end
  always_ff @(posedge clk_i) begin
    if (tile_push) tiles_q[t_wr_q] <= c_tile;
  end

  // Operand FIFO: a beat enters the cycle after its INP/WGT read, leaves into the array.
  logic [Rows*16-1:0] inp_lanes;
  logic [Cols*16-1:0] wgt_lanes;
  nnc_unpack_lanes #(
    .Lanes(Rows)
  ) u_unpack_inp (
    .line_i  (inp_line),
    .wide_i  (p_q.wide),
    .lanes_o (inp_lanes)
  );
  nnc_unpack_lanes #(
    .Lanes(Cols)
  ) u_unpack_wgt (
    .line_i  (wgt_rdata_i),
    .wide_i  (p_q.wgt_wide),
    .lanes_o (wgt_lanes)
  );
  always_comb begin
    of_in.act      = p_q.win ? p_act_q : inp_lanes;
    of_in.wgt      = wgt_lanes;
    of_in.last     = g_pend_last_q;
    of_in.act_wide = p_q.wide;
    of_in.wgt_wide = p_q.wgt_wide;
    of_in.asg      = p_q.asg;
    of_in.bsg      = p_q.bsg;
    of_in.azp      = p_q.azp;
    of_in.bzp      = p_q.bzp;
  end
  prim_fifo_sync #(
    .Width ($bits(of_in)),
    .Depth (OpFifo)
  ) u_operand_fifo (
    .clk_i,
    .rst_ni,
    .push_i  (g_pend_q),
    .wdata_i (of_in),
    .pop_i   (mac_in_fire),
    .rdata_o (of_head),
    .count_o (of_cnt_q)
  );

  // Accumulator FIFO: an ACC read enters the cycle after it, leaves into the requant unit
  // (unpacked into its lanes there).
  always_comb begin
    rf_in = '0;
    if (rq_pend_q) rf_in = acc_rdata_i;  // only for a push
  end
  prim_fifo_sync #(
    .Width (Cols * 64),
    .Depth (OpFifo)
  ) u_acc_fifo (
    .clk_i,
    .rst_ni,
    .push_i  (rq_pend_q),
    .wdata_i (rf_in),
    .pop_i   (rf_cnt_q != '0 && rq_in_ready),
    .rdata_o (rf_head),
    .count_o (rf_cnt_q)
  );

  // =========================================================================================
  // Events
  // =========================================================================================
  // A DWCONV's MACs are counted when it is accepted (m*n*fh*fw, at most 12,544 on 16x16),
  // in the same cycle as a GEMM beat's.
  assign macs_o          = (g_issue ? s_q.mn : 16'd0) +
                           (dw_start ? 16'(16'(c_w.m) * 16'(c_w.n) * 16'(c_w.fh) * 16'(c_w.fw))
                                     : 16'd0);
  assign densify_busy_o  = ds_busy;
  assign densify_stall_o = ds_busy && ((ds_wr_valid && !ds_wr_ready) || ds_rd_stall);
  assign progress_o      = cmd_fire || held_emit || g_issue || f_inp_re || dw_busy || mac_in_fire || mac_out_valid || rq_issue ||
                           rq_out_valid || ew_busy || pl_busy || (aux_req_valid_o && aux_req_ready_i) ||
                           aux_rrsp_valid_i || aux_brsp_valid_i || ds_busy;

  // Outputs that only matter in some configurations.
  logic unused_compute;
  assign unused_compute = ^{ds_written, mac_idle, f_empty};
  // Each command struct view is read only for its own fields (header, reserved bits unused).
  logic unused_cmd_views;
  assign unused_cmd_views = ^{c_g, c_d, c_w, c_e, c_p, rq_q};

  // =========================================================================================
  // Assertions
  // =========================================================================================
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      `PRIM_ASSERT_I(OneInpReadPerCycle_A, !(dw_inp_fire && (f_inp_re || (g_issue && !s_q.win))),
        ("nnc_compute: the depthwise unit and a GEMM read INP in one cycle"))
      `PRIM_ASSERT_I(OneWgtReadPerCycle_A, !(dw_wgt_re && (g_issue || ew_wgt_re)),
        ("nnc_compute: the depthwise unit and a GEMM read WGT in one cycle"))
      `PRIM_ASSERT_I(DrainWithTile_A, !(dr_valid && t_cnt_q == '0),
        ("nnc_compute: drained row with no tile"))
      `PRIM_ASSERT_I(RequantRowExpected_A, !(rq_out_valid && rq_state_q != RqStream),
        ("nnc_compute: stray requant row"))
      `PRIM_ASSERT_I(OneCompletion_A, 32'(tile_now) + 32'(held_emit) + 32'(rq_last_write) +
                                      32'(ds_complete) + 32'(ew_done) + 32'(pl_done) +
                                      32'(err_pend_q) <= 1,
        ("nnc_compute: two completions"))
      `PRIM_ASSERT_I(HeldFits_A, !(tile_held && held_q == 4'hf),
        ("nnc_compute: too many held completions"))
      `PRIM_ASSERT_I(HeldPendingFits_A, !(tile_heldn && heldn_q == 4'hf),
        ("nnc_compute: too many completions held behind the pending REQUANT_STORE"))
      `PRIM_ASSERT_I(HeldPendingOnlyWhilePending_A, !(heldn_q != '0 && !rqn_valid_q),
        ("nnc_compute: completions held behind no pending REQUANT_STORE"))
      `PRIM_ASSERT_I(RequantAfterItsTiles_A, !(rq_issue && rq_ahead_q != '0),
        ("nnc_compute: a REQUANT_STORE read ACC before the tiles ahead of it drained"))
      `PRIM_ASSERT_I(OneInpReader_A, !(f_inp_re && g_issue && !s_q.win),
        ("nnc_compute: window fetch and k-major GEMM read INP in one cycle"))
      `PRIM_ASSERT_I(NextIsWindow_A, !(nx_valid_q && !(s_active_q && s_q.win && nx_q.win)),
        ("nnc_compute: a GEMM waits behind one that is not a window GEMM"))
      `PRIM_ASSERT_I(InpWriteIsByte_A, !(inp_we_o && rq_q.out_width != nnc_isa_pkg::ElemWidthW8),
        ("nnc_compute: a REQUANT_STORE wrote INP with wider than 8-bit outputs"))
    end
  end
  `PRIM_ASSERT_INIT(InpPortFitsPair_A, Cols <= Rows,
      ("nnc_compute: two 8-bit rows of C bytes must fit INP's port of 2 * Rows bytes"))

endmodule
