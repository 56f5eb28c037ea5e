#include "runtime/tuning_store.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "ir/error.h"
#include "runtime/file_write.h"

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
  TG_USER_CHECK(j.value("version", 0) == kFormatVersion)
      << "tuning store " << file << " has format version " << j.value("version", 0) << ", this tilegrid reads "
      << kFormatVersion << "; delete it and tune again";
  return j;
}

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
    tuned.traversal.factors = e.at("factors").get<std::vector<int64_t>>();
    tuned.traversal.group = scheduler::parseGridGroup(e.at("group").get<std::string>());
    tuned.traversal.validate();
    tuned.tflops = e.value("tflops", 0.0);
    tuned.cublas_tflops = e.value("cublas_tflops", 0.0);
    return tuned;
  } catch (const nlohmann::json::exception& error) {
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
  nlohmann::json store = readStore(file_);
  store["entries"][key(problem, device, arch)] = {{"method", scheduler::toString(tuned.traversal.method)},
                                                   {"factors", tuned.traversal.factors},
                                                   {"group", scheduler::toString(tuned.traversal.group)},
                                                   {"tflops", tuned.tflops},
                                                   {"cublas_tflops", tuned.cublas_tflops}};
  writeFileAtomically(file_, store.dump(2) + "\n", "the tuning store");
}

}  // namespace tilegrid::runtime
