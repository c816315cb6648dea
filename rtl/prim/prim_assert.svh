// Assertion macros: checks for simulation (Verilator --assert) that vanish in synthesis,
// where Yosys defines SYNTHESIS and reads neither assertions nor `else $error`.
//   `PRIM_ASSERT(Name_A, prop, clk, rst_n, msg)  concurrent, checked at every clock edge
//                                                 out of reset
//   `PRIM_ASSERT_I(Name_A, expr, msg)            immediate, in procedural code
//   `PRIM_ASSERT_INIT(Name_A, expr, msg)         once at time 0: parameter checks
// msg is the parenthesised argument list of $error, e.g. ("unit %0d overflowed", q).
`ifndef PRIM_ASSERT_SVH
`define PRIM_ASSERT_SVH

`ifdef SYNTHESIS
`define PRIM_ASSERT(__name, __prop, __clk, __rst_n, __msg)
`define PRIM_ASSERT_I(__name, __expr, __msg)
`define PRIM_ASSERT_INIT(__name, __expr, __msg)
`else
`define PRIM_ASSERT(__name, __prop, __clk, __rst_n, __msg) \
  __name: assert property (@(posedge __clk) disable iff (!(__rst_n)) (__prop)) \
    else $error __msg;
`define PRIM_ASSERT_I(__name, __expr, __msg) \
  __name: assert (__expr) else $error __msg;
`define PRIM_ASSERT_INIT(__name, __expr, __msg) \
  initial begin \
    __name: assert (__expr) else $error __msg; \
  end
`endif

`endif  // PRIM_ASSERT_SVH
