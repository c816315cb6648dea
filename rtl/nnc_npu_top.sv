// The NPU: register file (AXI4-Lite slave), command processor, DMA (the AXI4 master),
// compute unit (MAC array, requant, densify) and the five on-chip buffers.
//
// Buffer ports: every buffer has one read and one write port. The compute unit has priority
// on each port it uses (its pipelines cannot stall on a buffer); the DMA takes a port in
// the cycles the compute unit leaves it free, through its ready signals. Read data comes
// back one cycle after the request, so each side takes the data of its own read.
//
// The parameters default to the hardware contract in firmware/isa.json (nnc_isa_pkg); the
// CONFIG registers report the values of the build, so software plans for what it runs on.
`include "prim_assert.svh"

module nnc_npu_top
#(
  parameter int unsigned Rows           = nnc_isa_pkg::ArrayRows,
  parameter int unsigned Cols           = nnc_isa_pkg::ArrayCols,
  parameter int unsigned BusBytes       = nnc_isa_pkg::AxiDataBytes,
  parameter int unsigned InpBytes       = nnc_isa_pkg::InpBufBytes,
  parameter int unsigned WgtBytes       = nnc_isa_pkg::WgtBufBytes,
  parameter int unsigned AccBytes       = nnc_isa_pkg::AccBufBytes,
  parameter int unsigned OutBytes       = nnc_isa_pkg::OutBufBytes,
  parameter int unsigned PrmBytes       = nnc_isa_pkg::PrmBufBytes,
  parameter int unsigned QueueDepth     = nnc_isa_pkg::CmdQueueDepth,
  parameter int unsigned FetchDepth     = nnc_isa_pkg::CmdFetchDepth,
  parameter int unsigned MaxOutstanding = nnc_isa_pkg::DmaBursts,
  parameter int unsigned TileFifo       = nnc_isa_pkg::GemmTiles,
  parameter int unsigned StreamDepth    = nnc_isa_pkg::DensifyBeats,
  parameter int unsigned MaxReads       = nnc_isa_pkg::DensifyReads,
  localparam int unsigned BusBits = BusBytes * 8
) (
  input  logic                clk_i,
  input  logic                rst_ni,

  // Registers: AXI4-Lite slave
  input  logic                s_axil_awvalid_i,
  output logic                s_axil_awready_o,
  input  logic [nnc_isa_pkg::RegAddrBits-1:0] s_axil_awaddr_i,
  input  logic                s_axil_wvalid_i,
  output logic                s_axil_wready_o,
  input  logic [31:0]         s_axil_wdata_i,
  input  logic [3:0]          s_axil_wstrb_i,
  output logic                s_axil_bvalid_o,
  input  logic                s_axil_bready_i,
  output logic [1:0]          s_axil_bresp_o,
  input  logic                s_axil_arvalid_i,
  output logic                s_axil_arready_o,
  input  logic [nnc_isa_pkg::RegAddrBits-1:0] s_axil_araddr_i,
  output logic                s_axil_rvalid_o,
  input  logic                s_axil_rready_i,
  output logic [31:0]         s_axil_rdata_o,
  output logic [1:0]          s_axil_rresp_o,

  // Memory: AXI4 master
  output logic                m_axi_awvalid_o,
  input  logic                m_axi_awready_i,
  output logic [1:0]          m_axi_awid_o,
  output logic [31:0]         m_axi_awaddr_o,
  output logic [7:0]          m_axi_awlen_o,
  output logic [2:0]          m_axi_awsize_o,
  output logic [1:0]          m_axi_awburst_o,
  output logic                m_axi_wvalid_o,
  input  logic                m_axi_wready_i,
  output logic [BusBits-1:0]  m_axi_wdata_o,
  output logic [BusBytes-1:0] m_axi_wstrb_o,
  output logic                m_axi_wlast_o,
  input  logic                m_axi_bvalid_i,
  output logic                m_axi_bready_o,
  input  logic [1:0]          m_axi_bid_i,
  input  logic [1:0]          m_axi_bresp_i,
  output logic                m_axi_arvalid_o,
  input  logic                m_axi_arready_i,
  output logic [1:0]          m_axi_arid_o,
  output logic [31:0]         m_axi_araddr_o,
  output logic [7:0]          m_axi_arlen_o,
  output logic [2:0]          m_axi_arsize_o,
  output logic [1:0]          m_axi_arburst_o,
  output logic [3:0]          m_axi_arqos_o,
  input  logic                m_axi_rvalid_i,
  output logic                m_axi_rready_o,
  input  logic [1:0]          m_axi_rid_i,
  input  logic [BusBits-1:0]  m_axi_rdata_i,
  input  logic [1:0]          m_axi_rresp_i,
  input  logic                m_axi_rlast_i,

  output logic                irq_o,
  // Observation only (timeline of a run): which unit is executing a command this cycle,
  // {densify, store, compute, load}; the same signals the busy counters count.
  output logic [3:0]          busy_o,
  // Observation only: the load / compute / store queue issued (cmd_issue_o) or completed
  // (cmd_done_o) a command at the clock edge that just passed, like busy_o; registered
  // pulses of the command processor's handshakes. A SYNC pulses both at once. Per queue,
  // the k-th pulse is the k-th command of that queue in the stream.
  output logic [2:0]          cmd_issue_o,
  output logic [2:0]          cmd_done_o
);

  // INP's line, 8R bytes (ISA 1.11; 4R since 1.6, 2R before): the depthwise unit reads
  // eight int8 pixel vectors (of C = R bytes) per cycle, so a 3x3 stride-1 filter row's span
  // of 18 vectors loads in 3 reads, as fast as its 3 taps run; every other reader takes the
  // first 2R bytes.
  localparam int unsigned InpLine = Rows * nnc_isa_pkg::InpLineVectors;
  localparam int unsigned WgtLine = Cols * 2;
  localparam int unsigned WideLine = Cols * 4;  // OUT, PRM: a row of int32
  localparam int unsigned AccLine  = Cols * 8;  // ACC: a row of int64 (acc64) in one access

  // =========================================================================================
  // Register file <-> command processor
  // =========================================================================================
  logic        soft_reset, doorbell;
  logic [31:0] ring_base, ring_size, ring_tail, watchdog;
  logic        st_idle, st_busy, st_done, st_error;
  logic [7:0]  err_code;
  logic [31:0] err_addr, err_info, ring_head;
  logic [15:0] last_tag;
  logic        irq_done, irq_error;
  logic [2:0]  ev_busy, ev_stall;
  logic        ds_busy, ds_stall;
  assign busy_o = {ds_busy, ev_busy[2], ev_busy[1], ev_busy[0]};
  logic [15:0] rd_bytes, wr_bytes, macs;

  nnc_regfile #(
    .Rows           (Rows),
    .Cols           (Cols),
    .BusBytes       (BusBytes),
    .InpBytes       (InpBytes),
    .WgtBytes       (WgtBytes),
    .AccBytes       (AccBytes),
    .OutBytes       (OutBytes),
    .PrmBytes       (PrmBytes),
    .QueueDepth     (QueueDepth),
    .FetchDepth     (FetchDepth),
    .MaxOutstanding (MaxOutstanding),
    .TileFifo       (TileFifo),
    .StreamDepth    (StreamDepth),
    .MaxReads       (MaxReads),
    .InpLineVectors (InpLine / Rows)
  ) u_regfile (
    .clk_i,
    .rst_ni,
    .s_axil_awvalid_i,
    .s_axil_awready_o,
    .s_axil_awaddr_i,
    .s_axil_wvalid_i,
    .s_axil_wready_o,
    .s_axil_wdata_i,
    .s_axil_wstrb_i,
    .s_axil_bvalid_o,
    .s_axil_bready_i,
    .s_axil_bresp_o,
    .s_axil_arvalid_i,
    .s_axil_arready_o,
    .s_axil_araddr_i,
    .s_axil_rvalid_o,
    .s_axil_rready_i,
    .s_axil_rdata_o,
    .s_axil_rresp_o,
    .soft_reset_o       (soft_reset),
    .doorbell_o         (doorbell),
    .ring_base_o        (ring_base),
    .ring_size_o        (ring_size),
    .ring_tail_o        (ring_tail),
    .watchdog_o         (watchdog),
    .st_idle_i          (st_idle),
    .st_busy_i          (st_busy),
    .st_done_i          (st_done),
    .st_error_i         (st_error),
    .err_code_i         (err_code),
    .err_addr_i         (err_addr),
    .err_info_i         (err_info),
    .ring_head_i        (ring_head),
    .last_tag_i         (last_tag),
    .irq_done_i         (irq_done),
    .irq_error_i        (irq_error),
    .ev_load_busy_i     (ev_busy[0]),
    .ev_load_stall_i    (ev_stall[0]),
    .ev_compute_busy_i  (ev_busy[1]),
    .ev_compute_stall_i (ev_stall[1]),
    .ev_store_busy_i    (ev_busy[2]),
    .ev_store_stall_i   (ev_stall[2]),
    .ev_densify_busy_i  (ds_busy),
    .ev_densify_stall_i (ds_stall),
    .ev_rd_bytes_i      (rd_bytes),
    .ev_wr_bytes_i      (wr_bytes),
    .ev_macs_i          (macs),
    .irq_o
  );

  // =========================================================================================
  // Command processor <-> units
  // =========================================================================================
  logic             fetch_req_valid, fetch_req_ready, fetch_rsp_valid;
  logic [31:0]      fetch_req_addr;
  nnc_isa_pkg::cmd_t             fetch_rsp_cmd;
  logic [1:0]       fetch_rsp_resp;
  logic [2:0]       unit_valid, unit_ready, unit_done, unit_err;
  // Per unit (0 load, 1 compute, 2 store), unit q in slice q.
  logic [3*nnc_isa_pkg::CmdBits-1:0] unit_cmd;
  logic [3*8-1:0]   unit_err_code;  // nnc_isa_pkg::err_code_e
  logic [3*32-1:0]  unit_err_addr, unit_err_info;
  logic             abort, dma_progress, cp_progress;
  logic             ld_busy, st_busy_dma;
  logic [2:0]       cp_issue, cp_complete;

  nnc_cmd_proc #(
    .QueueDepth (QueueDepth),
    .FetchDepth (FetchDepth)
  ) u_cmd_proc (
    .clk_i,
    .rst_ni,
    .soft_reset_i      (soft_reset),
    .doorbell_i        (doorbell),
    .ring_base_i       (ring_base),
    .ring_size_i       (ring_size),
    .ring_tail_i       (ring_tail),
    .watchdog_i        (watchdog),
    .st_idle_o         (st_idle),
    .st_busy_o         (st_busy),
    .st_done_o         (st_done),
    .st_error_o        (st_error),
    .err_code_o        (err_code),
    .err_addr_o        (err_addr),
    .err_info_o        (err_info),
    .ring_head_o       (ring_head),
    .last_tag_o        (last_tag),
    .irq_done_o        (irq_done),
    .irq_error_o       (irq_error),
    .fetch_req_valid_o (fetch_req_valid),
    .fetch_req_ready_i (fetch_req_ready),
    .fetch_req_addr_o  (fetch_req_addr),
    .fetch_rsp_valid_i (fetch_rsp_valid),
    .fetch_rsp_cmd_i   (fetch_rsp_cmd),
    .fetch_rsp_resp_i  (fetch_rsp_resp),
    .unit_valid_o      (unit_valid),
    .unit_ready_i      (unit_ready),
    .unit_cmd_o        (unit_cmd),
    .unit_done_i       (unit_done),
    .unit_err_i        (unit_err),
    .unit_err_code_i   (unit_err_code),
    .unit_err_addr_i   (unit_err_addr),
    .unit_err_info_i   (unit_err_info),
    .abort_o           (abort),
    .progress_i        (dma_progress || cp_progress),
    .ev_busy_o         (ev_busy),
    .ev_stall_o        (ev_stall),
    .ev_issue_o        (cp_issue),
    .ev_complete_o     (cp_complete)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cmd_issue_o <= '0;
      cmd_done_o  <= '0;
    end else begin
      cmd_issue_o <= cp_issue;
      cmd_done_o  <= cp_complete;
    end
  end

  // =========================================================================================
  // DMA
  // =========================================================================================
  logic                   bw_valid, bw_ready, br_valid, br_ready;
  logic [2:0]                          bw_buf, br_buf;  // nnc_isa_pkg::buffer_e
  logic [nnc_isa_pkg::BufAddrBits-1:0] bw_addr, br_addr;
  logic [BusBits-1:0]     bw_data, br_data;
  logic [BusBytes-1:0]    bw_be;
  logic                   aux_req_valid, aux_req_ready, aux_req_write;
  logic [31:0]            aux_req_addr;
  logic [BusBits-1:0]     aux_req_wdata, aux_rrsp_data;
  logic [BusBytes-1:0]    aux_req_wstrb;
  logic                   aux_rrsp_valid, aux_brsp_valid;
  logic [1:0]             aux_rrsp_resp, aux_brsp_resp;

  nnc_dma #(
    .BusBytes       (BusBytes),
    .MaxOutstanding (MaxOutstanding),
    .InpBytes       (InpBytes),
    .WgtBytes       (WgtBytes),
    .AccBytes       (AccBytes),
    .OutBytes       (OutBytes),
    .PrmBytes       (PrmBytes)
  ) u_dma (
    .clk_i,
    .rst_ni,
    .abort_i           (abort),
    .fetch_req_valid_i (fetch_req_valid),
    .fetch_req_ready_o (fetch_req_ready),
    .fetch_req_addr_i  (fetch_req_addr),
    .fetch_rsp_valid_o (fetch_rsp_valid),
    .fetch_rsp_cmd_o   (fetch_rsp_cmd),
    .fetch_rsp_resp_o  (fetch_rsp_resp),
    .ld_valid_i        (unit_valid[0]),
    .ld_ready_o        (unit_ready[0]),
    .ld_cmd_i          (unit_cmd[0*nnc_isa_pkg::CmdBits +: nnc_isa_pkg::CmdBits]),
    .ld_done_o         (unit_done[0]),
    .ld_err_o          (unit_err[0]),
    .ld_err_code_o     (unit_err_code[0*8 +: 8]),
    .ld_err_addr_o     (unit_err_addr[0*32 +: 32]),
    .ld_err_info_o     (unit_err_info[0*32 +: 32]),
    .ld_busy_o         (ld_busy),
    .st_valid_i        (unit_valid[2]),
    .st_ready_o        (unit_ready[2]),
    .st_cmd_i          (unit_cmd[2*nnc_isa_pkg::CmdBits +: nnc_isa_pkg::CmdBits]),
    .st_done_o         (unit_done[2]),
    .st_err_o          (unit_err[2]),
    .st_err_code_o     (unit_err_code[2*8 +: 8]),
    .st_err_addr_o     (unit_err_addr[2*32 +: 32]),
    .st_err_info_o     (unit_err_info[2*32 +: 32]),
    .st_busy_o         (st_busy_dma),
    .bw_valid_o        (bw_valid),
    .bw_ready_i        (bw_ready),
    .bw_buf_o          (bw_buf),
    .bw_addr_o         (bw_addr),
    .bw_data_o         (bw_data),
    .bw_be_o           (bw_be),
    .br_valid_o        (br_valid),
    .br_ready_i        (br_ready),
    .br_buf_o          (br_buf),
    .br_addr_o         (br_addr),
    .br_data_i         (br_data),
    .aux_req_valid_i   (aux_req_valid),
    .aux_req_ready_o   (aux_req_ready),
    .aux_req_write_i   (aux_req_write),
    .aux_req_addr_i    (aux_req_addr),
    .aux_req_wdata_i   (aux_req_wdata),
    .aux_req_wstrb_i   (aux_req_wstrb),
    .aux_rrsp_valid_o  (aux_rrsp_valid),
    .aux_rrsp_data_o   (aux_rrsp_data),
    .aux_rrsp_resp_o   (aux_rrsp_resp),
    .aux_brsp_valid_o  (aux_brsp_valid),
    .aux_brsp_resp_o   (aux_brsp_resp),
    .m_axi_awvalid_o,
    .m_axi_awready_i,
    .m_axi_awid_o,
    .m_axi_awaddr_o,
    .m_axi_awlen_o,
    .m_axi_awsize_o,
    .m_axi_awburst_o,
    .m_axi_wvalid_o,
    .m_axi_wready_i,
    .m_axi_wdata_o,
    .m_axi_wstrb_o,
    .m_axi_wlast_o,
    .m_axi_bvalid_i,
    .m_axi_bready_o,
    .m_axi_bid_i,
    .m_axi_bresp_i,
    .m_axi_arvalid_o,
    .m_axi_arready_i,
    .m_axi_arid_o,
    .m_axi_araddr_o,
    .m_axi_arlen_o,
    .m_axi_arsize_o,
    .m_axi_arburst_o,
    .m_axi_arqos_o,
    .m_axi_rvalid_i,
    .m_axi_rready_o,
    .m_axi_rid_i,
    .m_axi_rdata_i,
    .m_axi_rresp_i,
    .m_axi_rlast_i,
    .rd_bytes_o        (rd_bytes),
    .wr_bytes_o        (wr_bytes),
    .progress_o        (dma_progress)
  );

  // =========================================================================================
  // Compute
  // =========================================================================================
  logic                   inp_re, inp_rwide, wgt_re, acc_re, acc_we, out_we, prm_re, inp_we;
  logic [nnc_isa_pkg::BufAddrBits-1:0] inp_raddr, wgt_raddr, acc_raddr, acc_waddr, out_waddr;
  logic [nnc_isa_pkg::BufAddrBits-1:0] inp_waddr;
  logic [Rows*16-1:0]     inp_wdata;
  logic [Rows*2-1:0]      inp_wbe;
  logic [nnc_isa_pkg::BufAddrBits-1:0] prm_raddr;
  logic [InpLine*8-1:0]  inp_rdata;
  logic [Cols*16-1:0]     wgt_rdata;
  logic [Cols*64-1:0]     acc_rdata, acc_wdata;
  logic [Cols*32-1:0]     out_wdata, prm_rdata;
  logic [Cols*8-1:0]      acc_wbe;
  logic [Cols*4-1:0]      out_wbe;

  nnc_compute #(
    .Rows        (Rows),
    .Cols        (Cols),
    .BusBytes    (BusBytes),
    .InpBytes    (InpBytes),
    .WgtBytes    (WgtBytes),
    .AccBytes    (AccBytes),
    .OutBytes    (OutBytes),
    .PrmBytes    (PrmBytes),
    .TileFifo    (TileFifo),
    .StreamDepth (StreamDepth),
    .MaxReads    (MaxReads),
    .InpReadBytes(InpLine)
  ) u_compute (
    .clk_i,
    .rst_ni,
    .cmd_valid_i     (unit_valid[1]),
    .cmd_ready_o     (unit_ready[1]),
    .cmd_i           (unit_cmd[1*nnc_isa_pkg::CmdBits +: nnc_isa_pkg::CmdBits]),
    .done_o          (unit_done[1]),
    .err_o           (unit_err[1]),
    .err_code_o      (unit_err_code[1*8 +: 8]),
    .err_addr_o      (unit_err_addr[1*32 +: 32]),
    .err_info_o      (unit_err_info[1*32 +: 32]),
    .inp_re_o        (inp_re),
    .inp_rwide_o     (inp_rwide),
    .inp_raddr_o     (inp_raddr),
    .inp_rdata_i     (inp_rdata),
    .wgt_re_o        (wgt_re),
    .wgt_raddr_o     (wgt_raddr),
    .wgt_rdata_i     (wgt_rdata),
    .wgt_we_i        (dma_w_wgt),
    .wgt_waddr_i     (bw_addr),
    .acc_re_o        (acc_re),
    .acc_raddr_o     (acc_raddr),
    .acc_rdata_i     (acc_rdata),
    .acc_we_o        (acc_we),
    .acc_waddr_o     (acc_waddr),
    .acc_wdata_o     (acc_wdata),
    .acc_wbe_o       (acc_wbe),
    .out_we_o        (out_we),
    .out_waddr_o     (out_waddr),
    .out_wdata_o     (out_wdata),
    .out_wbe_o       (out_wbe),
    .inp_we_o        (inp_we),
    .inp_waddr_o     (inp_waddr),
    .inp_wdata_o     (inp_wdata),
    .inp_wbe_o       (inp_wbe),
    .prm_re_o        (prm_re),
    .prm_raddr_o     (prm_raddr),
    .prm_rdata_i     (prm_rdata),
    .aux_req_valid_o (aux_req_valid),
    .aux_req_ready_i (aux_req_ready),
    .aux_req_write_o (aux_req_write),
    .aux_req_addr_o  (aux_req_addr),
    .aux_req_wdata_o (aux_req_wdata),
    .aux_req_wstrb_o (aux_req_wstrb),
    .aux_rrsp_valid_i (aux_rrsp_valid),
    .aux_rrsp_data_i (aux_rrsp_data),
    .aux_rrsp_resp_i (aux_rrsp_resp),
    .aux_brsp_valid_i (aux_brsp_valid),
    .aux_brsp_resp_i (aux_brsp_resp),
    .densify_busy_o  (ds_busy),
    .densify_stall_o (ds_stall),
    .macs_o          (macs),
    .progress_o      (cp_progress)
  );

  // =========================================================================================
  // Buffers and their port arbitration
  // =========================================================================================
  // Per buffer: does the compute unit use the read / write port this cycle?
  logic [4:0] cp_rd, cp_wr;
  assign cp_rd = {prm_re, 1'b0, acc_re, wgt_re, inp_re};   // index = buffer id
  assign cp_wr = {1'b0, out_we, acc_we, 1'b0, inp_we};

  assign br_ready = !cp_rd[br_buf];
  assign bw_ready = !cp_wr[bw_buf];

  logic    dma_rd_q;   // the DMA read a buffer last cycle
  logic [2:0] dma_rd_buf_q;  // nnc_isa_pkg::buffer_e
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      dma_rd_q     <= 1'b0;
      dma_rd_buf_q <= nnc_isa_pkg::BufferInp;
    end else begin
      dma_rd_q     <= br_valid && br_ready;
      dma_rd_buf_q <= br_buf;
    end
  end

  // One buffer: compute port (priority) or the DMA, read data to both sides.
  logic [InpLine*8-1:0]  inp_rd;
  logic [WgtLine*8-1:0]  wgt_rd;
  logic [AccLine*8-1:0]  acc_rd;
  logic [WideLine*8-1:0] out_rd, prm_rd;

  logic dma_w_inp, dma_w_wgt, dma_w_acc, dma_w_out, dma_w_prm;
  logic dma_r_inp, dma_r_wgt, dma_r_acc, dma_r_out, dma_r_prm;
  assign dma_w_inp = bw_valid && bw_buf == nnc_isa_pkg::BufferInp && !inp_we;
  assign dma_w_wgt = bw_valid && bw_buf == nnc_isa_pkg::BufferWgt;
  assign dma_w_acc = bw_valid && bw_buf == nnc_isa_pkg::BufferAcc && !acc_we;
  assign dma_w_out = bw_valid && bw_buf == nnc_isa_pkg::BufferOut && !out_we;
  assign dma_w_prm = bw_valid && bw_buf == nnc_isa_pkg::BufferPrm;
  assign dma_r_inp = br_valid && br_buf == nnc_isa_pkg::BufferInp && !inp_re;
  assign dma_r_wgt = br_valid && br_buf == nnc_isa_pkg::BufferWgt && !wgt_re;
  assign dma_r_acc = br_valid && br_buf == nnc_isa_pkg::BufferAcc && !acc_re;
  assign dma_r_out = br_valid && br_buf == nnc_isa_pkg::BufferOut;
  assign dma_r_prm = br_valid && br_buf == nnc_isa_pkg::BufferPrm && !prm_re;

  // Every INP reader but the depthwise unit takes the first 2R bytes (the DMA its bus beat).
  nnc_buffer #(.SizeBytes(InpBytes), .LineBytes(InpLine), .NarrowBytes(Rows * 2)) u_inp (
    .clk_i,
    .we_i    (inp_we || dma_w_inp),
    .waddr_i (inp_we ? inp_waddr[$clog2(InpBytes)-1:0] : bw_addr[$clog2(InpBytes)-1:0]),
    .wdata_i (inp_we ? (InpLine*8)'(inp_wdata) : (InpLine*8)'(bw_data)),
    .wbe_i   (inp_we ? InpLine'(inp_wbe) : InpLine'(bw_be)),
    .re_i    (inp_re || dma_r_inp),
    .rnarrow_i (!(inp_re && inp_rwide)),
    .raddr_i (inp_re ? inp_raddr[$clog2(InpBytes)-1:0] : br_addr[$clog2(InpBytes)-1:0]),
    .rdata_o (inp_rd)
  );
  nnc_buffer #(.SizeBytes(WgtBytes), .LineBytes(WgtLine)) u_wgt (
    .clk_i,
    .we_i    (dma_w_wgt),
    .waddr_i (bw_addr[$clog2(WgtBytes)-1:0]),
    .wdata_i ((WgtLine*8)'(bw_data)),
    .wbe_i   (WgtLine'(bw_be)),
    .rnarrow_i (1'b0),
    .re_i    (wgt_re || dma_r_wgt),
    .raddr_i (wgt_re ? wgt_raddr[$clog2(WgtBytes)-1:0] : br_addr[$clog2(WgtBytes)-1:0]),
    .rdata_o (wgt_rd)
  );
  nnc_buffer #(.SizeBytes(AccBytes), .LineBytes(AccLine)) u_acc (
    .clk_i,
    .we_i    (acc_we || dma_w_acc),
    .waddr_i (acc_we ? acc_waddr[$clog2(AccBytes)-1:0] : bw_addr[$clog2(AccBytes)-1:0]),
    .wdata_i (acc_we ? acc_wdata : (AccLine*8)'(bw_data)),
    .wbe_i   (acc_we ? acc_wbe : AccLine'(bw_be)),
    .rnarrow_i (1'b0),
    .re_i    (acc_re || dma_r_acc),
    .raddr_i (acc_re ? acc_raddr[$clog2(AccBytes)-1:0] : br_addr[$clog2(AccBytes)-1:0]),
    .rdata_o (acc_rd)
  );
  nnc_buffer #(.SizeBytes(OutBytes), .LineBytes(WideLine)) u_out (
    .clk_i,
    .we_i    (out_we || dma_w_out),
    .waddr_i (out_we ? out_waddr[$clog2(OutBytes)-1:0] : bw_addr[$clog2(OutBytes)-1:0]),
    .wdata_i (out_we ? out_wdata : (WideLine*8)'(bw_data)),
    .wbe_i   (out_we ? out_wbe : WideLine'(bw_be)),
    .rnarrow_i (1'b0),
    .re_i    (dma_r_out),
    .raddr_i (br_addr[$clog2(OutBytes)-1:0]),
    .rdata_o (out_rd)
  );
  nnc_buffer #(.SizeBytes(PrmBytes), .LineBytes(WideLine)) u_prm (
    .clk_i,
    .we_i    (dma_w_prm),
    .waddr_i (bw_addr[$clog2(PrmBytes)-1:0]),
    .wdata_i ((WideLine*8)'(bw_data)),
    .wbe_i   (WideLine'(bw_be)),
    .rnarrow_i (1'b0),
    .re_i    (prm_re || dma_r_prm),
    .raddr_i (prm_re ? prm_raddr[$clog2(PrmBytes)-1:0] : br_addr[$clog2(PrmBytes)-1:0]),
    .rdata_o (prm_rd)
  );

  assign inp_rdata = inp_rd;
  assign wgt_rdata = wgt_rd;
  assign acc_rdata = acc_rd;
  assign prm_rdata = prm_rd;

  always_comb begin
    unique case (dma_rd_buf_q)
      nnc_isa_pkg::BufferInp: br_data = inp_rd[BusBits-1:0];
      nnc_isa_pkg::BufferWgt: br_data = wgt_rd[BusBits-1:0];
      nnc_isa_pkg::BufferAcc: br_data = acc_rd[BusBits-1:0];
      nnc_isa_pkg::BufferOut: br_data = out_rd[BusBits-1:0];
      default:   br_data = prm_rd[BusBits-1:0];
    endcase
  end

  // Address bits above a buffer's size and the units' status outputs that only feed asserts.
  logic unused_top;
  assign unused_top = ^{bw_addr, br_addr, inp_raddr, inp_waddr, wgt_raddr, acc_raddr, acc_waddr,
                        out_waddr,
                        prm_raddr, ld_busy, st_busy_dma, dma_rd_q, out_rd[WideLine*8-1:BusBits],
                        inp_rd[InpLine*8-1:BusBits], wgt_rd[WgtLine*8-1:BusBits]};

  // =========================================================================================
  // Assertions
  // =========================================================================================
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      `PRIM_ASSERT_I(AccWriteOnce_A,
          !(bw_valid && bw_ready && (bw_buf == nnc_isa_pkg::BufferAcc && acc_we)),
        ("nnc_npu_top: ACC write port granted twice"))
      `PRIM_ASSERT_I(InpWriteOnce_A,
          !(bw_valid && bw_ready && (bw_buf == nnc_isa_pkg::BufferInp && inp_we)),
        ("nnc_npu_top: INP write port granted twice"))
    end
  end
  `PRIM_ASSERT_INIT(BeatFitsLine_A, BusBytes <= InpLine && BusBytes <= WgtLine,
      ("nnc_npu_top: a bus beat must fit a buffer line"))

endmodule
