// Command processor: fetches commands from the ring in device memory, checks them with the
// generated decoder (nnc_isa_pkg::cmd_check), and dispatches them in order to three queues
// (load, compute, store) that issue to their units concurrently. Dependency tokens between
// neighbouring queues order them where the program says so (TVM VTA style, docs/isa.md).
//
// Per queue, commands are issued in order and complete in order (the unit's done pulses
// refer to the oldest issued command). Pops consume tokens at issue; pushes add tokens at
// completion, so a token always means "that command's effects are visible".
//
// END waits in the dispatcher until every queue has drained. On an error the processor
// stops fetching and issuing, asks the units to abort (they finish the bus transactions
// they started) and, once they are quiet, enters the error state; a soft reset does the
// same drain and then clears everything. A watchdog timeout enters the error state at
// once, since the units may be the ones that are stuck.
`include "prim_assert.svh"

module nnc_cmd_proc
#(
  parameter int unsigned QueueDepth = nnc_isa_pkg::CmdQueueDepth,  // power of two
  parameter int unsigned FetchDepth = nnc_isa_pkg::CmdFetchDepth   // power of two
) (
  input  logic        clk_i,
  input  logic        rst_ni,

  // From the register file
  input  logic        soft_reset_i,
  input  logic        doorbell_i,
  input  logic [31:0] ring_base_i,
  input  logic [31:0] ring_size_i,
  input  logic [31:0] ring_tail_i,
  input  logic [31:0] watchdog_i,

  // To the register file
  output logic        st_idle_o,
  output logic        st_busy_o,
  output logic        st_done_o,
  output logic        st_error_o,
  output logic [7:0]  err_code_o,
  output logic [31:0] err_addr_o,
  output logic [31:0] err_info_o,
  output logic [31:0] ring_head_o,
  output logic [15:0] last_tag_o,
  output logic        irq_done_o,
  output logic        irq_error_o,

  // Command fetch (nnc_dma's fetch client)
  output logic        fetch_req_valid_o,
  input  logic        fetch_req_ready_i,
  output logic [31:0] fetch_req_addr_o,
  input  logic        fetch_rsp_valid_i,
  input  nnc_isa_pkg::cmd_t        fetch_rsp_cmd_i,
  input  logic [1:0]  fetch_rsp_resp_i,

  // Units: index 0 load, 1 compute, 2 store (SYNC never reaches a unit)
  output logic [2:0]  unit_valid_o,
  input  logic [2:0]  unit_ready_i,
  // Per-unit vectors: unit q in slice q.
  output logic [3*nnc_isa_pkg::CmdBits-1:0] unit_cmd_o,
  input  logic [2:0]  unit_done_i,
  input  logic [2:0]  unit_err_i,
  input  logic [3*8-1:0]  unit_err_code_i,  // nnc_isa_pkg::err_code_e
  input  logic [3*32-1:0] unit_err_addr_i,  // bus address (for bus errors)
  input  logic [3*32-1:0] unit_err_info_i,
  output logic        abort_o,              // units: stop after what is in flight
  input  logic        progress_i,           // some unit moved (for the watchdog)

  // Performance events
  output logic [2:0]  ev_busy_o,            // a queue has a command in its unit
  output logic [2:0]  ev_stall_o,           // a queue's next command waits for a token
  // Observation (timeline of a run): a queue issues / completes a command this cycle (a
  // SYNC does both at once); per queue both happen in stream order.
  output logic [2:0]  ev_issue_o,
  output logic [2:0]  ev_complete_o
);

  localparam int unsigned QLoad = 0, QCompute = 1, QStore = 2;
  localparam int unsigned QPtrW = $clog2(QueueDepth);
  localparam int unsigned QCntW = $clog2(QueueDepth + 1);
  localparam int unsigned FPtrW = $clog2(FetchDepth);
  localparam int unsigned FCntW = $clog2(FetchDepth + 1);

  typedef enum logic [1:0] {
    StRun,       // fetch (when enabled), dispatch and issue
    StStopping,  // an error: draining the units
    StError,     // stopped until a soft reset
    StResetting  // a soft reset: draining the units, then clear
  } state_e;

  // Token channels, named by direction: load->compute, compute->load, compute->store,
  // store->compute.
  localparam int unsigned TkL2C = 0, TkC2L = 1, TkC2S = 2, TkS2C = 3;

  state_e state_d, state_q;

  // =========================================================================================
  // Fetch
  // =========================================================================================
  logic        fetch_en_d, fetch_en_q;   // set by the doorbell
  logic [31:0] fetch_ptr_d, fetch_ptr_q; // next slot to request
  logic [31:0] head_d, head_q;           // next slot to arrive
  logic [FCntW-1:0] fetch_out_d, fetch_out_q;  // requests in flight

  // Fetched commands waiting for dispatch
  nnc_isa_pkg::cmd_t        fq_cmd_q  [FetchDepth];
  logic [31:0] fq_addr_q [FetchDepth];
  logic [1:0]  fq_resp_q [FetchDepth];
  logic [FPtrW-1:0] fq_wr_q, fq_rd_q;
  logic [FCntW-1:0] fq_cnt_d, fq_cnt_q;
  logic        fq_push, fq_pop;

  // Slots are 32 bytes; the ring base's low five bits are ignored.
  function automatic logic [31:0] slot_addr(logic [26:0] base_hi, logic [31:0] slot);
    slot_addr = {base_hi, 5'd0} + (slot << 5);
  endfunction
  function automatic logic [31:0] slot_next(logic [31:0] slot, logic [31:0] size);
    slot_next = (slot + 32'd1 >= size) ? 32'd0 : slot + 32'd1;
  endfunction

  assign fetch_req_valid_o = state_q == StRun && fetch_en_q && ring_size_i != '0 &&
                             fetch_ptr_q != ring_tail_i &&
                             32'(fq_cnt_q) + 32'(fetch_out_q) < FetchDepth;
  assign fetch_req_addr_o  = slot_addr(ring_base_i[31:5], fetch_ptr_q);
  logic [4:0] unused_ring_base;
  assign unused_ring_base = ring_base_i[4:0];
  // Responses after a stop are dropped (their requests were in flight).
  assign fq_push = fetch_rsp_valid_i && state_q == StRun;

  // =========================================================================================
  // Queues
  // =========================================================================================
  nnc_isa_pkg::cmd_t        qm_cmd_q  [3][QueueDepth];
  logic [31:0] qm_addr_q [3][QueueDepth];
  // Per-queue pointers and counts (queue q in slice q) and the four token counters (channel
  // t in slice t), flat: Yosys has no multi-dimensional packed arrays.
  logic [3*QPtrW-1:0] q_wr_d, q_wr_q, q_rd_d, q_rd_q, q_iss_d, q_iss_q;
  logic [3*QCntW-1:0] q_cnt_d, q_cnt_q;  // entries (issued or not)
  logic [3*QCntW-1:0] q_inf_d, q_inf_q;  // issued, not completed
  logic [4*8-1:0]     tok_d, tok_q;

  // Head-of-issue command of each queue and its needs.
  logic [2:0] iss_pop_prev, iss_pop_next;  // its header's flags
  logic [2:0] iss_avail, iss_tokens_ok, iss_is_sync, iss_go, iss_fire;

  // Token channel a queue pops with pop_prev / pop_next (and whether it exists).
  function automatic int unsigned pop_prev_ch(int unsigned q);
    pop_prev_ch = q == QCompute ? TkL2C : TkC2S;
  endfunction
  function automatic int unsigned pop_next_ch(int unsigned q);
    pop_next_ch = q == QLoad ? TkC2L : TkS2C;
  endfunction
  function automatic int unsigned push_prev_ch(int unsigned q);
    push_prev_ch = q == QCompute ? TkC2L : TkS2C;
  endfunction
  function automatic int unsigned push_next_ch(int unsigned q);
    push_next_ch = q == QLoad ? TkL2C : TkC2S;
  endfunction

  logic [2:0] cpl_push_prev, cpl_push_next;

  // Each queue's head-of-issue command, and its header fields by offset (Yosys reads struct
  // members of plain signals only). Apart from the issue logic below, which depends on the
  // units' ready: the command does not, and a unit's ready depends on its command.
  always_comb begin
    nnc_isa_pkg::cmd_t c;
    for (int unsigned q = 0; q < 3; q++) begin
      c               = qm_cmd_q[q][q_iss_q[QPtrW*q +: QPtrW]];
      iss_pop_prev[q] = c[nnc_isa_pkg::HdrPopPrevLsb];
      iss_pop_next[q] = c[nnc_isa_pkg::HdrPopNextLsb];
      iss_is_sync[q]  = c[nnc_isa_pkg::HdrOpcodeLsb +: 8] == nnc_isa_pkg::OpcodeSync;
      unit_cmd_o[nnc_isa_pkg::CmdBits*q +: nnc_isa_pkg::CmdBits] = c;
    end
  end

  always_comb begin
    for (int unsigned q = 0; q < 3; q++) begin
      iss_avail[q]     = q_inf_q[QCntW*q +: QCntW] < q_cnt_q[QCntW*q +: QCntW];
      // The decoder rejected the flags a queue cannot use, so the channels below exist.
      iss_tokens_ok[q] = (!iss_pop_prev[q] || tok_q[8*(pop_prev_ch(q)) +: 8] != 8'd0) &&
                         (!iss_pop_next[q] || tok_q[8*(pop_next_ch(q)) +: 8] != 8'd0);
      // SYNC completes on the spot, so it waits until its queue has nothing in flight.
      iss_go[q]        = state_q == StRun && iss_avail[q] && iss_tokens_ok[q] &&
                         (!iss_is_sync[q] || q_inf_q[QCntW*q +: QCntW] == '0);
      unit_valid_o[q]  = iss_go[q] && !iss_is_sync[q];
      iss_fire[q]      = iss_go[q] && (iss_is_sync[q] || unit_ready_i[q]);
    end
  end

  // Completing command of each queue: the oldest one (a SYNC completes as it issues).
  logic [2:0] cpl;
  always_comb begin
    nnc_isa_pkg::cmd_t c;
    for (int unsigned q = 0; q < 3; q++) begin
      c                = qm_cmd_q[q][q_rd_q[QPtrW*q +: QPtrW]];
      cpl[q]           = unit_done_i[q] || (iss_fire[q] && iss_is_sync[q]);
      cpl_push_prev[q] = c[nnc_isa_pkg::HdrPushPrevLsb];
      cpl_push_next[q] = c[nnc_isa_pkg::HdrPushNextLsb];
    end
  end

  // =========================================================================================
  // Dispatch
  // =========================================================================================
  nnc_isa_pkg::cmd_t        d_cmd;
  logic [31:0] d_addr;
  logic [1:0]  d_resp;
  nnc_isa_pkg::cmd_check_t  d_chk;
  logic [7:0]  d_opcode;  // nnc_isa_pkg::opcode_e
  logic        d_valid;
  logic [1:0]  d_queue;
  logic        d_is_end, d_to_queue, d_push;
  logic        all_drained;

  assign d_valid = fq_cnt_q != '0 && state_q == StRun;
  assign d_cmd   = fq_cmd_q[fq_rd_q];
  assign d_addr  = fq_addr_q[fq_rd_q];
  assign d_resp  = fq_resp_q[fq_rd_q];
  assign d_chk   = nnc_isa_pkg::cmd_check(d_cmd);
  assign d_opcode = d_cmd[7:0];
  assign d_is_end = d_opcode == nnc_isa_pkg::OpcodeEnd;
  assign all_drained = q_cnt_q == '0;

  always_comb begin
    unique case (d_opcode)
      nnc_isa_pkg::OpcodeDmaLoad:  d_queue = 2'(QLoad);
      nnc_isa_pkg::OpcodeDmaStore: d_queue = 2'(QStore);
      nnc_isa_pkg::OpcodeSync:
        d_queue = d_cmd[nnc_isa_pkg::SyncExecQueueLsb +: nnc_isa_pkg::SyncExecQueueWidth];
      default:        d_queue = 2'(QCompute);
    endcase
  end

  logic d_bad;  // the command at dispatch is faulty
  assign d_bad      = d_valid && (d_resp != 2'b00 || d_chk.code != nnc_isa_pkg::ErrCodeNone);
  assign d_to_queue = d_valid && !d_bad && !d_is_end;
  assign d_push     = d_to_queue && q_cnt_q[QCntW*d_queue +: QCntW] != QCntW'(QueueDepth);
  assign fq_pop     = d_push || (d_valid && !d_bad && d_is_end && all_drained);

  // =========================================================================================
  // Errors, status, watchdog
  // =========================================================================================
  logic        err_d, err_q;  // an error was captured (first one wins)
  logic [7:0]  err_code_d, err_code_q;  // nnc_isa_pkg::err_code_e
  logic [31:0] err_addr_d, err_addr_q, err_info_d, err_info_q;
  logic        done_d, done_q;
  logic [15:0] last_tag_d, last_tag_q;
  logic        irq_done_d, irq_done_q, irq_error_d, irq_error_q;
  logic [31:0] wd_cnt_d, wd_cnt_q;
  logic [31:0] last_cmd_addr_d, last_cmd_addr_q;  // most recently dispatched
  logic        local_progress, units_quiet;

  assign local_progress = fq_push || fq_pop || (|iss_fire) || (|unit_done_i) ||
                          (fetch_req_valid_o && fetch_req_ready_i);
  assign units_quiet    = q_inf_q == '0 && fetch_out_q == '0;

  always_comb begin
    state_d         = state_q;
    fetch_en_d      = fetch_en_q;
    fetch_ptr_d     = fetch_ptr_q;
    head_d          = head_q;
    fetch_out_d     = fetch_out_q;
    fq_cnt_d        = fq_cnt_q;
    q_wr_d          = q_wr_q;
    q_rd_d          = q_rd_q;
    q_iss_d         = q_iss_q;
    q_cnt_d         = q_cnt_q;
    q_inf_d         = q_inf_q;
    tok_d           = tok_q;
    err_d           = err_q;
    err_code_d      = err_code_q;
    err_addr_d      = err_addr_q;
    err_info_d      = err_info_q;
    done_d          = done_q;
    last_tag_d      = last_tag_q;
    irq_done_d      = 1'b0;
    irq_error_d     = 1'b0;
    wd_cnt_d        = wd_cnt_q;
    last_cmd_addr_d = last_cmd_addr_q;

    // --- fetch ---
    if (doorbell_i) begin
      fetch_en_d = 1'b1;
      done_d     = 1'b0;
    end
    if (fetch_req_valid_o && fetch_req_ready_i) fetch_ptr_d = slot_next(fetch_ptr_q, ring_size_i);
    if (fetch_rsp_valid_i) head_d = slot_next(head_q, ring_size_i);
    fetch_out_d = fetch_out_q + FCntW'(fetch_req_valid_o && fetch_req_ready_i) -
                  FCntW'(fetch_rsp_valid_i);
    fq_cnt_d = fq_cnt_q + FCntW'(fq_push) - FCntW'(fq_pop);

    // --- dispatch ---
    if (d_push) begin
      q_wr_d[QPtrW*d_queue +: QPtrW]  = q_wr_q[QPtrW*d_queue +: QPtrW] + 1'b1;
      last_cmd_addr_d  = d_addr;
    end
    if (fq_pop && d_is_end) begin
      last_tag_d      = d_cmd[nnc_isa_pkg::EndTagLsb +: nnc_isa_pkg::EndTagWidth];
      done_d          = 1'b1;
      irq_done_d      = d_cmd[nnc_isa_pkg::EndIrqLsb];
      last_cmd_addr_d = d_addr;
    end

    // --- issue and completion, per queue; tokens ---
    for (int unsigned q = 0; q < 3; q++) begin
      // Pointer steps written unconditionally: Verilator 5.006 drops the bound temporary of
      // a conditional slice write in an unrolled loop (its C++ does not compile).
      q_iss_d[QPtrW*q +: QPtrW] = q_iss_q[QPtrW*q +: QPtrW] + QPtrW'(iss_fire[q]);
      q_rd_d[QPtrW*q +: QPtrW]  = q_rd_q[QPtrW*q +: QPtrW] + QPtrW'(cpl[q]);
      if (iss_fire[q]) begin
        if (iss_pop_prev[q]) begin
          tok_d[8*(pop_prev_ch(q)) +: 8] = tok_d[8*(pop_prev_ch(q)) +: 8] - 8'd1;
        end
        if (iss_pop_next[q]) begin
          tok_d[8*(pop_next_ch(q)) +: 8] = tok_d[8*(pop_next_ch(q)) +: 8] - 8'd1;
        end
      end
      if (cpl[q]) begin
        if (cpl_push_prev[q]) begin
          tok_d[8*(push_prev_ch(q)) +: 8] = tok_d[8*(push_prev_ch(q)) +: 8] + 8'd1;
        end
        if (cpl_push_next[q]) begin
          tok_d[8*(push_next_ch(q)) +: 8] = tok_d[8*(push_next_ch(q)) +: 8] + 8'd1;
        end
      end
      q_cnt_d[QCntW*q +: QCntW] = q_cnt_q[QCntW*q +: QCntW] + QCntW'(d_push && d_queue == 2'(q)) -
                                  QCntW'(cpl[q]);
      q_inf_d[QCntW*q +: QCntW] = q_inf_q[QCntW*q +: QCntW] + QCntW'(iss_fire[q]) - QCntW'(cpl[q]);
    end

    // --- errors: the first one wins ---
    if (state_q == StRun && !err_q) begin
      if (d_bad) begin
        err_d      = 1'b1;
        err_addr_d = d_addr;
        if (d_resp != 2'b00) begin
          err_code_d = nnc_isa_pkg::ErrCodeBusError;
          err_info_d = 32'(d_resp);
        end else begin
          err_code_d = d_chk.code;
          err_info_d = 32'(d_chk.bit_pos);
        end
      end else begin
        for (int unsigned q = 0; q < 3; q++) begin
          if (!err_d && unit_done_i[q] && unit_err_i[q]) begin
            err_d      = 1'b1;
            err_code_d = unit_err_code_i[8*q +: 8];
            err_info_d = unit_err_info_i[32*q +: 32];
            // Bus errors name the bus address; the others the command's.
            err_addr_d = unit_err_code_i[8*q +: 8] == nnc_isa_pkg::ErrCodeBusError
                       ? unit_err_addr_i[32*q +: 32] : qm_addr_q[q][q_rd_q[QPtrW*q +: QPtrW]];
          end
        end
      end
    end

    // --- watchdog: cycles busy without any progress ---
    if (state_q != StRun || !st_busy_o || local_progress || progress_i) begin
      wd_cnt_d = '0;
    end else begin
      wd_cnt_d = wd_cnt_q + 32'd1;
    end

    // --- state ---
    unique case (state_q)
      StRun: begin
        if (err_d && !err_q) begin
          state_d    = StStopping;
          fetch_en_d = 1'b0;
        end else if (watchdog_i != '0 && wd_cnt_q >= watchdog_i && !err_q) begin
          err_d       = 1'b1;
          err_code_d  = nnc_isa_pkg::ErrCodeWatchdog;
          err_addr_d  = last_cmd_addr_q;
          err_info_d  = '0;
          fetch_en_d  = 1'b0;
          state_d     = StError;
          irq_error_d = 1'b1;
        end
      end
      StStopping: begin
        if (units_quiet) begin
          state_d     = StError;
          irq_error_d = 1'b1;
        end
      end
      StError: ;
      StResetting: begin
        if (units_quiet) state_d = StRun;
      end
      default: state_d = StRun;
    endcase

    // --- soft reset: drain what is in flight, then start from slot 0 with nothing queued ---
    if (soft_reset_i) state_d = StResetting;
    if (soft_reset_i || state_q == StResetting) begin
      fetch_en_d      = 1'b0;
      fetch_ptr_d     = '0;
      head_d          = '0;
      fq_cnt_d        = '0;
      tok_d           = '0;
      err_d           = 1'b0;
      err_code_d      = nnc_isa_pkg::ErrCodeNone;
      err_addr_d      = '0;
      err_info_d      = '0;
      done_d          = 1'b0;
      wd_cnt_d        = '0;
      // Entries not yet issued are dropped; issued ones leave as their units finish.
      q_wr_d  = q_iss_d;
      q_cnt_d = q_inf_d;
    end
  end

  // The units drain on their own once asked; they are asked while stopping or resetting.
  assign abort_o = state_q == StStopping || state_q == StResetting;

  // =========================================================================================
  // Outputs
  // =========================================================================================
  logic work_left;
  assign work_left = fq_cnt_q != '0 || fetch_out_q != '0 || q_cnt_q != '0 ||
                     (fetch_en_q && ring_size_i != '0 && fetch_ptr_q != ring_tail_i);

  assign st_error_o  = state_q == StError;
  assign st_busy_o   = state_q == StStopping || state_q == StResetting ||
                       (state_q == StRun && work_left);
  assign st_idle_o   = state_q == StRun && !work_left;
  assign st_done_o   = done_q;
  assign err_code_o  = err_code_q;
  assign err_addr_o  = err_addr_q;
  assign err_info_o  = err_info_q;
  assign ring_head_o = head_q;
  assign last_tag_o  = last_tag_q;
  assign irq_done_o  = irq_done_q;
  assign irq_error_o = irq_error_q;

  for (genvar q = 0; q < 3; q++) begin : g_ev
    assign ev_busy_o[q]  = q_inf_q[QCntW*q +: QCntW] != '0;
    assign ev_stall_o[q] = state_q == StRun && iss_avail[q] && !iss_tokens_ok[q];
  end
  assign ev_issue_o    = iss_fire;
  assign ev_complete_o = cpl;

  // =========================================================================================
  // Registers
  // =========================================================================================
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q         <= StRun;
      fetch_en_q      <= 1'b0;
      fetch_ptr_q     <= '0;
      head_q          <= '0;
      fetch_out_q     <= '0;
      fq_cnt_q        <= '0;
      q_wr_q          <= '0;
      q_rd_q          <= '0;
      q_iss_q         <= '0;
      q_cnt_q         <= '0;
      q_inf_q         <= '0;
      tok_q           <= '0;
      err_q           <= 1'b0;
      err_code_q      <= nnc_isa_pkg::ErrCodeNone;
      err_addr_q      <= '0;
      err_info_q      <= '0;
      done_q          <= 1'b0;
      last_tag_q      <= '0;
      irq_done_q      <= 1'b0;
      irq_error_q     <= 1'b0;
      wd_cnt_q        <= '0;
      last_cmd_addr_q <= '0;
    end else begin
      state_q         <= state_d;
      fetch_en_q      <= fetch_en_d;
      fetch_ptr_q     <= fetch_ptr_d;
      head_q          <= head_d;
      fetch_out_q     <= fetch_out_d;
      fq_cnt_q        <= fq_cnt_d;
      q_wr_q          <= q_wr_d;
      q_rd_q          <= q_rd_d;
      q_iss_q         <= q_iss_d;
      q_cnt_q         <= q_cnt_d;
      q_inf_q         <= q_inf_d;
      tok_q           <= tok_d;
      err_q           <= err_d;
      err_code_q      <= err_code_d;
      err_addr_q      <= err_addr_d;
      err_info_q      <= err_info_d;
      done_q          <= done_d;
      last_tag_q      <= last_tag_d;
      irq_done_q      <= irq_done_d;
      irq_error_q     <= irq_error_d;
      wd_cnt_q        <= wd_cnt_d;
      last_cmd_addr_q <= last_cmd_addr_d;
    end
  end

  // Fetch FIFO pointers (cleared by a soft reset) and storage.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fq_wr_q <= '0;
      fq_rd_q <= '0;
    end else if (soft_reset_i || state_q == StResetting) begin
      fq_wr_q <= '0;
      fq_rd_q <= '0;
    end else begin
      if (fq_push) fq_wr_q <= fq_wr_q + 1'b1;
      if (fq_pop)  fq_rd_q <= fq_rd_q + 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (fq_push) begin
      fq_cmd_q[fq_wr_q]  <= fetch_rsp_cmd_i;
      fq_addr_q[fq_wr_q] <= slot_addr(ring_base_i[31:5], head_q);
      fq_resp_q[fq_wr_q] <= fetch_rsp_resp_i;
    end
    if (d_push) begin
      qm_cmd_q[d_queue][q_wr_q[QPtrW*d_queue +: QPtrW]]  <= d_cmd;
      qm_addr_q[d_queue][q_wr_q[QPtrW*d_queue +: QPtrW]] <= d_addr;
    end
  end

  // =========================================================================================
  // Assertions
  // =========================================================================================
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
    end else begin
      for (int unsigned t = 0; t < 4; t++) begin
        `PRIM_ASSERT_I(TokenOverflow_A,
            !(tok_q[8*t +: 8] == 8'hFF && tok_d[8*t +: 8] == 8'h00 && state_q == StRun),
        ("nnc_cmd_proc: token counter %0d overflowed", t))
      end
      for (int unsigned q = 0; q < 3; q++) begin
        `PRIM_ASSERT_I(DoneWithoutIssue_A, !(unit_done_i[q] && q_inf_q[QCntW*q +: QCntW] == '0),
        ("nnc_cmd_proc: unit %0d done with nothing issued", q))
      end
      `PRIM_ASSERT_I(FetchRspExpected_A, !(fetch_rsp_valid_i && fetch_out_q == '0),
        ("nnc_cmd_proc: fetch response without a request"))
    end
  end

endmodule
