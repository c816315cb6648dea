// DMA and memory interface of the NPU: the only AXI4 master.
//
// - Load engine (DMA_LOAD, AXI ID 1): DRAM -> on-chip buffer, up to 3-D strided; with
//   `fill` (ISA 1.4) it writes a byte pattern into the same rows instead, with no bus access
//   (zero-point padding on chip), one beat's bytes per cycle.
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
`include "prim_assert.svh"

module nnc_dma
#(
  parameter int unsigned BusBytes       = nnc_isa_pkg::AxiDataBytes,
  parameter int unsigned MaxOutstanding = nnc_isa_pkg::DmaBursts,  // bursts in flight per engine
  parameter int unsigned InpBytes       = nnc_isa_pkg::InpBufBytes,
  parameter int unsigned WgtBytes       = nnc_isa_pkg::WgtBufBytes,
  parameter int unsigned AccBytes       = nnc_isa_pkg::AccBufBytes,
  parameter int unsigned OutBytes       = nnc_isa_pkg::OutBufBytes,
  parameter int unsigned PrmBytes       = nnc_isa_pkg::PrmBufBytes,
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
  output nnc_isa_pkg::cmd_t                  fetch_rsp_cmd_o,
  output logic [1:0]            fetch_rsp_resp_o,   // worst AXI response of its beats

  // Load engine
  input  logic                  ld_valid_i,
  output logic                  ld_ready_o,
  input  nnc_isa_pkg::cmd_t                  ld_cmd_i,
  output logic                  ld_done_o,          // pulse; with ld_err_o on failure
  output logic                  ld_err_o,
  output nnc_isa_pkg::err_code_e             ld_err_code_o,
  output logic [31:0]           ld_err_addr_o,      // bus address (bus errors)
  output logic [31:0]           ld_err_info_o,
  output logic                  ld_busy_o,

  // Store engine
  input  logic                  st_valid_i,
  output logic                  st_ready_o,
  input  nnc_isa_pkg::cmd_t                  st_cmd_i,
  output logic                  st_done_o,
  output logic                  st_err_o,
  output nnc_isa_pkg::err_code_e             st_err_code_o,
  output logic [31:0]           st_err_addr_o,
  output logic [31:0]           st_err_info_o,
  output logic                  st_busy_o,

  // Buffer write port (load engine); data byte i goes to bw_addr_o + i
  output logic                  bw_valid_o,
  input  logic                  bw_ready_i,
  output logic [2:0]                         bw_buf_o,  // nnc_isa_pkg::buffer_e
  output logic [nnc_isa_pkg::BufAddrBits-1:0] bw_addr_o,
  output logic [BusBits-1:0]    bw_data_o,
  output logic [BusBytes-1:0]   bw_be_o,

  // Buffer read port (store engine); data arrives the cycle after the accepted request
  output logic                  br_valid_o,
  input  logic                  br_ready_i,
  output logic [2:0]                         br_buf_o,  // nnc_isa_pkg::buffer_e
  output logic [nnc_isa_pkg::BufAddrBits-1:0] br_addr_o,
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
  output logic [3:0]            m_axi_arqos_o,
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
  // AXI4 QoS: command fetches first. A fetch is two beats and the dispatcher waits for it;
  // a memory that honours ARQOS serves it before DMA bursts requested earlier (AXI orders
  // reads only within an ID, and the R beats here are routed by ID).
  localparam logic [3:0] QosFetch = 4'd15;
  localparam logic [3:0] QosData  = 4'd0;
  localparam logic [1:0] RespOkay = 2'b00;
  localparam int unsigned FetchBeats = nnc_isa_pkg::CmdBytes / BusBytes;
  localparam int unsigned OutW = $clog2(MaxOutstanding + 1);

  localparam int unsigned BAddrW = nnc_isa_pkg::BufAddrBits;
  typedef logic [BAddrW-1:0] baddr_t;

  // --- Shared helpers -----------------------------------------------------------------------
  function automatic logic [39:0] buf_size(logic [2:0] b);  // b: nnc_isa_pkg::buffer_e
    unique case (b)
      nnc_isa_pkg::BufferInp: buf_size = 40'(InpBytes);
      nnc_isa_pkg::BufferWgt: buf_size = 40'(WgtBytes);
      nnc_isa_pkg::BufferAcc: buf_size = 40'(AccBytes);
      nnc_isa_pkg::BufferOut: buf_size = 40'(OutBytes);
      nnc_isa_pkg::BufferPrm: buf_size = 40'(PrmBytes);
      default:                buf_size = 40'd0;
    endcase
  endfunction

  // A decoded transfer: the fields both engines use, with derived row length.
  typedef struct packed {
    logic [2:0]  buf_id;  // nnc_isa_pkg::buffer_e (Yosys: no package types in a struct here)
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

  // A command's transfer (DMA_STORE has DMA_LOAD's layout). Fields by position, in the
  // order of xfer_t. The header and reserved bits are not part of it.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic xfer_t to_xfer(nnc_isa_pkg::cmd_t c);
    to_xfer = {c[nnc_isa_pkg::DmaLoadBufIdLsb +: nnc_isa_pkg::DmaLoadBufIdWidth],
               c[nnc_isa_pkg::DmaLoadDramAddrLsb +: nnc_isa_pkg::DmaLoadDramAddrWidth],
               c[nnc_isa_pkg::DmaLoadDramStride1Lsb +: nnc_isa_pkg::DmaLoadDramStride1Width],
               c[nnc_isa_pkg::DmaLoadDramStride2Lsb +: nnc_isa_pkg::DmaLoadDramStride2Width],
               c[nnc_isa_pkg::DmaLoadBufAddrLsb +: nnc_isa_pkg::DmaLoadBufAddrWidth],
               c[nnc_isa_pkg::DmaLoadBufStride1Lsb +: nnc_isa_pkg::DmaLoadBufStride1Width],
               c[nnc_isa_pkg::DmaLoadBufStride2Lsb +: nnc_isa_pkg::DmaLoadBufStride2Width],
               c[nnc_isa_pkg::DmaLoadCount1Lsb +: nnc_isa_pkg::DmaLoadCount1Width],
               c[nnc_isa_pkg::DmaLoadCount2Lsb +: nnc_isa_pkg::DmaLoadCount2Width],
               20'(c[nnc_isa_pkg::DmaLoadCount0Lsb +: nnc_isa_pkg::DmaLoadCount0Width])
                   << c[nnc_isa_pkg::DmaLoadElemWidthLsb +: nnc_isa_pkg::DmaLoadElemWidthWidth]};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // Last buffer byte + 1 of the whole transfer beyond the buffer (strides are unsigned, so
  // the last row ends last). Plain arguments: Yosys takes no struct-typed ones.
  function automatic logic oob(logic [2:0] buf_id, baddr_t buf_addr, baddr_t stride1,
                               baddr_t stride2, logic [15:0] count1, logic [11:0] count2,
                               logic [19:0] row_len);
    oob = 40'(buf_addr) + 40'(12'(count2 - 12'd1)) * 40'(stride2) +
          40'(16'(count1 - 16'd1)) * 40'(stride1) + 40'(row_len) > buf_size(buf_id);
  endfunction

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
  assign m_axi_arqos_o     = ar_id_q == IdFetch ? QosFetch : QosData;
  assign fetch_req_ready_o = ar_free;

  // =========================================================================================
  // Fetch responses: assemble the beats of one command.
  // =========================================================================================
  logic [FetchBeats*BusBits-1:0]      fetch_data_d, fetch_data_q;  // beat b in slice b
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
      fetch_data_d[BusBits*fetch_beat_q +: BusBits] = m_axi_rdata_i;
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
  assign fetch_rsp_cmd_o   = fetch_data_q;
  assign fetch_rsp_resp_o  = fetch_resp_q;

  // =========================================================================================
  // Load engine
  // =========================================================================================
  typedef enum logic [1:0] {EngIdle, EngCheck, EngRun, EngDone} eng_state_e;

  eng_state_e       ld_state_d, ld_state_q;
  xfer_t              ld_x_d, ld_x_q;
  logic [31:0]        ld_aw_beat, ld_dw_beat;  // address walker (AR), data walker (R)
  logic               ld_aw_done;
  logic [BAddrW-1:0]  ld_dw_buf_addr;
  // Each walker's user reads what it needs of it.
  /* verilator lint_off UNUSEDSIGNAL */
  logic               ld_dw_done;
  logic [8:0]         ld_dw_burst;
  logic [BeatBits:0]  ld_aw_lo, ld_aw_hi;
  logic [BAddrW-1:0]  ld_aw_buf_addr;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [OutW-1:0]  ld_out_d, ld_out_q; // bursts in flight
  logic             ld_stop_d, ld_stop_q;  // no more bursts (error or abort)
  logic             ld_err_d, ld_err_q;
  nnc_isa_pkg::err_code_e        ld_code_d, ld_code_q;
  logic [31:0]      ld_eaddr_d, ld_eaddr_q;
  logic [31:0]      ld_einfo_d, ld_einfo_q;
  logic             ld_done_d, ld_done_q;
  logic             r_ld;
  logic [BeatBits:0] ld_lo, ld_hi;
  // A fill walks the rows as a load from DRAM address 0 with zero strides would (each row
  // from a beat boundary) and writes one beat's bytes per cycle; no burst is issued.
  logic             ld_fill_d, ld_fill_q;
  logic [7:0]       ld_fill_value_d, ld_fill_value_q;
  logic             ld_fill_want;  // a fill beat is ready for the buffer
  logic             ld_dw_advance;

  assign r_ld        = m_axi_rvalid_i && m_axi_rid_i == IdDma;
  assign ld_ar_req   = ld_state_q == EngRun && !ld_fill_q && !ld_aw_done && !ld_stop_q &&
                       ld_out_q < OutW'(MaxOutstanding);
  assign ld_fill_want  = ld_state_q == EngRun && ld_fill_q && !ld_dw_done && !ld_stop_q;
  assign ld_dw_advance = (r_ld && m_axi_rready_o) || (ld_fill_want && bw_ready_i);
  assign ld_ar_addr  = ld_aw_beat;

  nnc_dma_walker #(.BusBytes(BusBytes)) u_ld_aw (
    .clk_i,
    .rst_ni,
    .dram_addr_i    (ld_x_q.dram_addr),
    .dram_stride1_i (ld_x_q.dram_stride1),
    .dram_stride2_i (ld_x_q.dram_stride2),
    .buf_addr_i     (ld_x_q.buf_addr),
    .buf_stride1_i  (ld_x_q.buf_stride1),
    .buf_stride2_i  (ld_x_q.buf_stride2),
    .count1_i       (ld_x_q.count1),
    .count2_i       (ld_x_q.count2),
    .row_len_i      (ld_x_q.row_len),
    .start_i        (ld_state_q == EngCheck),
    .advance_i      (ld_ar_gnt),
    .beats_i        (ld_ar_beats),
    .beat_o         (ld_aw_beat),
    .done_o         (ld_aw_done),
    .burst_o        (ld_ar_beats),
    .lo_o           (ld_aw_lo),
    .hi_o           (ld_aw_hi),
    .buf_addr_o     (ld_aw_buf_addr)
  );
  nnc_dma_walker #(.BusBytes(BusBytes)) u_ld_dw (
    .clk_i,
    .rst_ni,
    .dram_addr_i    (ld_x_q.dram_addr),
    .dram_stride1_i (ld_x_q.dram_stride1),
    .dram_stride2_i (ld_x_q.dram_stride2),
    .buf_addr_i     (ld_x_q.buf_addr),
    .buf_stride1_i  (ld_x_q.buf_stride1),
    .buf_stride2_i  (ld_x_q.buf_stride2),
    .count1_i       (ld_x_q.count1),
    .count2_i       (ld_x_q.count2),
    .row_len_i      (ld_x_q.row_len),
    .start_i        (ld_state_q == EngCheck),
    .advance_i      (ld_dw_advance),
    .beats_i        (9'd1),
    .beat_o         (ld_dw_beat),
    .done_o         (ld_dw_done),
    .burst_o        (ld_dw_burst),
    .lo_o           (ld_lo),
    .hi_o           (ld_hi),
    .buf_addr_o     (ld_dw_buf_addr)
  );

  // The offered command's transfer, outside the FSM: Yosys makes a latch of the result of a
  // function called in one branch of an always_comb.
  xfer_t ld_cmd_x;
  assign ld_cmd_x = to_xfer(ld_cmd_i);

  // Buffer write for an R beat of the load engine (dropped once the engine has stopped), or
  // for a fill beat.
  assign bw_valid_o = (r_ld && !ld_stop_q && m_axi_rresp_i == RespOkay) || ld_fill_want;
  assign bw_buf_o   = ld_x_q.buf_id;
  assign bw_addr_o  = ld_dw_buf_addr;
  assign bw_data_o  = ld_fill_q ? {BusBytes{ld_fill_value_q}} : m_axi_rdata_i >> (8 * ld_lo);
  assign bw_be_o    = ~({BusBytes{1'b1}} << (ld_hi - ld_lo));

  always_comb begin
    ld_state_d = ld_state_q;
    ld_x_d     = ld_x_q;
    ld_fill_d  = ld_fill_q;
    ld_fill_value_d = ld_fill_value_q;
    ld_out_d   = ld_out_q;
    ld_stop_d  = ld_stop_q || abort_i;
    ld_err_d   = ld_err_q;
    ld_code_d  = ld_code_q;
    ld_eaddr_d = ld_eaddr_q;
    ld_einfo_d = ld_einfo_q;
    ld_done_d  = 1'b0;

    if (r_ld && m_axi_rready_o) begin
      if (m_axi_rresp_i != RespOkay && !ld_err_q && !ld_stop_q) begin
        ld_err_d   = 1'b1;
        ld_stop_d  = 1'b1;
        ld_code_d  = nnc_isa_pkg::ErrCodeBusError;
        ld_eaddr_d = ld_dw_beat;
        ld_einfo_d = 32'(m_axi_rresp_i);
      end
    end
    ld_out_d = ld_out_q + OutW'(ld_ar_gnt) - OutW'(r_ld && m_axi_rready_o && m_axi_rlast_i);

    unique case (ld_state_q)
      EngIdle: begin
        ld_stop_d = 1'b0;
        if (ld_valid_i) begin
          ld_x_d     = ld_cmd_x;
          ld_fill_d  = ld_cmd_i[nnc_isa_pkg::DmaLoadFillLsb];
          ld_fill_value_d =
              ld_cmd_i[nnc_isa_pkg::DmaLoadFillValueLsb +: nnc_isa_pkg::DmaLoadFillValueWidth];
          if (ld_cmd_i[nnc_isa_pkg::DmaLoadFillLsb]) begin  // the DRAM fields are ignored
            ld_x_d.dram_addr    = '0;
            ld_x_d.dram_stride1 = '0;
            ld_x_d.dram_stride2 = '0;
          end
          ld_err_d   = 1'b0;
          ld_code_d  = nnc_isa_pkg::ErrCodeNone;
          ld_eaddr_d = '0;
          ld_einfo_d = '0;
          ld_state_d = EngCheck;
        end
      end
      EngCheck: begin
        if (oob(ld_x_q.buf_id, ld_x_q.buf_addr, ld_x_q.buf_stride1, ld_x_q.buf_stride2,
                ld_x_q.count1, ld_x_q.count2, ld_x_q.row_len)) begin
          ld_err_d   = 1'b1;
          ld_code_d  = nnc_isa_pkg::ErrCodeDmaOob;
          ld_einfo_d = 32'(ld_x_q.buf_id);
          ld_state_d = EngDone;
        end else if (ld_stop_q) begin
          ld_state_d = EngDone;
        end else begin
          ld_state_d = EngRun;
        end
      end
      EngRun: begin
        // Finished when every issued burst has returned and no more will be issued (a fill:
        // when its last beat is written).
        if (ld_fill_q ? (ld_dw_done || ld_stop_q)
                      : ((ld_aw_done || ld_stop_q) && ld_out_q == '0 && !ld_ar_gnt)) begin
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
  xfer_t              st_x_d, st_x_q;
  logic [31:0]        st_aw_beat;  // address walker (AW), buffer read walker
  logic               st_aw_done, st_rw_done;
  /* verilator lint_off UNUSEDSIGNAL */  // each walker's user reads what it needs of it
  logic [31:0]        st_rw_beat;
  logic [BeatBits:0]  st_aw_lo, st_aw_hi;
  logic [BAddrW-1:0]  st_aw_buf_addr;
  logic [8:0]         st_rw_burst;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [BAddrW-1:0]  st_rw_buf_addr;
  logic [OutW-1:0]  st_out_d, st_out_q; // bursts awaiting B
  logic             st_stop_d, st_stop_q;
  logic             st_err_d, st_err_q;
  nnc_isa_pkg::err_code_e        st_code_d, st_code_q;
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
  assign st_aw_issue = st_state_q == EngRun && !st_aw_done && !st_stop_q &&
                       st_out_q < OutW'(MaxOutstanding) && (!aw_valid_q || m_axi_awready_i);
  assign aux_aw_gnt  = aux_wr_req && st_state_q == EngIdle && !aux_w_pend_q &&
                       (!aw_valid_q || m_axi_awready_i) && st_out_q == '0;
  // Read the next beat's bytes when the FIFO will have room for them. After a stop, only
  // the beats that bursts already sent still owe are read.
  logic [31:0] st_aw_total_q, st_rd_total_q;  // beats sent on AW / read from the buffer
  logic        st_rd_want;
  assign st_rd_want  = st_state_q == EngRun && !st_rw_done &&
                       (!st_stop_q || st_rd_total_q < st_aw_total_q) &&
                       (32'(wf_cnt_q) + 32'(rd_pend_q) < WFifoDepth);
  assign st_rd_issue = st_rd_want && br_ready_i;
  assign br_valid_o  = st_rd_want;
  assign br_buf_o    = st_x_q.buf_id;
  assign br_addr_o   = st_rw_buf_addr;

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
  xfer_t      st_cmd_x;  // the offered command's transfer (see ld_cmd_x)
  assign st_cmd_x = to_xfer(st_cmd_i);

  nnc_dma_walker #(.BusBytes(BusBytes)) u_st_aw (
    .clk_i,
    .rst_ni,
    .dram_addr_i    (st_x_q.dram_addr),
    .dram_stride1_i (st_x_q.dram_stride1),
    .dram_stride2_i (st_x_q.dram_stride2),
    .buf_addr_i     (st_x_q.buf_addr),
    .buf_stride1_i  (st_x_q.buf_stride1),
    .buf_stride2_i  (st_x_q.buf_stride2),
    .count1_i       (st_x_q.count1),
    .count2_i       (st_x_q.count2),
    .row_len_i      (st_x_q.row_len),
    .start_i        (st_state_q == EngCheck),
    .advance_i      (st_aw_issue),
    .beats_i        (st_aw_beats),
    .beat_o         (st_aw_beat),
    .done_o         (st_aw_done),
    .burst_o        (st_aw_beats),
    .lo_o           (st_aw_lo),
    .hi_o           (st_aw_hi),
    .buf_addr_o     (st_aw_buf_addr)
  );
  nnc_dma_walker #(.BusBytes(BusBytes)) u_st_rw (
    .clk_i,
    .rst_ni,
    .dram_addr_i    (st_x_q.dram_addr),
    .dram_stride1_i (st_x_q.dram_stride1),
    .dram_stride2_i (st_x_q.dram_stride2),
    .buf_addr_i     (st_x_q.buf_addr),
    .buf_stride1_i  (st_x_q.buf_stride1),
    .buf_stride2_i  (st_x_q.buf_stride2),
    .count1_i       (st_x_q.count1),
    .count2_i       (st_x_q.count2),
    .row_len_i      (st_x_q.row_len),
    .start_i        (st_state_q == EngCheck),
    .advance_i      (st_rd_issue),
    .beats_i        (9'd1),
    .beat_o         (st_rw_beat),
    .done_o         (st_rw_done),
    .burst_o        (st_rw_burst),
    .lo_o           (st_lo),
    .hi_o           (st_hi),
    .buf_addr_o     (st_rw_buf_addr)
  );

  always_comb begin
    st_state_d = st_state_q;
    st_x_d     = st_x_q;
    st_stop_d  = st_stop_q || abort_i;
    st_err_d   = st_err_q;
    st_code_d  = st_code_q;
    st_eaddr_d = st_eaddr_q;
    st_einfo_d = st_einfo_q;
    st_done_d  = 1'b0;

    if (b_st && m_axi_bresp_i != RespOkay && !st_err_q && !st_stop_q) begin
      st_err_d   = 1'b1;
      st_stop_d  = 1'b1;
      st_code_d  = nnc_isa_pkg::ErrCodeBusError;
      st_eaddr_d = baddr_q[baddr_rd_q];
      st_einfo_d = 32'(m_axi_bresp_i);
    end
    st_out_d = st_out_q + OutW'(st_aw_issue) - OutW'(b_st);

    unique case (st_state_q)
      EngIdle: begin
        st_stop_d = 1'b0;
        if (st_valid_i && !aux_w_pend_q && !(aw_valid_q && aw_id_q == IdAux)) begin
          st_x_d     = st_cmd_x;
          st_err_d   = 1'b0;
          st_code_d  = nnc_isa_pkg::ErrCodeNone;
          st_eaddr_d = '0;
          st_einfo_d = '0;
          st_state_d = EngCheck;
        end
      end
      EngCheck: begin
        if (oob(st_x_q.buf_id, st_x_q.buf_addr, st_x_q.buf_stride1, st_x_q.buf_stride2,
                st_x_q.count1, st_x_q.count2, st_x_q.row_len)) begin
          st_err_d   = 1'b1;
          st_code_d  = nnc_isa_pkg::ErrCodeDmaOob;
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
        if ((st_aw_done || st_stop_q) && st_out_q == '0 && !st_aw_issue && !aw_valid_q &&
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
        aw_addr_q  <= st_aw_beat;
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
      baddr_q[blen_wr_q] <= st_aw_beat;
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
                      (ld_fill_want && bw_ready_i) ||
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
      ld_fill_q         <= 1'b0;
      ld_fill_value_q   <= '0;
      ld_out_q          <= '0;
      ld_stop_q         <= 1'b0;
      ld_err_q          <= 1'b0;
      ld_code_q         <= nnc_isa_pkg::ErrCodeNone;
      ld_eaddr_q        <= '0;
      ld_einfo_q        <= '0;
      ld_done_q         <= 1'b0;
      st_state_q        <= EngIdle;
      st_x_q            <= '0;
      st_out_q          <= '0;
      st_stop_q         <= 1'b0;
      st_err_q          <= 1'b0;
      st_code_q         <= nnc_isa_pkg::ErrCodeNone;
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
      ld_fill_q         <= ld_fill_d;
      ld_fill_value_q   <= ld_fill_value_d;
      ld_out_q          <= ld_out_d;
      ld_stop_q         <= ld_stop_d;
      ld_err_q          <= ld_err_d;
      ld_code_q         <= ld_code_d;
      ld_eaddr_q        <= ld_eaddr_d;
      ld_einfo_q        <= ld_einfo_d;
      ld_done_q         <= ld_done_d;
      st_state_q        <= st_state_d;
      st_x_q            <= st_x_d;
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
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      `PRIM_ASSERT_I(RidKnown_A, !(m_axi_rvalid_i && m_axi_rid_i == 2'd3),
        ("nnc_dma: R with unknown ID"))
      `PRIM_ASSERT_I(BidKnown_A, !(m_axi_bvalid_i && m_axi_bid_i != IdDma && m_axi_bid_i != IdAux),
        ("nnc_dma: B with unknown ID"))
      `PRIM_ASSERT_I(LoadBeatRunning_A, !(r_ld && ld_state_q != EngRun),
        ("nnc_dma: load beat while not running"))
      `PRIM_ASSERT_I(WFifoNoUnderflow_A, !(w_fire && !aux_w_pend_q && wf_cnt_q == '0),
        ("nnc_dma: W FIFO underflow"))
    end
  end
  `PRIM_ASSERT_INIT(CmdWholeBeats_A, nnc_isa_pkg::CmdBytes % BusBytes == 0,
      ("nnc_dma: a command must be whole beats"))
  `PRIM_ASSERT_INIT(BusWidth_A, BusBytes >= 4 && BusBytes <= 128, ("nnc_dma: bus width"))

endmodule
