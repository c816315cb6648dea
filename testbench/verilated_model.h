// A Verilated model with its context and optional FST trace: the plumbing every harness
// around a --cc model shares (create, open the waves, dump each half cycle, close).
#pragma once

#include <memory>
#include <string>

#include "verilated.h"
#include "verilated_fst_c.h"

namespace nncosim::testbench {

template <typename Top>
class VerilatedModel {
 public:
  // wavesPath empty: no tracing (and no tracing cost).
  explicit VerilatedModel(const std::string& wavesPath) {
    ctx_.traceEverOn(!wavesPath.empty());
    top_ = std::make_unique<Top>(&ctx_);
    if (!wavesPath.empty()) {
      trace_ = std::make_unique<VerilatedFstC>();
      top_->trace(trace_.get(), 99);
      trace_->open(wavesPath.c_str());
    }
  }
  ~VerilatedModel() {
    if (trace_) trace_->close();
    top_->final();
  }
  VerilatedModel(const VerilatedModel&) = delete;
  VerilatedModel& operator=(const VerilatedModel&) = delete;

  Top* operator->() { return top_.get(); }
  const Top* operator->() const { return top_.get(); }
  Top& operator*() { return *top_; }
  // The model's context: fatalOnError(false) makes an RTL assertion a reported error
  // (gotError()) instead of an abort.
  VerilatedContext& context() { return ctx_; }
  // Dumps the current values (when tracing) and advances time by one half cycle.
  void dumpAndAdvance() {
    if (trace_) trace_->dump(ctx_.time());
    ctx_.timeInc(1);
  }
  // One clock cycle of a top with a clk_i input: the rising edge, then the falling edge,
  // each evaluated and dumped.
  void cycle() {
    top_->clk_i = 1;
    top_->eval();
    dumpAndAdvance();
    top_->clk_i = 0;
    top_->eval();
    dumpAndAdvance();
  }

 private:
  VerilatedContext ctx_;
  std::unique_ptr<Top> top_;
  std::unique_ptr<VerilatedFstC> trace_;
};

}  // namespace nncosim::testbench
