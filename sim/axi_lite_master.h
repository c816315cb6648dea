// AxiLiteMaster: the host side of the NPU's AXI4-Lite register port, as a C++
// transactor in the adapter's clock loop (same three calls per cycle as
// AxiMemoryPort). One transaction at a time: write = AW and W (in any order) then B;
// read = AR then R.
#pragma once

#include <cstdint>

namespace nncosim::sim {

struct RegAccess {
  bool write = false;
  uint32_t offset = 0, data = 0;
  uint32_t result = 0, resp = 0;
  bool done = false;
};

template <typename Top>
class AxiLiteMaster {
 public:
  bool busy() const { return current_ != nullptr; }
  void start(RegAccess* a) {
    current_ = a;
    awDone_ = wDone_ = arDone_ = false;
  }
  // Returns the access that completed on this edge, if any.
  RegAccess* afterRisingEdge() {
    if (!current_) return nullptr;
    if (s_.aw) awDone_ = true;
    if (s_.w) wDone_ = true;
    if (s_.ar) arDone_ = true;
    if (s_.b || s_.r) {
      RegAccess* a = current_;
      a->resp = s_.resp;
      if (s_.r) a->result = s_.rdata;
      a->done = true;
      current_ = nullptr;
      return a;
    }
    return nullptr;
  }
  void driveInputs(Top& t) {
    const bool w = current_ && current_->write, r = current_ && !current_->write;
    t.s_axil_awvalid_i = w && !awDone_;
    t.s_axil_wvalid_i = w && !wDone_;
    t.s_axil_arvalid_i = r && !arDone_;
    t.s_axil_bready_i = 1;
    t.s_axil_rready_i = 1;
    if (current_) {
      t.s_axil_awaddr_i = current_->offset;
      t.s_axil_araddr_i = current_->offset;
      t.s_axil_wdata_i = current_->data;
      t.s_axil_wstrb_i = 0xf;
    }
  }
  void sampleHandshakes(Top& t) {
    s_.aw = t.s_axil_awvalid_i && t.s_axil_awready_o;
    s_.w = t.s_axil_wvalid_i && t.s_axil_wready_o;
    s_.ar = t.s_axil_arvalid_i && t.s_axil_arready_o;
    s_.b = t.s_axil_bvalid_o && t.s_axil_bready_i && current_ && current_->write;
    s_.r = t.s_axil_rvalid_o && t.s_axil_rready_i && current_ && !current_->write;
    s_.resp = s_.b ? t.s_axil_bresp_o : (s_.r ? t.s_axil_rresp_o : 0);
    s_.rdata = t.s_axil_rdata_o;
  }

 private:
  struct Sampled {
    bool aw = false, w = false, ar = false, b = false, r = false;
    uint32_t resp = 0, rdata = 0;
  };
  RegAccess* current_ = nullptr;
  bool awDone_ = false, wDone_ = false, arDone_ = false;
  Sampled s_;
};

}  // namespace nncosim::sim
