#include "verify/conformance/runner.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "verify/conformance/judge.h"
#include "hal/validation.h"
#include "ops/executor.h"

namespace nncosim::verify {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

std::vector<std::string> operationsOf(const hal::Model& m) {
  std::set<std::string> ops;
  for (int s = -1; s < static_cast<int>(m.referenced.size()); ++s)
    for (const auto& op : m.subgraph(s).operations) ops.insert(std::string(hal::toString(op.type)));
  return {ops.begin(), ops.end()};
}

json toJson(const TestOutcome& o) {
  return {
      {"file", o.file},          {"name", o.name},          {"status", static_cast<int>(o.status)},
      {"ef", o.expectFailure},   {"int", o.integerOutputs}, {"exact", o.bitExact},
      {"npu", o.npuSteps},       {"ops", o.operations},     {"reason", o.reason},
      {"digest", o.outputDigest}};
}

TestOutcome fromJson(const json& j) {
  TestOutcome o;
  o.file = j.at("file");
  o.name = j.at("name");
  o.status = static_cast<TestStatus>(j.at("status").get<int>());
  o.expectFailure = j.at("ef");
  o.integerOutputs = j.at("int");
  o.bitExact = j.at("exact");
  o.npuSteps = j.at("npu");
  o.operations = j.at("ops").get<std::vector<std::string>>();
  o.reason = j.at("reason");
  o.outputDigest = j.at("digest");
  return o;
}

// A behaviour fingerprint of a run's outputs: refactorings must leave it unchanged.
std::string digestOutputs(const std::vector<hal::TensorValue>& outputs) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  };
  for (const auto& v : outputs) {
    const int type = static_cast<int>(v.type);
    mix(&type, sizeof type);
    for (uint32_t d : v.dimensions) mix(&d, sizeof d);
    mix(v.bytes.data(), v.bytes.size());
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

bool selected(const std::regex* re, const std::string& file, const std::string& name) {
  return !re || std::regex_search(file + ":" + name, *re);
}

// ---- worker side -----------------------------------------------------------------
// Protocol, one line per message. Parent -> worker: "F <file index> <first test>" or "Q".
// Worker -> parent: "S <test index>" (starting), "T <json>" (outcome), "E <json>"
// (file error), "D" (file done).
void writeLine(int fd, const std::string& s) {
  std::string line = s + "\n";
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      _exit(3);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

bool readLine(int fd, std::string& buf, std::string& line) {
  for (;;) {
    auto nl = buf.find('\n');
    if (nl != std::string::npos) {
      line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      return true;
    }
    char tmp[4096];
    ssize_t n = ::read(fd, tmp, sizeof tmp);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buf.append(tmp, static_cast<size_t>(n));
  }
}

[[noreturn]] void workerMain(int in, int out, const std::vector<std::string>& files,
                             const std::regex* re, const DriverFactory& makeDriver) {
  auto driver = makeDriver();
  std::string buf, line;
  while (readLine(in, buf, line)) {
    if (line.empty() || line[0] != 'F') break;
    size_t fileIndex = 0, first = 0;
    std::sscanf(line.c_str() + 2, "%zu %zu", &fileIndex, &first);
    auto vf = hal::readVectorFile(files[fileIndex]);
    if (!vf) {
      writeLine(out, "E " + json{{"file", files[fileIndex]}, {"error", vf.error()}}.dump());
    } else {
      for (size_t t = first; t < vf->tests.size(); ++t) {
        const auto& test = vf->tests[t];
        if (!selected(re, files[fileIndex], test.name)) continue;
        writeLine(out, "S " + std::to_string(t) + " " + test.name);
        writeLine(out, "T " + toJson(runTest(test, *driver)).dump());
      }
    }
    writeLine(out, "D");
  }
  _exit(0);
}

struct Worker {
  pid_t pid = -1;
  int toWorker = -1, fromWorker = -1;
  std::string buf;
  bool busy = false;
  size_t file = 0;
  long currentTest = -1;  // index of the test running, -1 between tests
  std::string currentName;
  Clock::time_point started;
};

}  // namespace

TestOutcome runTest(const hal::ConformanceTest& test, driver::NnapiDriver& driver) {
  TestOutcome o;
  o.file = test.file;
  o.name = test.name;
  o.expectFailure = test.expectFailure;
  o.operations = operationsOf(test.model);
  // Every operation has a reference implementation to fall back on, or the test is
  // unsupported (a lookup in the operation table, not a validation).
  if (auto op = ops::firstUnsupportedOperation(test.model)) {
    o.status = TestStatus::kUnsupported;
    o.reason = std::string(hal::toString(*op)) + " is not implemented";
    return o;
  }
  std::vector<hal::TensorValue> outputs;
  hal::Status st = hal::Status::Ok();
  auto prepared = driver.prepareModel(test.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER);
  if (!prepared) {
    st = hal::Error{prepared.error()};
  } else {
    auto result = (*prepared)->execute(test.inputs);
    if (!result) {
      st = hal::Error{result.error()};
    } else {
      o.npuSteps = result->report.npuSteps;
      outputs = std::move(result->outputs);
    }
  }
  if (st.ok()) o.outputDigest = digestOutputs(outputs);
  if (test.expectFailure) {
    o.status = st.ok() ? TestStatus::kFailed : TestStatus::kPassed;
    o.reason = st.ok() ? "expected a failure, but the model ran" : "rejected: " + st.error();
    return o;
  }
  if (!st.ok()) {
    o.status = TestStatus::kFailed;
    o.reason = st.error();
    return o;
  }
  Verdict v = judgeOutputs(test, outputs);
  o.status = v.passed ? TestStatus::kPassed : TestStatus::kFailed;
  o.integerOutputs = v.integerOutputs;
  o.bitExact = v.bitExact;
  o.reason = v.reason;
  return o;
}

ConformanceRun runConformance(const std::vector<std::string>& paths,
                              const ConformanceOptions& options, const DriverFactory& makeDriver) {
  const auto t0 = Clock::now();
  ConformanceRun run;
  std::vector<std::string> all;
  for (const auto& p : paths)
    for (auto& f : hal::listVectorFiles(p)) all.push_back(std::move(f));
  std::vector<std::string> files;
  for (size_t i = 0; i < all.size(); ++i)
    if (static_cast<int>(i % options.shardCount) == options.shardIndex) files.push_back(all[i]);
  run.files = static_cast<int>(files.size());
  std::optional<std::regex> re;
  if (!options.filter.empty()) re.emplace(options.filter, std::regex::ECMAScript);
  const std::regex* rep = re ? &*re : nullptr;

  // Results keyed by file index so the output order is stable whatever the scheduling.
  std::vector<std::vector<TestOutcome>> byFile(files.size());
  size_t filesDone = 0, testsDone = 0, passed = 0, failed = 0, unsupported = 0;
  auto progress = [&](bool final) {
    if (!options.progress) return;
    const int width = 30;
    const int fill = files.empty() ? width : static_cast<int>(width * filesDone / files.size());
    std::fprintf(stderr,
                 "\r[%.*s%*s] %zu/%zu files  %zu tests: %zu passed, %zu failed, %zu unsupported ",
                 fill, "==============================", width - fill, "", filesDone, files.size(),
                 testsDone, passed, failed, unsupported);
    if (final) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
  auto record = [&](size_t fileIndex, TestOutcome o) {
    ++testsDone;
    if (o.status == TestStatus::kPassed)
      ++passed;
    else if (o.status == TestStatus::kFailed)
      ++failed;
    else
      ++unsupported;
    byFile[fileIndex].push_back(std::move(o));
  };

  if (options.jobs <= 0) {
    auto driver = makeDriver();
    for (size_t i = 0; i < files.size(); ++i) {
      auto vf = hal::readVectorFile(files[i]);
      if (!vf) {
        run.fileErrors.push_back(vf.error());
      } else {
        for (const auto& test : vf->tests)
          if (selected(rep, files[i], test.name)) record(i, runTest(test, *driver));
      }
      ++filesDone;
      progress(false);
    }
  } else {
    std::fflush(nullptr);
    // Work queue of (file, first test); a crash re-queues the rest of that file.
    std::deque<std::pair<size_t, size_t>> queue;
    for (size_t i = 0; i < files.size(); ++i) queue.emplace_back(i, 0);
    std::vector<Worker> workers(static_cast<size_t>(std::max(1, options.jobs)));
    auto spawn = [&](Worker& w) {
      int a[2], b[2];
      if (::pipe(a) != 0 || ::pipe(b) != 0) {
        std::perror("pipe");
        std::exit(1);
      }
      pid_t pid = ::fork();
      if (pid == 0) {
        ::close(a[1]);
        ::close(b[0]);
        for (auto& other : workers) {  // do not hold siblings' pipes open
          if (other.toWorker >= 0) ::close(other.toWorker);
          if (other.fromWorker >= 0) ::close(other.fromWorker);
        }
        workerMain(a[0], b[1], files, rep, makeDriver);
      }
      ::close(a[0]);
      ::close(b[1]);
      w = Worker{};
      w.pid = pid;
      w.toWorker = a[1];
      w.fromWorker = b[0];
    };
    auto feed = [&](Worker& w) {
      if (queue.empty()) {
        writeLine(w.toWorker, "Q");
        return;
      }
      auto [f, first] = queue.front();
      queue.pop_front();
      w.busy = true;
      w.file = f;
      w.currentTest = -1;
      w.started = Clock::now();
      writeLine(w.toWorker, "F " + std::to_string(f) + " " + std::to_string(first));
    };
    auto reap = [&](Worker& w, const std::string& why) {
      // The worker died or hung inside a test: that test fails, the file's rest re-queues.
      if (w.pid > 0) {
        ::kill(w.pid, SIGKILL);
        ::waitpid(w.pid, nullptr, 0);
      }
      ::close(w.toWorker);
      ::close(w.fromWorker);
      if (w.busy) {
        if (w.currentTest >= 0) {
          TestOutcome o;
          o.file = files[w.file];
          o.name = w.currentName;
          o.status = TestStatus::kFailed;
          o.reason = why;
          record(w.file, std::move(o));
          queue.emplace_front(w.file, static_cast<size_t>(w.currentTest) + 1);
        } else {
          run.fileErrors.push_back(files[w.file] + ": " + why);
          ++filesDone;
        }
      }
      w = Worker{};
    };
    for (auto& w : workers) spawn(w);
    for (auto& w : workers) feed(w);
    signal(SIGPIPE, SIG_IGN);
    auto alive = [&] {
      return std::any_of(workers.begin(), workers.end(), [](const Worker& w) { return w.pid > 0; });
    };
    while (alive()) {
      std::vector<pollfd> fds;
      std::vector<Worker*> who;
      for (auto& w : workers)
        if (w.pid > 0) {
          fds.push_back({w.fromWorker, POLLIN, 0});
          who.push_back(&w);
        }
      ::poll(fds.data(), fds.size(), 200);
      for (size_t k = 0; k < fds.size(); ++k) {
        Worker& w = *who[k];
        if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
          char tmp[65536];
          ssize_t n = ::read(w.fromWorker, tmp, sizeof tmp);
          if (n <= 0) {
            int status = 0;
            ::waitpid(w.pid, &status, 0);
            w.pid = -1;
            std::string why =
                WIFSIGNALED(status)
                    ? "crashed with signal " + std::to_string(WTERMSIG(status))
                    : "worker exited with status " + std::to_string(WEXITSTATUS(status));
            const bool wasBusy = w.busy;
            reap(w, why);
            if (wasBusy || !queue.empty()) {
              spawn(w);
              feed(w);
            }
            continue;
          }
          w.buf.append(tmp, static_cast<size_t>(n));
          size_t nl;
          while ((nl = w.buf.find('\n')) != std::string::npos) {
            std::string line = w.buf.substr(0, nl);
            w.buf.erase(0, nl + 1);
            if (line.rfind("S ", 0) == 0) {
              char* end = nullptr;
              w.currentTest = std::strtol(line.c_str() + 2, &end, 10);
              w.currentName = end && *end == ' ' ? std::string(end + 1) : std::string();
              w.started = Clock::now();
            } else if (line.rfind("T ", 0) == 0) {
              record(w.file, fromJson(json::parse(line.substr(2))));
              w.currentTest = -1;
            } else if (line.rfind("E ", 0) == 0) {
              run.fileErrors.push_back(json::parse(line.substr(2)).at("error"));
            } else if (line == "D") {
              w.busy = false;
              ++filesDone;
              feed(w);
            }
          }
        }
        if (w.pid > 0 && w.busy && w.currentTest >= 0 &&
            std::chrono::duration<double>(Clock::now() - w.started).count() >
                options.testTimeoutSeconds) {
          reap(w, "timed out after " +
                      std::to_string(static_cast<int>(options.testTimeoutSeconds)) + " s");
          spawn(w);
          feed(w);
        }
      }
      progress(false);
    }
  }
  progress(true);
  for (auto& v : byFile)
    for (auto& o : v) run.outcomes.push_back(std::move(o));
  run.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return run;
}

}  // namespace nncosim::verify
