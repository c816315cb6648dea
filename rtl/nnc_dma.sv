// DMA and memory interface of the NPU: the only AXI4 master.
//
// - Load engine (DMA_LOAD, AXI ID 1): DRAM -> on-chip buffer, up to 3-D strided.
// - Store engine (DMA_STORE, AXI ID 1): on-chip buffer -> DRAM, up to 3-D strided.
// - Fetch client (AXI ID 0): one 32-byte command per request, for the command processor.
// - Aux client (AXI ID 2): single-beat reads and writes for the densify unit.
//
// Transfers are byte granular: every row is split into INCR bursts of whole bus beats
// (<= 256 beats, never crossing 4 KiB); the first and last beat of a row carry only the
// row's bytes. The buffers accept a window at any byte address (nnc_buffer), so one beat
// becomes one buffer access and no realignment stage is needed. The address walker of the
// data channel (R or W) replays the same row/beat sequence as the address walker of the
// AR/AW channel, so no per-burst bookkeeping is needed beyond counters (AXI keeps the
// order of same-ID responses).
//
// Before any byte moves, a command's whole buffer footprint is checked against the buffer
// size (ErrCodeDmaOob: nothing is transferred). A bus error (SLVERR/DECERR) stops issuing
// bursts; the bursts in flight complete (their data is dropped) and the engine reports the
// first faulting beat address (R) or burst address (B). abort_i does the same without an
// error, so a soft reset never leaves a transaction half done.
module nnc_dma
  import nnc_isa_pkg::*;
#(
  parameter int unsigned BusBytes       = AxiDataBytes,
  parameter int unsigned MaxOutstanding = DmaBursts,  // bursts in flight per engine
  parameter int unsigned InpBytes       = InpBufBytes,
  parameter int unsigned WgtBytes       = WgtBufBytes,
  parameter int unsigned AccBytes       = AccBufBytes,
  parameter int unsigned OutBytes       = OutBufBytes,
  parameter int unsigned PrmBytes       = PrmBufBytes,
  localparam int unsigned BusBits       = BusBytes * 8,
  localparam int unsigned BeatBits      = $clog2(BusBytes)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  abort_i,        // stop after the bursts in flight

  // Fetch client: a request reads one command (CmdBytes) at an aligned address.
  input  logic                  fetch_req_valid_i,
  output logic                  fetch_req_ready_o,
  input  logic [31:0]           fetch_req_addr_i,
  output logic                  fetch_rsp_valid_o,  // no backpressure: reserve space first
  output cmd_t                  fetch_rsp_cmd_o,
  output logic [1:0]            fetch_rsp_resp_o,   // worst AXI response of its beats

  // Load engine
  input  logic                  ld_valid_i,
  output logic                  ld_ready_o,
  input  cmd_t                  ld_cmd_i,
  output logic                  ld_done_o,          // pulse; with ld_err_o on failure
  output logic                  ld_err_o,
  output err_code_e             ld_err_code_o,
  output logic [31:0]           ld_err_addr_o,      // bus address (bus errors)
  output logic [31:0]           ld_err_info_o,
  output logic                  ld_busy_o,

  // Store engine
  input  logic                  st_valid_i,
  output logic                  st_ready_o,
  input  cmd_t                  st_cmd_i,
  output logic                  st_done_o,
  output logic                  st_err_o,
  output err_code_e             st_err_code_o,
  output logic [31:0]           st_err_addr_o,
  output logic [31:0]           st_err_info_o,
  output logic                  st_busy_o,

  // Buffer write port (load engine); data byte i goes to bw_addr_o + i
  output logic                  bw_valid_o,
  input  logic                  bw_ready_i,
  output buffer_e               bw_buf_o,
  output logic [BufAddrBits-1:0] bw_addr_o,
  output logic [BusBits-1:0]    bw_data_o,
  output logic [BusBytes-1:0]   bw_be_o,

  // Buffer read port (store engine); data arrives the cycle after the accepted request
  output logic                  br_valid_o,
  input  logic                  br_ready_i,
  output buffer_e               br_buf_o,
  output logic [BufAddrBits-1:0] br_addr_o,
  input  logic [BusBits-1:0]    br_data_i,

  // Aux client (densify): one aligned beat per request, reads or writes
  input  logic                  aux_req_valid_i,
  output logic                  aux_req_ready_o,
  input  logic                  aux_req_write_i,
  input  logic [31:0]           aux_req_addr_i,     // beat aligned
  input  logic [BusBits-1:0]    aux_req_wdata_i,
  input  logic [BusBytes-1:0]   aux_req_wstrb_i,
  output logic                  aux_rrsp_valid_o,   // read data; no backpressure
  output logic [BusBits-1:0]    aux_rrsp_data_o,
  output logic [1:0]            aux_rrsp_resp_o,
  output logic                  aux_brsp_valid_o,   // write response; no backpressure
  output logic [1:0]            aux_brsp_resp_o,

  // AXI4 master
  output logic                  m_axi_awvalid_o,
  input  logic                  m_axi_awready_i,
  output logic [1:0]            m_axi_awid_o,
  output logic [31:0]           m_axi_awaddr_o,
  output logic [7:0]            m_axi_awlen_o,
  output logic [2:0]            m_axi_awsize_o,
  output logic [1:0]            m_axi_awburst_o,
  output logic                  m_axi_wvalid_o,
  input  logic                  m_axi_wready_i,
  output logic [BusBits-1:0]    m_axi_wdata_o,
  output logic [BusBytes-1:0]   m_axi_wstrb_o,
  output logic                  m_axi_wlast_o,
  input  logic                  m_axi_bvalid_i,
  output logic                  m_axi_bready_o,
  input  logic [1:0]            m_axi_bid_i,
  input  logic [1:0]            m_axi_bresp_i,
  output logic                  m_axi_arvalid_o,
  input  logic                  m_axi_arready_i,
  output logic [1:0]            m_axi_arid_o,
  output logic [31:0]           m_axi_araddr_o,
  output logic [7:0]            m_axi_arlen_o,
  output logic [2:0]            m_axi_arsize_o,
  output logic [1:0]            m_axi_arburst_o,
  input  logic                  m_axi_rvalid_i,
  output logic                  m_axi_rready_o,
  input  logic [1:0]            m_axi_rid_i,
  input  logic [BusBits-1:0]    m_axi_rdata_i,
  input  logic [1:0]            m_axi_rresp_i,
  input  logic                  m_axi_rlast_i,

  // Events
  output logic [15:0]           rd_bytes_o,
  output logic [15:0]           wr_bytes_o,
  output logic                  progress_o
);

  localparam logic [1:0] IdFetch = 2'd0;
  localparam logic [1:0] IdDma   = 2'd1;
  localparam logic [1:0] IdAux   = 2'd2;
  localparam logic [1:0] RespOkay = 2'b00;
  localparam int unsigned FetchBeats = CmdBytes / BusBytes;
  localparam int unsigned OutW = $clog2(MaxOutstanding + 1);

  typedef logic [BufAddrBits-1:0] baddr_t;

  // --- Shared helpers -----------------------------------------------------------------------
  // The helpers take whole command/transfer/walker structs and each reads only the fields
  // it needs; the rest being unused in one helper says nothing about the design.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [39:0] buf_size(buffer_e b);
    unique case (b)
      BufferInp: return 40'(InpBytes);
      BufferWgt: return 40'(WgtBytes);
      BufferAcc: return 40'(AccBytes);
      BufferOut: return 40'(OutBytes);
      BufferPrm: return 40'(PrmBytes);
      default:   return 40'd0;
    endcase
  endfunction

  // A decoded transfer: the fields both engines use, with derived row length.
  typedef struct packed {
    buffer_e     buf_id;
    logic [31:0] dram_addr;
    logic [31:0] dram_stride1;
    logic [31:0] dram_stride2;
    baddr_t      buf_addr;
    baddr_t      buf_stride1;
    baddr_t      buf_stride2;
    logic [15:0] count1;
    logic [11:0] count2;
    logic [19:0] row_len;  // bytes, 1 .. 65535*4
  } xfer_t;

  function automatic xfer_t to_xfer(cmd_t c);
    dma_load_t d;  // DMA_STORE has the same layout
    xfer_t x;
    d = dma_load_t'(c);
    x.buf_id       = d.buf_id;
    x.dram_addr    = d.dram_addr;
    x.dram_stride1 = d.dram_stride1;
    x.dram_stride2 = d.dram_stride2;
    x.buf_addr     = d.buf_addr;
    x.buf_stride1  = d.buf_stride1;
    x.buf_stride2  = d.buf_stride2;
    x.count1       = d.count1;
    x.count2       = d.count2;
    x.row_len      = 20'(d.count0) << d.elem_width;
    return x;
  endfunction

  // Last buffer byte + 1 of the whole transfer (strides are unsigned, so the last row ends last).
  function automatic logic oob(xfer_t x);
    logic [39:0] last_end;
    last_end = 40'(x.buf_addr) + 40'(12'(x.count2 - 12'd1)) * 40'(x.buf_stride2) +
               40'(16'(x.count1 - 16'd1)) * 40'(x.buf_stride1) + 40'(x.row_len);
    return last_end > buf_size(x.buf_id);
  endfunction

  function automatic logic [31:0] beat_of(logic [31:0] a);
    return {a[31:BeatBits], BeatBits'(0)};
  endfunction

  // Row walker state shared by the four walkers (AR, R, AW, W).
  typedef struct packed {
    logic [31:0] plane_dram;  // start of the current plane's first row
    logic [31:0] row_dram;    // start of the current row
    baddr_t      plane_buf;
    baddr_t      row_buf;
    logic [15:0] y;
    logic [11:0] z;
    logic [31:0] beat;        // current beat address within the row
    logic        done;        // every row walked
  } walk_t;

  function automatic walk_t walk_start(xfer_t x);
    walk_t w;
    w.plane_dram = x.dram_addr;
    w.row_dram   = x.dram_addr;
    w.plane_buf  = x.buf_addr;
    w.row_buf    = x.buf_addr;
    w.y          = '0;
    w.z          = '0;
    w.beat       = beat_of(x.dram_addr);
    w.done       = 1'b0;
    return w;
  endfunction

  function automatic logic [31:0] row_last_beat(xfer_t x, walk_t w);
    return beat_of(w.row_dram + 32'(x.row_len) - 32'd1);
  endfunction

  // Moves the walker to the first beat of the next row (or sets done).
  function automatic walk_t walk_next_row(xfer_t x, walk_t w);
    walk_t n;
    n = w;
    if (w.y + 16'd1 < x.count1) begin
      n.y        = w.y + 16'd1;
      n.row_dram = w.row_dram + x.dram_stride1;
      n.row_buf  = w.row_buf + x.buf_stride1;
    end else if (w.z + 12'd1 < x.count2) begin
      n.y          = '0;
      n.z          = w.z + 12'd1;
      n.plane_dram = w.plane_dram + x.dram_stride2;
      n.plane_buf  = w.plane_buf + x.buf_stride2;
      n.row_dram   = w.plane_dram + x.dram_stride2;
      n.row_buf    = w.plane_buf + x.buf_stride2;
    end else begin
      n.done = 1'b1;
    end
    n.beat = beat_of(n.row_dram);
    return n;
  endfunction

  // Advances by `beats` beats (1 for the data walkers, a burst for the address walkers).
  function automatic walk_t walk_advance(xfer_t x, walk_t w, logic [8:0] beats);
    logic [31:0] last;
    last = row_last_beat(x, w);
    if (w.beat + (32'(9'(beats - 9'd1)) << BeatBits) == last) return walk_next_row(x, w);
    walk_advance = w;
    walk_advance.beat = w.beat + (32'(beats) << BeatBits);
  endfunction

  // Beats of the next burst: to the row end, at most 256, never across 4 KiB.
  function automatic logic [8:0] burst_beats(xfer_t x, walk_t w);
    logic [31:0] left_row;
    logic [12:0] left_4k;
    left_row = ((row_last_beat(x, w) - w.beat) >> BeatBits) + 32'd1;
    left_4k  = (13'd4096 - {1'b0, w.beat[11:0]}) >> BeatBits;
    if (left_row < 32'(left_4k)) return 9'(left_row);
    return 9'(left_4k);
  endfunction

  // Bytes of the current beat that belong to the row: [lo, hi).
  function automatic logic [BeatBits:0] beat_lo(walk_t w);
    if (w.beat == beat_of(w.row_dram)) return (BeatBits+1)'(w.row_dram[BeatBits-1:0]);
    return '0;
  endfunction
  function automatic logic [BeatBits:0] beat_hi(xfer_t x, walk_t w);
    logic [31:0] last_byte;
    last_byte = w.row_dram + 32'(x.row_len) - 32'd1;
    if (w.beat == beat_of(last_byte)) return (BeatBits+1)'(last_byte[BeatBits-1:0]) + 1'b1;
    return (BeatBits+1)'(BusBytes);
  endfunction
  // Buffer address of byte lo of the current beat.
  function automatic baddr_t beat_buf_addr(walk_t w, logic [BeatBits:0] lo);
    return w.row_buf + baddr_t'(w.beat + 32'(lo) - w.row_dram);
  endfunction

  /* verilator lint_on UNUSEDSIGNAL */

  // =========================================================================================
  // AR channel: one registered request, loaded by priority fetch > load > aux.
  // =========================================================================================
  logic        ar_valid_d, ar_valid_q;
  logic [1:0]  ar_id_d, ar_id_q;
  logic [31:0] ar_addr_d, ar_addr_q;
  logic [7:0]  ar_len_d, ar_len_q;
  logic        ar_free;
  logic        ld_ar_req, ld_ar_gnt;
  logic [31:0] ld_ar_addr;
  logic [8:0]  ld_ar_beats;
  logic        aux_ar_gnt;
  logic        aux_rd_req;

  assign ar_free = !ar_valid_q || m_axi_arready_i;
  assign aux_rd_req = aux_req_valid_i && !aux_req_write_i;

  always_comb begin
    ar_valid_d   = ar_valid_q && !m_axi_arready_i;
    ar_id_d      = ar_id_q;
    ar_addr_d    = ar_addr_q;
    ar_len_d     = ar_len_q;
    ld_ar_gnt    = 1'b0;
    aux_ar_gnt   = 1'b0;
    if (ar_free) begin
      if (fetch_req_valid_i) begin
        ar_valid_d   = 1'b1;
        ar_id_d      = IdFetch;
        ar_addr_d    = fetch_req_addr_i;
        ar_len_d     = 8'(FetchBeats - 1);
      end else if (ld_ar_req) begin
        ld_ar_gnt  = 1'b1;
        ar_valid_d = 1'b1;
        ar_id_d    = IdDma;
        ar_addr_d  = ld_ar_addr;
        ar_len_d   = 8'(ld_ar_beats - 9'd1);
      end else if (aux_rd_req) begin
        aux_ar_gnt = 1'b1;
        ar_valid_d = 1'b1;
        ar_id_d    = IdAux;
        ar_addr_d  = aux_req_addr_i;
        ar_len_d   = 8'd0;
      end
    end
  end

  assign m_axi_arvalid_o   = ar_valid_q;
  assign m_axi_arid_o      = ar_id_q;
  assign m_axi_araddr_o    = ar_addr_q;
  assign m_axi_arlen_o     = ar_len_q;
  assign m_axi_arsize_o    = 3'(BeatBits);
  assign m_axi_arburst_o   = 2'b01;  // INCR
  assign fetch_req_ready_o = ar_free;

  // =========================================================================================
  // Fetch responses: assemble the beats of one command.
  // =========================================================================================
  logic [FetchBeats-1:0][BusBits-1:0] fetch_data_d, fetch_data_q;
  logic [$clog2(FetchBeats)-1:0]      fetch_beat_d, fetch_beat_q;
  logic [1:0]                         fetch_resp_d, fetch_resp_q;
  logic                               fetch_rsp_valid_d, fetch_rsp_valid_q;
  logic                               r_fetch;

  assign r_fetch = m_axi_rvalid_i && m_axi_rid_i == IdFetch;

  always_comb begin
    fetch_data_d      = fetch_data_q;
    fetch_beat_d      = fetch_beat_q;
    fetch_resp_d      = fetch_resp_q;
    fetch_rsp_valid_d = 1'b0;
    if (r_fetch) begin
      fetch_data_d[fetch_beat_q] = m_axi_rdata_i;
      // The worst response of the command's beats (OKAY < EXOKAY < SLVERR < DECERR).
      if (fetch_beat_q == '0 || m_axi_rresp_i > fetch_resp_q) fetch_resp_d = m_axi_rresp_i;
      if (m_axi_rlast_i) begin
        fetch_rsp_valid_d = 1'b1;
        fetch_beat_d      = '0;
      end else begin
        fetch_beat_d = fetch_beat_q + 1'b1;
      end
    end
  end

  assign fetch_rsp_valid_o = fetch_rsp_valid_q;
  assign fetch_rsp_cmd_o   = cmd_t'(fetch_data_q);
  assign fetch_rsp_resp_o  = fetch_resp_q;

  // =========================================================================================
  // Load engine
  // =========================================================================================
  typedef enum logic [1:0] {EngIdle, EngCheck, EngRun, EngDone} eng_state_e;

  eng_state_e       ld_state_d, ld_state_q;
  xfer_t            ld_x_d, ld_x_q;
  walk_t            ld_aw_d, ld_aw_q;   // address walker (AR)
  walk_t            ld_dw_d, ld_dw_q;   // data walker (R)
  logic [OutW-1:0]  ld_out_d, ld_out_q; // bursts in flight
  logic             ld_stop_d, ld_stop_q;  // no more bursts (error or abort)
  logic             ld_err_d, ld_err_q;
  err_code_e        ld_code_d, ld_code_q;
  logic [31:0]      ld_eaddr_d, ld_eaddr_q;
  logic [31:0]      ld_einfo_d, ld_einfo_q;
  logic             ld_done_d, ld_done_q;
  logic             r_ld;
  logic [BeatBits:0] ld_lo, ld_hi;

  assign r_ld        = m_axi_rvalid_i && m_axi_rid_i == IdDma;
  assign ld_ar_req   = ld_state_q == EngRun && !ld_aw_q.done && !ld_stop_q &&
                       ld_out_q < OutW'(MaxOutstanding);
  assign ld_ar_addr  = ld_aw_q.beat;
  assign ld_ar_beats = burst_beats(ld_x_q, ld_aw_q);
  assign ld_lo       = beat_lo(ld_dw_q);
  assign ld_hi       = beat_hi(ld_x_q, ld_dw_q);

  // Buffer write for an R beat of the load engine (dropped once the engine has stopped).
  assign bw_valid_o = r_ld && !ld_stop_q && m_axi_rresp_i == RespOkay;
  assign bw_buf_o   = ld_x_q.buf_id;
  assign bw_addr_o  = beat_buf_addr(ld_dw_q, ld_lo);
  assign bw_data_o  = m_axi_rdata_i >> (8 * ld_lo);
  assign bw_be_o    = ~({BusBytes{1'b1}} << (ld_hi - ld_lo));

  always_comb begin
    ld_state_d = ld_state_q;
    ld_x_d     = ld_x_q;
    ld_aw_d    = ld_aw_q;
    ld_dw_d    = ld_dw_q;
    ld_out_d   = ld_out_q;
    ld_stop_d  = ld_stop_q || abort_i;
    ld_err_d   = ld_err_q;
    ld_code_d  = ld_code_q;
    ld_eaddr_d = ld_eaddr_q;
    ld_einfo_d = ld_einfo_q;
    ld_done_d  = 1'b0;

    if (ld_ar_gnt) begin
      ld_aw_d = walk_advance(ld_x_q, ld_aw_q, ld_ar_beats);
    end
    if (r_ld && m_axi_rready_o) begin
      ld_dw_d = walk_advance(ld_x_q, ld_dw_q, 9'd1);
      if (m_axi_rresp_i != RespOkay && !ld_err_q && !ld_stop_q) begin
        ld_err_d   = 1'b1;
        ld_stop_d  = 1'b1;
        ld_code_d  = ErrCodeBusError;
        ld_eaddr_d = ld_dw_q.beat;
        ld_einfo_d = 32'(m_axi_rresp_i);
      end
    end
    ld_out_d = ld_out_q + OutW'(ld_ar_gnt) - OutW'(r_ld && m_axi_rready_o && m_axi_rlast_i);

    unique case (ld_state_q)
      EngIdle: begin
        ld_stop_d = 1'b0;
        if (ld_valid_i) begin
          ld_x_d     = to_xfer(ld_cmd_i);
          ld_err_d   = 1'b0;
          ld_code_d  = ErrCodeNone;
          ld_eaddr_d = '0;
          ld_einfo_d = '0;
          ld_state_d = EngCheck;
        end
      end
      EngCheck: begin
        ld_aw_d = walk_start(ld_x_q);
        ld_dw_d = walk_start(ld_x_q);
        if (oob(ld_x_q)) begin
          ld_err_d   = 1'b1;
          ld_code_d  = ErrCodeDmaOob;
          ld_einfo_d = 32'(ld_x_q.buf_id);
          ld_state_d = EngDone;
        end else if (ld_stop_q) begin
          ld_state_d = EngDone;
        end else begin
          ld_state_d = EngRun;
        end
      end
      EngRun: begin
        // Finished when every issued burst has returned and no more will be issued.
        if ((ld_aw_q.done || ld_stop_q) && ld_out_q == '0 && !ld_ar_gnt) begin
          ld_state_d = EngDone;
        end
      end
      EngDone: begin
        ld_done_d  = 1'b1;
        ld_state_d = EngIdle;
      end
      default: ld_state_d = EngIdle;
    endcase
  end

  assign ld_ready_o    = ld_state_q == EngIdle;
  assign ld_done_o     = ld_done_q;
  assign ld_err_o      = ld_err_q;
  assign ld_err_code_o = ld_code_q;
  assign ld_err_addr_o = ld_eaddr_q;
  assign ld_err_info_o = ld_einfo_q;
  assign ld_busy_o     = ld_state_q != EngIdle;

  // =========================================================================================
  // Store engine
  // =========================================================================================
  localparam int unsigned WFifoDepth = 4;
  localparam int unsigned WPtrW = $clog2(WFifoDepth);

  eng_state_e       st_state_d, st_state_q;
  xfer_t            st_x_d, st_x_q;
  walk_t            st_aw_d, st_aw_q;   // address walker (AW)
  walk_t            st_rw_d, st_rw_q;   // buffer read walker (W data)
  logic [OutW-1:0]  st_out_d, st_out_q; // bursts awaiting B
  logic             st_stop_d, st_stop_q;
  logic             st_err_d, st_err_q;
  err_code_e        st_code_d, st_code_q;
  logic [31:0]      st_eaddr_d, st_eaddr_q;
  logic [31:0]      st_einfo_d, st_einfo_q;
  logic             st_done_d, st_done_q;

  // Bursts whose AW has been sent: length (for WLAST) and address (for B errors).
  logic [7:0]       blen_q [MaxOutstanding];
  logic [31:0]      baddr_q [MaxOutstanding];
  logic [$clog2(MaxOutstanding)-1:0] blen_wr_q, blen_rd_q, baddr_rd_q;
  logic [OutW-1:0]  blen_cnt_q;         // bursts with W beats still to send
  logic [7:0]       wbeat_q;            // beat index within the current W burst

  // W data FIFO, filled from the buffer one cycle after each read.
  logic [BusBits-1:0]  wf_data_q [WFifoDepth];
  logic [BusBytes-1:0] wf_strb_q [WFifoDepth];
  logic [WPtrW-1:0]    wf_wr_q, wf_rd_q;
  logic [WPtrW:0]      wf_cnt_q;
  logic                rd_pend_q;        // a buffer read returns this cycle
  logic [BeatBits:0]   rd_lo_q, rd_hi_q;

  logic aw_valid_q;
  logic [31:0] aw_addr_q;
  logic [7:0]  aw_len_q;
  logic st_aw_issue, st_rd_issue, w_fire, b_st;
  logic [BeatBits:0] st_lo, st_hi;

  // AW: one registered request (the store engine is the only bursting writer; aux writes
  // wait until the store engine is idle).
  logic aux_wr_req, aux_aw_gnt;
  logic aux_w_pend_q;  // the aux write's AW is out, its single W beat not yet
  logic [BusBits-1:0]  aux_wdata_q;
  logic [BusBytes-1:0] aux_wstrb_q;
  logic [1:0]          aw_id_q;

  assign aux_wr_req  = aux_req_valid_i && aux_req_write_i;
  assign st_aw_issue = st_state_q == EngRun && !st_aw_q.done && !st_stop_q &&
                       st_out_q < OutW'(MaxOutstanding) && (!aw_valid_q || m_axi_awready_i);
  assign aux_aw_gnt  = aux_wr_req && st_state_q == EngIdle && !aux_w_pend_q &&
                       (!aw_valid_q || m_axi_awready_i) && st_out_q == '0;
  assign st_lo       = beat_lo(st_rw_q);
  assign st_hi       = beat_hi(st_x_q, st_rw_q);
  // Read the next beat's bytes when the FIFO will have room for them. After a stop, only
  // the beats that bursts already sent still owe are read.
  logic [31:0] st_aw_total_q, st_rd_total_q;  // beats sent on AW / read from the buffer
  logic        st_rd_want;
  assign st_rd_want  = st_state_q == EngRun && !st_rw_q.done &&
                       (!st_stop_q || st_rd_total_q < st_aw_total_q) &&
                       (32'(wf_cnt_q) + 32'(rd_pend_q) < WFifoDepth);
  assign st_rd_issue = st_rd_want && br_ready_i;
  assign br_valid_o  = st_rd_want;
  assign br_buf_o    = st_x_q.buf_id;
  assign br_addr_o   = beat_buf_addr(st_rw_q, st_lo);

  // W: store beats once their burst's AW is out; the aux beat after its AW.
  logic st_w_avail;
  assign st_w_avail     = wf_cnt_q != '0 && blen_cnt_q != '0;
  assign m_axi_wvalid_o = aux_w_pend_q || st_w_avail;
  assign m_axi_wdata_o  = aux_w_pend_q ? aux_wdata_q : wf_data_q[wf_rd_q];
  assign m_axi_wstrb_o  = aux_w_pend_q ? aux_wstrb_q : wf_strb_q[wf_rd_q];
  assign m_axi_wlast_o  = aux_w_pend_q || wbeat_q == blen_q[blen_rd_q];
  assign w_fire         = m_axi_wvalid_o && m_axi_wready_i;

  assign m_axi_awvalid_o = aw_valid_q;
  assign m_axi_awid_o    = aw_id_q;
  assign m_axi_awaddr_o  = aw_addr_q;
  assign m_axi_awlen_o   = aw_len_q;
  assign m_axi_awsize_o  = 3'(BeatBits);
  assign m_axi_awburst_o = 2'b01;

  assign b_st           = m_axi_bvalid_i && m_axi_bid_i == IdDma;
  assign m_axi_bready_o = 1'b1;

  logic [8:0] st_aw_beats;
  assign st_aw_beats = burst_beats(st_x_q, st_aw_q);

  always_comb begin
    st_state_d = st_state_q;
    st_x_d     = st_x_q;
    st_aw_d    = st_aw_q;
    st_rw_d    = st_rw_q;
    st_stop_d  = st_stop_q || abort_i;
    st_err_d   = st_err_q;
    st_code_d  = st_code_q;
    st_eaddr_d = st_eaddr_q;
    st_einfo_d = st_einfo_q;
    st_done_d  = 1'b0;

    if (st_aw_issue) st_aw_d = walk_advance(st_x_q, st_aw_q, st_aw_beats);
    if (st_rd_issue) st_rw_d = walk_advance(st_x_q, st_rw_q, 9'd1);
    if (b_st && m_axi_bresp_i != RespOkay && !st_err_q && !st_stop_q) begin
      st_err_d   = 1'b1;
      st_stop_d  = 1'b1;
      st_code_d  = ErrCodeBusError;
      st_eaddr_d = baddr_q[baddr_rd_q];
      st_einfo_d = 32'(m_axi_bresp_i);
    end
    st_out_d = st_out_q + OutW'(st_aw_issue) - OutW'(b_st);

    unique case (st_state_q)
      EngIdle: begin
        st_stop_d = 1'b0;
        if (st_valid_i && !aux_w_pend_q && !(aw_valid_q && aw_id_q == IdAux)) begin
          st_x_d     = to_xfer(st_cmd_i);
          st_err_d   = 1'b0;
          st_code_d  = ErrCodeNone;
          st_eaddr_d = '0;
          st_einfo_d = '0;
          st_state_d = EngCheck;
        end
      end
      EngCheck: begin
        st_aw_d = walk_start(st_x_q);
        st_rw_d = walk_start(st_x_q);
        if (oob(st_x_q)) begin
          st_err_d   = 1'b1;
          st_code_d  = ErrCodeDmaOob;
          st_einfo_d = 32'(st_x_q.buf_id);
          st_state_d = EngDone;
        end else if (st_stop_q) begin
          st_state_d = EngDone;
        end else begin
          st_state_d = EngRun;
        end
      end
      EngRun: begin
        // Every sent burst has its W beats out and its B back, and no more will be sent.
        if ((st_aw_q.done || st_stop_q) && st_out_q == '0 && !st_aw_issue && !aw_valid_q &&
            blen_cnt_q == '0) begin
          st_state_d = EngDone;
        end
      end
      EngDone: begin
        st_done_d  = 1'b1;
        st_state_d = EngIdle;
      end
      default: st_state_d = EngIdle;
    endcase
  end

  assign st_ready_o    = st_state_q == EngIdle && !aux_w_pend_q && !(aw_valid_q && aw_id_q == IdAux);
  assign st_done_o     = st_done_q;
  assign st_err_o      = st_err_q;
  assign st_err_code_o = st_code_q;
  assign st_err_addr_o = st_eaddr_q;
  assign st_err_info_o = st_einfo_q;
  assign st_busy_o     = st_state_q != EngIdle;

  // Store-side registers with their own next-state logic (AW register, burst FIFOs, W FIFO).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_valid_q   <= 1'b0;
      aw_id_q      <= IdDma;
      aw_addr_q    <= '0;
      aw_len_q     <= '0;
      aux_w_pend_q <= 1'b0;
      aux_wdata_q  <= '0;
      aux_wstrb_q  <= '0;
      blen_wr_q    <= '0;
      blen_rd_q    <= '0;
      baddr_rd_q   <= '0;
      blen_cnt_q   <= '0;
      wbeat_q      <= '0;
      wf_wr_q      <= '0;
      wf_rd_q      <= '0;
      wf_cnt_q     <= '0;
      rd_pend_q    <= 1'b0;
      st_aw_total_q <= '0;
      st_rd_total_q <= '0;
      rd_lo_q      <= '0;
      rd_hi_q      <= '0;
    end else begin
      if (m_axi_awvalid_o && m_axi_awready_i) aw_valid_q <= 1'b0;
      if (st_aw_issue) begin
        aw_valid_q <= 1'b1;
        aw_id_q    <= IdDma;
        aw_addr_q  <= st_aw_q.beat;
        aw_len_q   <= 8'(st_aw_beats - 9'd1);
        blen_wr_q  <= blen_wr_q + 1'b1;
      end else if (aux_aw_gnt) begin
        aw_valid_q   <= 1'b1;
        aw_id_q      <= IdAux;
        aw_addr_q    <= aux_req_addr_i;
        aw_len_q     <= 8'd0;
        aux_w_pend_q <= 1'b1;
        aux_wdata_q  <= aux_req_wdata_i;
        aux_wstrb_q  <= aux_req_wstrb_i;
      end
      if (aux_w_pend_q && w_fire) aux_w_pend_q <= 1'b0;
      // Burst FIFOs: pushed with the AW, length popped after the burst's last W beat,
      // address popped with its B.
      blen_cnt_q <= blen_cnt_q + OutW'(st_aw_issue) -
                    OutW'(w_fire && !aux_w_pend_q && m_axi_wlast_o);
      if (w_fire && !aux_w_pend_q) begin
        if (m_axi_wlast_o) begin
          wbeat_q   <= '0;
          blen_rd_q <= blen_rd_q + 1'b1;
        end else begin
          wbeat_q <= wbeat_q + 8'd1;
        end
      end
      if (b_st) baddr_rd_q <= baddr_rd_q + 1'b1;
      // W data FIFO
      rd_pend_q <= st_rd_issue;
      rd_lo_q   <= st_lo;
      rd_hi_q   <= st_hi;
      if (st_state_q == EngCheck) begin
        st_aw_total_q <= '0;
        st_rd_total_q <= '0;
      end else begin
        st_aw_total_q <= st_aw_total_q + (st_aw_issue ? 32'(st_aw_beats) : 32'd0);
        st_rd_total_q <= st_rd_total_q + 32'(st_rd_issue);
      end
      if (rd_pend_q) wf_wr_q <= wf_wr_q + 1'b1;
      if (w_fire && !aux_w_pend_q) wf_rd_q <= wf_rd_q + 1'b1;
      wf_cnt_q <= wf_cnt_q + (WPtrW+1)'(rd_pend_q) - (WPtrW+1)'(w_fire && !aux_w_pend_q);
      // A finished (or stopped) command leaves no stale beats behind.
      if (st_state_q == EngDone) begin
        wf_wr_q  <= '0;
        wf_rd_q  <= '0;
        wf_cnt_q <= '0;
      end
    end
  end

  // Burst-length/address and W data storage (no reset needed: guarded by the counters).
  always_ff @(posedge clk_i) begin
    if (st_aw_issue) begin
      blen_q[blen_wr_q]  <= 8'(st_aw_beats - 9'd1);
      baddr_q[blen_wr_q] <= st_aw_q.beat;
    end
    if (rd_pend_q) begin
      wf_data_q[wf_wr_q] <= br_data_i << (8 * rd_lo_q);
      wf_strb_q[wf_wr_q] <= (~({BusBytes{1'b1}} << (rd_hi_q - rd_lo_q))) << rd_lo_q;
    end
  end

  // =========================================================================================
  // Aux responses
  // =========================================================================================
  logic r_aux, b_aux;
  assign r_aux = m_axi_rvalid_i && m_axi_rid_i == IdAux;
  assign b_aux = m_axi_bvalid_i && m_axi_bid_i == IdAux;
  assign aux_req_ready_o = aux_ar_gnt || aux_aw_gnt;
  assign aux_rrsp_valid_o = r_aux;
  assign aux_rrsp_data_o  = m_axi_rdata_i;
  assign aux_rrsp_resp_o  = m_axi_rresp_i;
  assign aux_brsp_valid_o = b_aux;
  assign aux_brsp_resp_o  = m_axi_bresp_i;

  // R is accepted for fetch and aux at once, for the load engine when the buffer takes it.
  assign m_axi_rready_o = !(m_axi_rid_i == IdDma) || ld_stop_q || m_axi_rresp_i != RespOkay ||
                          bw_ready_i;

  // =========================================================================================
  // Events
  // =========================================================================================
  assign rd_bytes_o = (m_axi_rvalid_i && m_axi_rready_o) ? 16'(BusBytes) : 16'd0;
  assign wr_bytes_o = w_fire ? 16'(BusBytes) : 16'd0;
  assign progress_o = (m_axi_rvalid_i && m_axi_rready_o) || w_fire || m_axi_bvalid_i ||
                      (m_axi_arvalid_o && m_axi_arready_i) || (m_axi_awvalid_o && m_axi_awready_i);

  // =========================================================================================
  // State registers
  // =========================================================================================
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ar_valid_q        <= 1'b0;
      ar_id_q           <= IdFetch;
      ar_addr_q         <= '0;
      ar_len_q          <= '0;
      fetch_data_q      <= '0;
      fetch_beat_q      <= '0;
      fetch_resp_q      <= RespOkay;
      fetch_rsp_valid_q <= 1'b0;
      ld_state_q        <= EngIdle;
      ld_x_q            <= '0;
      ld_aw_q           <= '0;
      ld_dw_q           <= '0;
      ld_out_q          <= '0;
      ld_stop_q         <= 1'b0;
      ld_err_q          <= 1'b0;
      ld_code_q         <= ErrCodeNone;
      ld_eaddr_q        <= '0;
      ld_einfo_q        <= '0;
      ld_done_q         <= 1'b0;
      st_state_q        <= EngIdle;
      st_x_q            <= '0;
      st_aw_q           <= '0;
      st_rw_q           <= '0;
      st_out_q          <= '0;
      st_stop_q         <= 1'b0;
      st_err_q          <= 1'b0;
      st_code_q         <= ErrCodeNone;
      st_eaddr_q        <= '0;
      st_einfo_q        <= '0;
      st_done_q         <= 1'b0;
    end else begin
      ar_valid_q        <= ar_valid_d;
      ar_id_q           <= ar_id_d;
      ar_addr_q         <= ar_addr_d;
      ar_len_q          <= ar_len_d;
      fetch_data_q      <= fetch_data_d;
      fetch_beat_q      <= fetch_beat_d;
      fetch_resp_q      <= fetch_resp_d;
      fetch_rsp_valid_q <= fetch_rsp_valid_d;
      ld_state_q        <= ld_state_d;
      ld_x_q            <= ld_x_d;
      ld_aw_q           <= ld_aw_d;
      ld_dw_q           <= ld_dw_d;
      ld_out_q          <= ld_out_d;
      ld_stop_q         <= ld_stop_d;
      ld_err_q          <= ld_err_d;
      ld_code_q         <= ld_code_d;
      ld_eaddr_q        <= ld_eaddr_d;
      ld_einfo_q        <= ld_einfo_d;
      ld_done_q         <= ld_done_d;
      st_state_q        <= st_state_d;
      st_x_q            <= st_x_d;
      st_aw_q           <= st_aw_d;
      st_rw_q           <= st_rw_d;
      st_out_q          <= st_out_d;
      st_stop_q         <= st_stop_d;
      st_err_q          <= st_err_d;
      st_code_q         <= st_code_d;
      st_eaddr_q        <= st_eaddr_d;
      st_einfo_q        <= st_einfo_d;
      st_done_q         <= st_done_d;
    end
  end

  // =========================================================================================
  // Assertions
  // =========================================================================================
  // pragma translate_off
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (!(m_axi_rvalid_i && m_axi_rid_i == 2'd3)) else $error("nnc_dma: R with unknown ID");
      assert (!(m_axi_bvalid_i && m_axi_bid_i != IdDma && m_axi_bid_i != IdAux))
        else $error("nnc_dma: B with unknown ID");
      assert (!(r_ld && ld_state_q != EngRun)) else $error("nnc_dma: load beat while not running");
      assert (!(w_fire && !aux_w_pend_q && wf_cnt_q == '0)) else $error("nnc_dma: W FIFO underflow");
    end
  end
  initial begin
    assert (CmdBytes % BusBytes == 0) else $error("nnc_dma: a command must be whole beats");
    assert (BusBytes >= 4 && BusBytes <= 128) else $error("nnc_dma: bus width");
  end
  // pragma translate_on

endmodule
