#include "tilegrid/runtime/tuning_store.h"

#include <fmt/format.h>

#include <unistd.h>

#include <boost/interprocess/sync/file_lock.hpp>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/file_write.h"

namespace tilegrid::runtime {

namespace {

constexpr int kFormatVersion = 1;

nlohmann::json readStore(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json{{"version", kFormatVersion}, {"entries", nlohmann::json::object()}};
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  TG_USER_CHECK(!j.is_discarded() && j.is_object() && j.contains("entries") && j["entries"].is_object())
      << "tuning store " << file << " is not a tilegrid tuning file; delete it or point TILEGRID_CACHE_DIR elsewhere";
  const nlohmann::json version = j.value("version", nlohmann::json());
  TG_USER_CHECK(version.is_number_integer() && version.get<int64_t>() == kFormatVersion)
      << "tuning store " << file << " has format version " << version.dump() << ", this tilegrid reads "
      << kFormatVersion << "; delete it and tune again";
  return j;
}

// A factor list as stored: whole numbers only (a JSON 1.5 or 1e300 is refused, not truncated or
// wrapped); their range is the traversal's to check.
std::vector<int64_t> storedFactors(const nlohmann::json& factors) {
  TG_USER_CHECK(factors.is_array()) << "factors must be a list of whole numbers, got " << factors.dump();
  std::vector<int64_t> out;
  for (const nlohmann::json& f : factors) {
    TG_USER_CHECK(f.is_number_integer()) << "factor " << f.dump() << " is not a whole number";
    out.push_back(f.get<int64_t>());
  }
  return out;
}

// Serializes the read-modify-write of stores to one file: threads of this process by a mutex, other
// processes by an fcntl lock on a companion file (Boost.Interprocess), which the store's
// temporary-then-rename write cannot replace.
class StoreLock {
 public:
  explicit StoreLock(const std::filesystem::path& file) : thread_lock_(mutex()) {
    const std::filesystem::path lock_file = file.string() + ".lock";
    // The lock file is created once and never replaced; opening it only for the lock's sake.
    { std::ofstream touch(lock_file, std::ios::app); }
    try {
      file_lock_ = boost::interprocess::file_lock(lock_file.c_str());
      file_lock_.lock();
      locked_ = true;
    } catch (const boost::interprocess::interprocess_exception& e) {
      TG_USER_ERROR() << "cannot lock the tuning store " << lock_file << ": " << e.what();
    }
  }
  ~StoreLock() {
    if (locked_) file_lock_.unlock();
  }
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  std::lock_guard<std::mutex> thread_lock_;
  boost::interprocess::file_lock file_lock_;
  bool locked_ = false;
};

}  // namespace

TuningStore::TuningStore(std::filesystem::path file) : file_(std::move(file)) {}

std::optional<TuningStore> TuningStore::openDefault() {
  auto env = [](const char* name) -> std::optional<std::filesystem::path> {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::filesystem::path(value);
  };
  if (auto dir = env("TILEGRID_CACHE_DIR")) return TuningStore(*dir / "tuned.json");
  if (auto dir = env("XDG_CACHE_HOME")) return TuningStore(*dir / "tilegrid" / "tuned.json");
  if (auto home = env("HOME")) return TuningStore(*home / ".cache" / "tilegrid" / "tuned.json");
  return std::nullopt;
}

std::string TuningStore::key(const scheduler::MatmulProblem& problem, const scheduler::DeviceSpec& device,
                             scheduler::Arch arch) {
  return fmt::format("{} ({} SMs) | {} | {}", device.name, device.sm_count, scheduler::toString(arch),
                     problem.toString());
}

std::optional<TunedTraversal> TuningStore::lookup(const scheduler::MatmulProblem& problem,
                                                  const scheduler::DeviceSpec& device, scheduler::Arch arch) const {
  const nlohmann::json store = readStore(file_);
  const auto it = store["entries"].find(key(problem, device, arch));
  if (it == store["entries"].end()) return std::nullopt;
  const nlohmann::json& e = *it;
  try {
    TunedTraversal tuned;
    tuned.traversal.method = scheduler::parseGridMethod(e.at("method").get<std::string>());
    tuned.traversal.factors = storedFactors(e.at("factors"));
    tuned.traversal.group = scheduler::parseGridGroup(e.at("group").get<std::string>());
    tuned.traversal.validate();
    tuned.tflops = e.value("tflops", 0.0);
    tuned.cublas_tflops = e.value("cublas_tflops", 0.0);
    return tuned;
  } catch (const std::exception& error) {
    TG_USER_ERROR() << "tuning store " << file_ << ": the entry for '" << key(problem, device, arch)
                    << "' is malformed (" << error.what() << "); delete it and tune again";
  }
  return std::nullopt;
}

void TuningStore::store(const scheduler::MatmulProblem& problem, const scheduler::DeviceSpec& device,
                        scheduler::Arch arch, const TunedTraversal& tuned) const {
  tuned.traversal.validate();
  std::error_code error;
  if (file_.has_parent_path()) std::filesystem::create_directories(file_.parent_path(), error);
  TG_USER_CHECK(!error) << "cannot create the tuning folder " << file_.parent_path() << ": " << error.message();
  const StoreLock lock(file_);
  nlohmann::json store = readStore(file_);
  store["entries"][key(problem, device, arch)] = {{"method", scheduler::toString(tuned.traversal.method)},
                                                   {"factors", tuned.traversal.factors},
                                                   {"group", scheduler::toString(tuned.traversal.group)},
                                                   {"tflops", tuned.tflops},
                                                   {"cublas_tflops", tuned.cublas_tflops}};
  writeFileAtomically(file_, store.dump(2) + "\n", "the tuning store");
}

}  // namespace tilegrid::runtime
