// Register file of the NPU: an AXI4-Lite slave holding the ring/doorbell/control registers,
// the status and error view of the command processor, the interrupt status and the
// performance counters. The map is generated from firmware/isa.json (nnc_isa_pkg::Reg*;
// docs/isa.md lists it). One write and one read in flight at a time: the host is a CPU.
//
// The parameters are the NPU's (nnc_npu_top passes its own); the read-only CONFIG registers
// report them, so the host learns the hardware it drives from the hardware itself.
`include "prim_assert.svh"

module nnc_regfile
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
  parameter int unsigned InpLineVectors = nnc_isa_pkg::InpLineVectors
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // AXI4-Lite slave (RegAddrBits-bit byte addresses, 32-bit data)
  input  logic        s_axil_awvalid_i,
  output logic        s_axil_awready_o,
  input  logic [nnc_isa_pkg::RegAddrBits-1:0] s_axil_awaddr_i,
  input  logic        s_axil_wvalid_i,
  output logic        s_axil_wready_o,
  input  logic [31:0] s_axil_wdata_i,
  input  logic [3:0]  s_axil_wstrb_i,
  output logic        s_axil_bvalid_o,
  input  logic        s_axil_bready_i,
  output logic [1:0]  s_axil_bresp_o,
  input  logic        s_axil_arvalid_i,
  output logic        s_axil_arready_o,
  input  logic [nnc_isa_pkg::RegAddrBits-1:0] s_axil_araddr_i,
  output logic        s_axil_rvalid_o,
  input  logic        s_axil_rready_i,
  output logic [31:0] s_axil_rdata_o,
  output logic [1:0]  s_axil_rresp_o,

  // Configuration to the command processor
  output logic        soft_reset_o,   // one-cycle pulse
  output logic        doorbell_o,     // one-cycle pulse
  output logic [31:0] ring_base_o,
  output logic [31:0] ring_size_o,
  output logic [31:0] ring_tail_o,
  output logic [31:0] watchdog_o,

  // State of the command processor
  input  logic        st_idle_i,
  input  logic        st_busy_i,
  input  logic        st_done_i,
  input  logic        st_error_i,
  input  logic [7:0]  err_code_i,
  input  logic [31:0] err_addr_i,
  input  logic [31:0] err_info_i,
  input  logic [31:0] ring_head_i,
  input  logic [15:0] last_tag_i,
  input  logic        irq_done_i,     // pulse: an END with irq=1 completed
  input  logic        irq_error_i,    // pulse: the NPU stopped on an error

  // Performance events, sampled every cycle
  input  logic        ev_load_busy_i,
  input  logic        ev_load_stall_i,
  input  logic        ev_compute_busy_i,
  input  logic        ev_compute_stall_i,
  input  logic        ev_store_busy_i,
  input  logic        ev_store_stall_i,
  input  logic        ev_densify_busy_i,
  input  logic        ev_densify_stall_i,
  input  logic [15:0] ev_rd_bytes_i,
  input  logic [15:0] ev_wr_bytes_i,
  input  logic [15:0] ev_macs_i,

  output logic        irq_o
);

  localparam logic [1:0] RespOkay   = 2'b00;
  localparam logic [1:0] RespSlvErr = 2'b10;

  // Performance counter indices: PERF_* registers are consecutive words from PerfCycles.
  typedef enum int unsigned {
    PcCycles, PcLoadBusy, PcLoadStall, PcComputeBusy, PcComputeStall, PcStoreBusy,
    PcStoreStall, PcDensifyBusy, PcDensifyStall, PcRdBytes, PcWrBytes, PcMacs, PcCount
  } perf_idx_e;
  localparam int unsigned NumPerf = PcCount;
  localparam logic [nnc_isa_pkg::RegAddrBits-1:0] PerfEnd =
      nnc_isa_pkg::RegPerfCycles + nnc_isa_pkg::RegAddrBits'(4 * NumPerf);

  // Read-only CONFIG words: the build's parameters at the fields' positions (each value
  // fits its field; the assertions below check it).
  localparam int unsigned BufKibLog2 = $clog2(InpBytes / 1024);
  localparam logic [31:0] CfgArray   =
      (32'(Rows) << nnc_isa_pkg::RegConfigRowsBit) | (32'(Cols) << nnc_isa_pkg::RegConfigColsBit) |
      (32'(BufKibLog2) << nnc_isa_pkg::RegConfigBufKibLog2Bit);
  localparam logic [31:0] CfgQueues  =
      (32'(QueueDepth) << nnc_isa_pkg::RegConfigQueuesQueueDepthBit) |
      (32'(FetchDepth) << nnc_isa_pkg::RegConfigQueuesFetchDepthBit);
  localparam logic [31:0] CfgDma     = (32'(BusBytes) << nnc_isa_pkg::RegConfigDmaDataBytesBit) |
                                       (32'(MaxOutstanding) << nnc_isa_pkg::RegConfigDmaBurstsBit);
  localparam logic [31:0] CfgCompute =
      (32'(TileFifo) << nnc_isa_pkg::RegConfigComputeGemmTilesBit) |
      (32'(StreamDepth) << nnc_isa_pkg::RegConfigComputeDensifyBeatsBit) |
      (32'(MaxReads) << nnc_isa_pkg::RegConfigComputeDensifyReadsBit) |
      (32'(InpLineVectors) << nnc_isa_pkg::RegConfigComputeInpLineVectorsBit);

  // --- Write channel: address and data may arrive in either order ---------------------------
  logic        aw_full_d, aw_full_q;
  logic [nnc_isa_pkg::RegAddrBits-1:0] aw_addr_d, aw_addr_q;
  logic        w_full_d, w_full_q;
  logic [31:0] w_data_d, w_data_q;
  logic [3:0]  w_strb_d, w_strb_q;
  logic        b_valid_d, b_valid_q;
  logic [1:0]  b_resp_d, b_resp_q;
  logic        do_write;

  assign s_axil_awready_o = !aw_full_q;
  assign s_axil_wready_o  = !w_full_q;
  assign s_axil_bvalid_o  = b_valid_q;
  assign s_axil_bresp_o   = b_resp_q;
  // A write happens once both halves are held and the previous response has been taken.
  assign do_write = aw_full_q && w_full_q && !b_valid_q;

  // --- Registers ------------------------------------------------------------------------------
  logic [31:0] ring_base_d, ring_base_q;
  logic [31:0] ring_size_d, ring_size_q;
  logic [31:0] ring_tail_d, ring_tail_q;
  logic [31:0] watchdog_d, watchdog_q;
  logic        irq_en_d, irq_en_q;
  logic [1:0]  irq_status_d, irq_status_q;
  logic        soft_reset_d, soft_reset_q;
  logic        doorbell_d, doorbell_q;
  logic        perf_clear;
  logic [31:0] perf_d [NumPerf];
  logic [31:0] perf_q [NumPerf];

  // Byte-strobed update of a read-write register.
  function automatic logic [31:0] merge(logic [31:0] old, logic [31:0] data, logic [3:0] strb);
    for (int unsigned b = 0; b < 4; b++) begin
      merge[8*b +: 8] = strb[b] ? data[8*b +: 8] : old[8*b +: 8];
    end
  endfunction

  logic [31:0] wval;
  assign wval = merge(32'd0, w_data_q, w_strb_q);

  always_comb begin
    aw_full_d    = aw_full_q;
    aw_addr_d    = aw_addr_q;
    w_full_d     = w_full_q;
    w_data_d     = w_data_q;
    w_strb_d     = w_strb_q;
    b_valid_d    = b_valid_q;
    b_resp_d     = b_resp_q;
    ring_base_d  = ring_base_q;
    ring_size_d  = ring_size_q;
    ring_tail_d  = ring_tail_q;
    watchdog_d   = watchdog_q;
    irq_en_d     = irq_en_q;
    irq_status_d = irq_status_q;
    soft_reset_d = 1'b0;
    doorbell_d   = 1'b0;
    perf_clear   = 1'b0;

    if (s_axil_awvalid_i && s_axil_awready_o) begin
      aw_full_d = 1'b1;
      aw_addr_d = s_axil_awaddr_i;
    end
    if (s_axil_wvalid_i && s_axil_wready_o) begin
      w_full_d = 1'b1;
      w_data_d = s_axil_wdata_i;
      w_strb_d = s_axil_wstrb_i;
    end
    if (s_axil_bvalid_o && s_axil_bready_i) b_valid_d = 1'b0;

    // Hardware events first, so a host write-1-to-clear in the same cycle loses to a new cause.
    if (do_write) begin
      aw_full_d = 1'b0;
      w_full_d  = 1'b0;
      b_valid_d = 1'b1;
      b_resp_d  = RespOkay;
      unique case ({aw_addr_q[nnc_isa_pkg::RegAddrBits-1:2], 2'b00})
        nnc_isa_pkg::RegCtrl: begin
          soft_reset_d = wval[nnc_isa_pkg::RegCtrlSoftResetBit];
          if (w_strb_q[0]) irq_en_d = w_data_q[nnc_isa_pkg::RegCtrlIrqEnBit];
          perf_clear   = wval[nnc_isa_pkg::RegCtrlPerfClearBit];
        end
        nnc_isa_pkg::RegIrqStatus: irq_status_d = irq_status_q & ~wval[1:0];
        nnc_isa_pkg::RegRingBase:  ring_base_d  = merge(ring_base_q, w_data_q, w_strb_q);
        nnc_isa_pkg::RegRingSize:  ring_size_d  = merge(ring_size_q, w_data_q, w_strb_q);
        nnc_isa_pkg::RegRingTail:  ring_tail_d  = merge(ring_tail_q, w_data_q, w_strb_q);
        nnc_isa_pkg::RegDoorbell:  doorbell_d   = 1'b1;
        nnc_isa_pkg::RegWatchdog:  watchdog_d   = merge(watchdog_q, w_data_q, w_strb_q);
        // Read-only registers ignore writes; holes answer SLVERR.
        nnc_isa_pkg::RegId, nnc_isa_pkg::RegVersion, nnc_isa_pkg::RegStatus,
        nnc_isa_pkg::RegErrCode, nnc_isa_pkg::RegErrAddr, nnc_isa_pkg::RegErrInfo,
        nnc_isa_pkg::RegRingHead, nnc_isa_pkg::RegLastTag, nnc_isa_pkg::RegConfig,
        nnc_isa_pkg::RegConfigInpBytes, nnc_isa_pkg::RegConfigWgtBytes,
        nnc_isa_pkg::RegConfigAccBytes, nnc_isa_pkg::RegConfigOutBytes,
        nnc_isa_pkg::RegConfigPrmBytes, nnc_isa_pkg::RegConfigQueues, nnc_isa_pkg::RegConfigDma,
        nnc_isa_pkg::RegConfigCompute: ;
        default: begin
          if ({aw_addr_q[nnc_isa_pkg::RegAddrBits-1:2], 2'b00} < nnc_isa_pkg::RegPerfCycles ||
              {aw_addr_q[nnc_isa_pkg::RegAddrBits-1:2], 2'b00} >= PerfEnd) begin
            b_resp_d = RespSlvErr;
          end
        end
      endcase
    end
    if (irq_done_i)  irq_status_d[nnc_isa_pkg::RegIrqStatusDoneBit]  = 1'b1;
    if (irq_error_i) irq_status_d[nnc_isa_pkg::RegIrqStatusErrorBit] = 1'b1;
  end

  // --- Performance counters -------------------------------------------------------------------
  logic [15:0] perf_inc [NumPerf];
  assign perf_inc[PcCycles]       = 16'd1;
  assign perf_inc[PcLoadBusy]     = 16'(ev_load_busy_i);
  assign perf_inc[PcLoadStall]    = 16'(ev_load_stall_i);
  assign perf_inc[PcComputeBusy]  = 16'(ev_compute_busy_i);
  assign perf_inc[PcComputeStall] = 16'(ev_compute_stall_i);
  assign perf_inc[PcStoreBusy]    = 16'(ev_store_busy_i);
  assign perf_inc[PcStoreStall]   = 16'(ev_store_stall_i);
  assign perf_inc[PcDensifyBusy]  = 16'(ev_densify_busy_i);
  assign perf_inc[PcDensifyStall] = 16'(ev_densify_stall_i);
  assign perf_inc[PcRdBytes]      = ev_rd_bytes_i;
  assign perf_inc[PcWrBytes]      = ev_wr_bytes_i;
  assign perf_inc[PcMacs]         = ev_macs_i;

  for (genvar i = 0; i < NumPerf; i++) begin : g_perf
    assign perf_d[i] = perf_clear ? 32'd0 : perf_q[i] + 32'(perf_inc[i]);
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        perf_q[i] <= '0;
      end else begin
        perf_q[i] <= perf_d[i];
      end
    end
  end

  // --- Read channel ---------------------------------------------------------------------------
  logic        r_valid_d, r_valid_q;
  logic [31:0] r_data_d, r_data_q;
  logic [1:0]  r_resp_d, r_resp_q;
  logic [nnc_isa_pkg::RegAddrBits-1:0] raddr;

  assign s_axil_arready_o = !r_valid_q;
  assign s_axil_rvalid_o  = r_valid_q;
  assign s_axil_rdata_o   = r_data_q;
  assign s_axil_rresp_o   = r_resp_q;
  assign raddr = {s_axil_araddr_i[nnc_isa_pkg::RegAddrBits-1:2], 2'b00};
  // Registers are words: the byte offset within a word does not select anything.
  logic [1:0] unused_araddr;
  assign unused_araddr = s_axil_araddr_i[1:0];

  always_comb begin
    r_valid_d = r_valid_q;
    r_data_d  = r_data_q;
    r_resp_d  = r_resp_q;
    if (s_axil_rvalid_o && s_axil_rready_i) r_valid_d = 1'b0;
    if (s_axil_arvalid_i && s_axil_arready_o) begin
      r_valid_d = 1'b1;
      r_resp_d  = RespOkay;
      r_data_d  = '0;
      unique case (raddr)
        nnc_isa_pkg::RegId:        r_data_d = nnc_isa_pkg::RegIdValue;
        nnc_isa_pkg::RegVersion:   r_data_d = nnc_isa_pkg::IsaVersion;
        nnc_isa_pkg::RegCtrl:      r_data_d[nnc_isa_pkg::RegCtrlIrqEnBit] = irq_en_q;
        nnc_isa_pkg::RegStatus: begin
          r_data_d[nnc_isa_pkg::RegStatusIdleBit]  = st_idle_i;
          r_data_d[nnc_isa_pkg::RegStatusBusyBit]  = st_busy_i;
          r_data_d[nnc_isa_pkg::RegStatusDoneBit]  = st_done_i;
          r_data_d[nnc_isa_pkg::RegStatusErrorBit] = st_error_i;
        end
        nnc_isa_pkg::RegErrCode:   r_data_d = 32'(err_code_i);
        nnc_isa_pkg::RegErrAddr:   r_data_d = err_addr_i;
        nnc_isa_pkg::RegErrInfo:   r_data_d = err_info_i;
        nnc_isa_pkg::RegIrqStatus: r_data_d = 32'(irq_status_q);
        nnc_isa_pkg::RegRingBase:  r_data_d = ring_base_q;
        nnc_isa_pkg::RegRingSize:  r_data_d = ring_size_q;
        nnc_isa_pkg::RegRingHead:  r_data_d = ring_head_i;
        nnc_isa_pkg::RegRingTail:  r_data_d = ring_tail_q;
        nnc_isa_pkg::RegDoorbell:  r_data_d = '0;
        nnc_isa_pkg::RegWatchdog:  r_data_d = watchdog_q;
        nnc_isa_pkg::RegLastTag:   r_data_d = 32'(last_tag_i);
        nnc_isa_pkg::RegConfig:    r_data_d = CfgArray;
        nnc_isa_pkg::RegConfigInpBytes: r_data_d = 32'(InpBytes);
        nnc_isa_pkg::RegConfigWgtBytes: r_data_d = 32'(WgtBytes);
        nnc_isa_pkg::RegConfigAccBytes: r_data_d = 32'(AccBytes);
        nnc_isa_pkg::RegConfigOutBytes: r_data_d = 32'(OutBytes);
        nnc_isa_pkg::RegConfigPrmBytes: r_data_d = 32'(PrmBytes);
        nnc_isa_pkg::RegConfigQueues:   r_data_d = CfgQueues;
        nnc_isa_pkg::RegConfigDma:      r_data_d = CfgDma;
        nnc_isa_pkg::RegConfigCompute:  r_data_d = CfgCompute;
        default: begin
          if (raddr >= nnc_isa_pkg::RegPerfCycles && raddr < PerfEnd) begin
            r_data_d = perf_q[4'((raddr - nnc_isa_pkg::RegPerfCycles) >> 2)];
          end else begin
            r_resp_d = RespSlvErr;
          end
        end
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_full_q    <= 1'b0;
      aw_addr_q    <= '0;
      w_full_q     <= 1'b0;
      w_data_q     <= '0;
      w_strb_q     <= '0;
      b_valid_q    <= 1'b0;
      b_resp_q     <= RespOkay;
      r_valid_q    <= 1'b0;
      r_data_q     <= '0;
      r_resp_q     <= RespOkay;
      ring_base_q  <= '0;
      ring_size_q  <= '0;
      ring_tail_q  <= '0;
      watchdog_q   <= '0;
      irq_en_q     <= 1'b0;
      irq_status_q <= '0;
      soft_reset_q <= 1'b0;
      doorbell_q   <= 1'b0;
    end else begin
      aw_full_q    <= aw_full_d;
      aw_addr_q    <= aw_addr_d;
      w_full_q     <= w_full_d;
      w_data_q     <= w_data_d;
      w_strb_q     <= w_strb_d;
      b_valid_q    <= b_valid_d;
      b_resp_q     <= b_resp_d;
      r_valid_q    <= r_valid_d;
      r_data_q     <= r_data_d;
      r_resp_q     <= r_resp_d;
      ring_base_q  <= ring_base_d;
      ring_size_q  <= ring_size_d;
      ring_tail_q  <= ring_tail_d;
      watchdog_q   <= watchdog_d;
      irq_en_q     <= irq_en_d;
      irq_status_q <= irq_status_d;
      soft_reset_q <= soft_reset_d;
      doorbell_q   <= doorbell_d;
    end
  end

  assign soft_reset_o = soft_reset_q;
  assign doorbell_o   = doorbell_q;
  assign ring_base_o  = ring_base_q;
  assign ring_size_o  = ring_size_q;
  assign ring_tail_o  = ring_tail_q;
  assign watchdog_o   = watchdog_q;
  assign irq_o        = irq_en_q && (irq_status_q != '0);

  // --- Assertions -----------------------------------------------------------------------------
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      // The map must hold the performance counters as one block after CONFIG.
      `PRIM_ASSERT_I(PerfAfterConfig_A,
          nnc_isa_pkg::RegPerfCycles == nnc_isa_pkg::RegConfig + nnc_isa_pkg::RegAddrBits'(4),
          ("nnc_regfile: PERF_CYCLES must follow CONFIG"))
      // Each reported parameter fits its CONFIG field (else it would corrupt its neighbour).
      `PRIM_ASSERT_I(ArrayFitsConfig_A,
          Rows < 2 ** nnc_isa_pkg::RegConfigRowsWidth &&
              Cols < 2 ** nnc_isa_pkg::RegConfigColsWidth &&
              BufKibLog2 < 2 ** nnc_isa_pkg::RegConfigBufKibLog2Width,
        ("nnc_regfile: the array does not fit CONFIG"))
      `PRIM_ASSERT_I(DepthsFitConfig_A,
          QueueDepth < 2 ** nnc_isa_pkg::RegConfigQueuesQueueDepthWidth &&
              FetchDepth < 2 ** nnc_isa_pkg::RegConfigQueuesFetchDepthWidth &&
              BusBytes < 2 ** nnc_isa_pkg::RegConfigDmaDataBytesWidth &&
              MaxOutstanding < 2 ** nnc_isa_pkg::RegConfigDmaBurstsWidth &&
              TileFifo < 2 ** nnc_isa_pkg::RegConfigComputeGemmTilesWidth &&
              StreamDepth < 2 ** nnc_isa_pkg::RegConfigComputeDensifyBeatsWidth &&
              MaxReads < 2 ** nnc_isa_pkg::RegConfigComputeDensifyReadsWidth &&
              InpLineVectors < 2 ** nnc_isa_pkg::RegConfigComputeInpLineVectorsWidth,
        ("nnc_regfile: a depth or width does not fit its CONFIG field"))
    end
  end

endmodule
