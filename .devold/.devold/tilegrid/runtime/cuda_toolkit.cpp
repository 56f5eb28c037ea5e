#include "tilegrid/runtime/cuda_toolkit.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "tilegrid/ir/check.h"

namespace tilegrid::runtime {
namespace {

std::string candidateRoot() {
  const char* home = std::getenv("CUDA_HOME");
  return (home != nullptr && *home != '\0') ? std::string(home) : std::string("/usr/local/cuda");
}

// CUDA_VERSION is major * 1000 + minor * 10.
std::optional<int> readCudaVersion(const std::filesystem::path& cuda_h) {
  std::ifstream in(cuda_h);
  if (!in) return std::nullopt;
  static const std::regex pattern(R"(^#define\s+CUDA_VERSION\s+(\d+))");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch match;
    if (std::regex_search(line, match, pattern)) return std::stoi(match[1]);
  }
  return std::nullopt;
}

}  // namespace

std::string CudaToolkit::versionString() const {
  return std::to_string(version_major) + "." + std::to_string(version_minor);
}

std::optional<CudaToolkit> findCudaToolkit() {
  const std::filesystem::path root = candidateRoot();
  const std::filesystem::path include = root / "include";
  auto version = readCudaVersion(include / "cuda.h");
  if (!version) return std::nullopt;
  return CudaToolkit{root.string(), include.string(), *version / 1000, (*version % 1000) / 10};
}

CudaToolkit requireCudaToolkit() {
  auto toolkit = findCudaToolkit();
  TG_USER_CHECK(toolkit.has_value()) << "no CUDA toolkit found at " << candidateRoot()
                                     << " (looked for include/cuda.h); set CUDA_HOME to the toolkit's folder";
  return *toolkit;
}

}  // namespace tilegrid::runtime
