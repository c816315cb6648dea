// Jobs (testbench and difftest runs) in worker processes forked from a worker host: a
// process this one forks before it first elaborates its simulated SoC, which then waits
// for jobs. Every worker so starts without an SoC, as a fresh `nncosim testbench` or
// `nncosim difftest` does, and elaborates its own with the configuration it needs,
// whatever the SoC of this process runs; a worker's jobs never touch the device memory of
// the models this process keeps on its SoC; a crash fails the call, not the interpreter;
// Ctrl-C kills the worker. (The conformance runner forks its workers for the same reasons.)
//
//   this process ──request──> worker host ──fork──> worker: handler(request)
//                <──pid, then result or how it died──┘
#pragma once

#include <string>

namespace nncosim::python {

// Runs in a worker: the request's result as text (JSON); throws to fail the job.
using JobHandler = std::string (*)(const std::string& request);

// Registers a kind of job; only before the worker host starts (module initialization).
void registerJob(const std::string& kind, JobHandler handler);
// Forks the worker host if there is none: call before this process first elaborates its
// SoC. Idempotent.
void startWorkerHost();
// Runs a job in a new worker and returns its result; Error naming `what` when it fails,
// crashes or the host is gone; KeyboardInterrupt (the worker killed) on Ctrl-C.
std::string runJob(const std::string& kind, const std::string& request, const std::string& what);

}  // namespace nncosim::python
