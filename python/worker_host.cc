#include "python/worker_host.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>

#include <pybind11/pybind11.h>

#include "python/errors.h"

namespace nncosim::python {
namespace {

// Frames on the pipes: an 8-byte length, then the bytes.
bool writeAll(int fd, const char* data, size_t n) {
  while (n) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool writeFrame(int fd, const std::string& s) {
  const uint64_t n = s.size();
  return writeAll(fd, reinterpret_cast<const char*>(&n), sizeof n) &&
         writeAll(fd, s.data(), s.size());
}

bool readAll(int fd, char* data, size_t n) {
  while (n) {
    const ssize_t r = ::read(fd, data, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    data += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

bool readFrame(int fd, std::string* s) {
  uint64_t n = 0;
  if (!readAll(fd, reinterpret_cast<char*>(&n), sizeof n)) return false;
  s->resize(n);
  return readAll(fd, s->data(), n);
}

std::map<std::string, JobHandler>& handlers() {
  static auto* h = new std::map<std::string, JobHandler>;
  return *h;
}

// This process's ends of the pipes to the worker host; -1 before it starts.
int gToHost = -1, gFromHost = -1;
std::mutex gJobs;  // one job at a time on the pipes

// A worker: runs the job, writes "R" + result or "E" + error, ends without running any
// destructor (they belong to the process it was forked from).
[[noreturn]] void workerMain(int out, const std::string& kind, const std::string& request) {
  std::string reply;
  int status = 0;
  try {
    auto it = handlers().find(kind);
    if (it == handlers().end()) throw Error("no job of kind '" + kind + "'");
    reply = "R" + it->second(request);
  } catch (const std::exception& e) {
    reply = std::string("E") + e.what();
    status = 1;
  }
  std::cout.flush();
  std::fflush(nullptr);
  writeFrame(out, reply);
  ::_exit(status);
}

// The worker host: for each request, fork a worker, send its pid, relay its reply or say
// how it died. Ends when this process closes the pipe (or dies: PDEATHSIG).
[[noreturn]] void hostMain(int in, int out) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::signal(SIGINT, SIG_IGN);  // Ctrl-C is for the Python process; it kills the worker
  for (std::string kind, request; readFrame(in, &kind) && readFrame(in, &request);) {
    int fds[2];
    if (::pipe(fds) != 0) {
      writeFrame(out, "P0");
      writeFrame(out, std::string("Ecannot create a pipe: ") + std::strerror(errno));
      continue;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      ::close(in);
      ::close(out);
      ::signal(SIGINT, SIG_DFL);
      workerMain(fds[1], kind, request);
    }
    ::close(fds[1]);
    writeFrame(out, "P" + std::to_string(pid < 0 ? 0 : pid));
    if (pid < 0) {
      ::close(fds[0]);
      writeFrame(out, std::string("Ecannot fork: ") + std::strerror(errno));
      continue;
    }
    std::string reply;
    const bool replied = readFrame(fds[0], &reply);
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status))
      reply = "S" + std::to_string(WTERMSIG(status));
    else if (!replied)
      reply = "X" + std::to_string(WEXITSTATUS(status));
    writeFrame(out, reply);
  }
  ::_exit(0);
}

enum class Reply { kFrame, kInterrupted, kGone };

// Reads one frame from the host, releasing the GIL while it waits and checking for Ctrl-C
// every 100 ms (kInterrupted: a signal handler raised, the Python error is set).
Reply readReply(std::string* frame) {
  for (;;) {
    int ready = 0;
    {
      pybind11::gil_scoped_release unlocked;
      pollfd p{gFromHost, POLLIN, 0};
      ready = ::poll(&p, 1, 100);
    }
    if (PyErr_CheckSignals() != 0) return Reply::kInterrupted;
    if (ready > 0) return readFrame(gFromHost, frame) ? Reply::kFrame : Reply::kGone;
  }
}

}  // namespace

void registerJob(const std::string& kind, JobHandler handler) { handlers()[kind] = handler; }

void startWorkerHost() {
  if (gToHost >= 0) return;
  int request[2], reply[2];
  if (::pipe(request) != 0 || ::pipe(reply) != 0)
    throw Error(std::string("cannot create the worker host's pipes: ") + std::strerror(errno));
  std::cout.flush();  // what is buffered would otherwise be written by both processes
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("cannot fork the worker host: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(request[1]);
    ::close(reply[0]);
    hostMain(request[0], reply[1]);
  }
  ::close(request[0]);
  ::close(reply[1]);
  gToHost = request[1];
  gFromHost = reply[0];
  ::signal(SIGPIPE, SIG_IGN);  // a host gone shows as a failed write, not a dead interpreter
}

std::string runJob(const std::string& kind, const std::string& request, const std::string& what) {
  std::unique_lock<std::mutex> lock(gJobs, std::defer_lock);
  {
    pybind11::gil_scoped_release unlocked;  // a thread waiting here must not hold the GIL
    lock.lock();
  }
  startWorkerHost();
  const std::string goneMessage =
      what + ": the worker host process is gone (killed?); restart the interpreter";
  if (!writeFrame(gToHost, kind) || !writeFrame(gToHost, request)) throw Error(goneMessage);
  std::string pidFrame, reply;
  Reply got = readReply(&pidFrame);
  const bool interrupted = got == Reply::kInterrupted;
  // Interrupted before the pid came: it comes right after the fork.
  if (got == Reply::kGone || (interrupted && !readFrame(gFromHost, &pidFrame)))
    throw Error(goneMessage);
  const pid_t worker =
      pidFrame.size() > 1 ? static_cast<pid_t>(std::atoll(pidFrame.c_str() + 1)) : 0;
  got = interrupted ? Reply::kInterrupted : readReply(&reply);
  if (got == Reply::kInterrupted) {
    if (worker > 0) ::kill(worker, SIGKILL);
    readFrame(gFromHost, &reply);  // the dead worker's report: keeps the pipes in step
    throw pybind11::error_already_set();
  }
  if (got == Reply::kGone) throw Error(goneMessage);
  switch (reply.empty() ? 'X' : reply[0]) {
    case 'R':
      return reply.substr(1);
    case 'E':
      throw Error(what + ": " + reply.substr(1));
    case 'S': {
      const int sig = std::atoi(reply.c_str() + 1);
      throw Error(what + ": the worker process crashed with signal " + std::to_string(sig) + " (" +
                  strsignal(sig) + ")");
    }
    default:
      throw Error(what + ": the worker process exited with status " +
                  (reply.size() > 1 ? reply.substr(1) : "?") + " and no result");
  }
}

}  // namespace nncosim::python
