// A buffer line as 16-bit lanes: lane i is the line's 16-bit element i, or with 8-bit
// elements its byte i zero-extended (the MAC array reads int8 operands from bits 7:0 and
// sign-extends them itself). Shared by the compute unit's operand paths and the window fetch.
module nnc_unpack_lanes
#(
  parameter int unsigned Lanes = nnc_isa_pkg::ArrayRows
) (
  input  logic [Lanes*16-1:0] line_i,
  input  logic                wide_i,   // 16-bit elements (else 8-bit)
  output logic [Lanes*16-1:0] lanes_o
);

  always_comb begin
    for (int unsigned i = 0; i < Lanes; i++) begin
      lanes_o[16*i +: 16] = wide_i ? line_i[16*i +: 16] : {8'd0, line_i[8*i +: 8]};
    end
  end

endmodule
