#include "tilegrid/runtime/dump.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/file_write.h"

namespace tilegrid::runtime {
namespace {

constexpr std::array<DumpKind, 6> kAllKinds = {DumpKind::Cuda, DumpKind::Ptx,    DumpKind::Sass,
                                               DumpKind::Params, DumpKind::Ir, DumpKind::Launch};

std::string validNames() {
  std::string names;
  for (DumpKind k : kAllKinds) names += (names.empty() ? "" : ", ") + std::string(toString(k));
  return names;
}

std::optional<std::string> findOnPath(const std::string& tool) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::string dirs = path;
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t colon = dirs.find(':', start);
    const std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / tool;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return std::nullopt;
}

}  // namespace

const char* toString(DumpKind kind) {
  switch (kind) {
    case DumpKind::Cuda: return "cuda";
    case DumpKind::Ptx: return "ptx";
    case DumpKind::Sass: return "sass";
    case DumpKind::Params: return "params";
    case DumpKind::Ir: return "ir";
    case DumpKind::Launch: return "launch";
  }
  return "?";
}

DumpConfig DumpConfig::parse(const std::string& list, std::optional<std::string> dir) {
  DumpConfig config;
  config.dir_ = std::move(dir);
  size_t start = 0;
  while (start < list.size()) {
    const size_t comma = list.find(',', start);
    const std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    bool found = false;
    for (DumpKind k : kAllKinds) {
      if (name == toString(k)) {
        config.kinds_.insert(k);
        found = true;
      }
    }
    TG_USER_CHECK(found) << "TILEGRID_DUMP: unknown name '" << name << "'; valid names are " << validNames();
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return config;
}

const DumpConfig& DumpConfig::fromEnvironment() {
  static const DumpConfig config = [] {
    const char* list = std::getenv("TILEGRID_DUMP");
    const char* dir = std::getenv("TILEGRID_DUMP_DIR");
    return parse(list ? list : "", dir && *dir ? std::optional<std::string>(dir) : std::nullopt);
  }();
  return config;
}

void DumpConfig::write(DumpKind kind, const std::string& kernel, const std::string& text) const {
  if (!enabled(kind)) return;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (!dir_) {
    std::cerr << "===== tilegrid dump: " << toString(kind) << " of " << kernel << " =====\n" << text;
    if (!text.empty() && text.back() != '\n') std::cerr << '\n';
    return;
  }
  std::error_code error;
  std::filesystem::create_directories(*dir_, error);
  TG_USER_CHECK(!error) << "TILEGRID_DUMP_DIR: cannot create " << *dir_ << ": " << error.message();
  const std::filesystem::path file = std::filesystem::path(*dir_) / (kernel + "." + toString(kind));
  writeFileAtomically(file, text, "TILEGRID_DUMP_DIR");
}

std::string disassemble(const std::string& cubin) {
  auto cuobjdump = findOnPath("cuobjdump");
  auto nvdisasm = findOnPath("nvdisasm");
  TG_USER_CHECK(cuobjdump || nvdisasm) << "dumping SASS needs cuobjdump or nvdisasm on PATH; neither was found";
  char name[] = "/tmp/tilegrid-sass-XXXXXX";
  const int fd = mkstemp(name);
  TG_USER_CHECK(fd >= 0) << "cannot create a temporary file for the SASS dump";
  close(fd);
  {
    std::ofstream out(name, std::ios::binary);
    out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  }
  const std::string command = (cuobjdump ? *cuobjdump + " -sass " : *nvdisasm + " ") + name + " 2>&1";
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 4096> buffer;
    size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) text.append(buffer.data(), n);
    pclose(pipe);
  }
  std::filesystem::remove(name);
  return text;
}

}  // namespace tilegrid::runtime
