#include "tilegrid/runtime/kernel_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "tilegrid/ir/check.h"
#include "tilegrid/runtime/file_write.h"
#include "tilegrid/runtime/dump.h"

namespace tilegrid::runtime {
namespace {

constexpr char kMagic[8] = {'T', 'G', 'K', 'E', 'R', 'N', '0', '2'};

uint64_t fnv1a(const std::string& data, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

void putU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::optional<uint64_t> getU64(const std::string& in, size_t& pos) {
  if (pos + 8 > in.size()) return std::nullopt;
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  pos += 8;
  return v;
}

void putString(std::string& out, const std::string& s) {
  putU64(out, s.size());
  out += s;
}

std::optional<std::string> getString(const std::string& in, size_t& pos) {
  auto n = getU64(in, pos);
  if (!n || *n > in.size() - pos) return std::nullopt;
  std::string s = in.substr(pos, *n);
  pos += *n;
  return s;
}

void dumpArtefacts(const CompiledKernel& kernel, const codegen::KernelSource& source) {
  const DumpConfig& dump = DumpConfig::fromEnvironment();
  if (!dump.any()) return;
  dump.write(DumpKind::Cuda, kernel.kernel_name, source.cuda);
  dump.write(DumpKind::Ptx, kernel.kernel_name, kernel.ptx);
  if (dump.enabled(DumpKind::Sass)) {
    std::string sass;
    try {
      sass = disassemble(kernel.cubin);
    } catch (const UserError& e) {
      sass = std::string("no SASS: ") + e.what() + "\n";
    }
    dump.write(DumpKind::Sass, kernel.kernel_name, sass);
  }
}

}  // namespace

std::string serialize(const CompiledKernel& k, const std::string& key_material) {
  nlohmann::json stats = nlohmann::json::array();
  for (const KernelStats& s : k.stats) {
    stats.push_back({s.name, s.registers, s.barriers, s.smem_bytes, s.stack_bytes, s.spill_stores, s.spill_loads});
  }
  std::string payload;
  putString(payload, key_material);
  putString(payload, k.kernel_name);
  putString(payload, scheduler::toString(k.arch));
  putString(payload, k.ptx);
  putString(payload, k.cubin);
  putString(payload, k.log);
  putString(payload, stats.dump());
  putString(payload, nlohmann::json(k.warnings).dump());
  std::string out(kMagic, sizeof(kMagic));
  putU64(out, payload.size());
  putU64(out, fnv1a(payload, 0xcbf29ce484222325ULL));
  return out + payload;
}

std::optional<CompiledKernel> deserialize(const std::string& bytes, const std::string& key_material) {
  if (bytes.size() < sizeof(kMagic) + 16 || bytes.compare(0, sizeof(kMagic), kMagic, sizeof(kMagic)) != 0) {
    return std::nullopt;
  }
  size_t pos = sizeof(kMagic);
  const auto size = getU64(bytes, pos);
  const auto checksum = getU64(bytes, pos);
  if (!size || !checksum || *size != bytes.size() - pos) return std::nullopt;
  const std::string payload = bytes.substr(pos);
  if (fnv1a(payload, 0xcbf29ce484222325ULL) != *checksum) return std::nullopt;
  pos = 0;
  CompiledKernel k;
  const auto material = getString(payload, pos);
  if (!material || *material != key_material) return std::nullopt;
  auto name = getString(payload, pos);
  auto arch = getString(payload, pos);
  auto ptx = getString(payload, pos);
  auto cubin = getString(payload, pos);
  auto log = getString(payload, pos);
  auto stats = getString(payload, pos);
  auto warnings = getString(payload, pos);
  if (!name || !arch || !ptx || !cubin || !log || !stats || !warnings || pos != payload.size()) return std::nullopt;
  try {
    k.kernel_name = *name;
    k.arch = scheduler::parseArch(*arch);
    k.ptx = *ptx;
    k.cubin = *cubin;
    k.log = *log;
    for (const auto& s : nlohmann::json::parse(*stats)) {
      k.stats.push_back(KernelStats{s[0], s[1], s[2], s[3], s[4], s[5], s[6]});
    }
    k.warnings = nlohmann::json::parse(*warnings).get<std::vector<std::string>>();
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return k;
}

KernelCache::KernelCache(std::optional<std::filesystem::path> disk_dir) : disk_dir_(std::move(disk_dir)) {
  if (!disk_dir_) return;
  std::error_code ec;
  const bool created = std::filesystem::create_directories(*disk_dir_, ec);
  TG_USER_CHECK(!ec) << "kernel cache folder " << disk_dir_->string() << " cannot be created: " << ec.message();
  // A folder the cache makes is private, whatever the umask.
  if (created) std::filesystem::permissions(*disk_dir_, std::filesystem::perms::owner_all, ec);
  struct stat dir {};
  TG_USER_CHECK(::stat(disk_dir_->c_str(), &dir) == 0 && S_ISDIR(dir.st_mode))
      << "kernel cache folder " << disk_dir_->string() << " cannot be used: " << std::strerror(errno);
  TG_USER_CHECK(::access(disk_dir_->c_str(), R_OK | W_OK | X_OK) == 0)
      << "kernel cache folder " << disk_dir_->string() << " cannot be used: " << std::strerror(errno)
      << "; set TILEGRID_CACHE_DIR to a folder of your own";
  const char* trusted = std::getenv("TILEGRID_CACHE_TRUSTED");
  if (trusted != nullptr && std::string(trusted) == "1") return;
  const bool others_write = (dir.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (dir.st_mode & S_ISVTX) == 0;
  const bool foreign = dir.st_uid != ::geteuid() && dir.st_uid != 0;
  TG_USER_CHECK(!others_write && !foreign)
      << "kernel cache folder " << disk_dir_->string() << " is "
      << (others_write ? "writable by other users" : "owned by another user")
      << ": whoever can write there can plant a kernel this process runs. Use a folder of your own (chmod go-w), "
         "or set TILEGRID_CACHE_TRUSTED=1 to use it anyway";
}

KernelCache& KernelCache::global() {
  static KernelCache cache([]() -> std::optional<std::filesystem::path> {
    const char* dir = std::getenv("TILEGRID_CACHE_DIR");
    if (dir == nullptr || *dir == '\0') return std::nullopt;
    return std::filesystem::path(dir);
  }());
  return cache;
}

std::string KernelCache::keyMaterial(const codegen::KernelSource& source, scheduler::Arch arch,
                                     const CompileOptions& options) {
  std::string material = source.kernel_name + '\0' + source.cuda + '\0' + nvrtcTarget(arch) + '\0' + nvrtcVersion();
  for (const std::string& o : nvrtcOptions(arch, options)) material += '\0' + o;
  return material;
}

std::string KernelCache::key(const codegen::KernelSource& source, scheduler::Arch arch, const CompileOptions& options) {
  const std::string material = keyMaterial(source, arch, options);
  char hex[33];
  snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(fnv1a(material, 0xcbf29ce484222325ULL)),
           static_cast<unsigned long long>(fnv1a(material, 0x84222325cbf29ce4ULL)));
  return hex;
}

std::optional<std::filesystem::path> KernelCache::diskPath(const std::string& key) const {
  if (!disk_dir_) return std::nullopt;
  return *disk_dir_ / (key + ".tgk");
}

KernelCache::Stats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void KernelCache::ignoreEntry(const std::filesystem::path& path, const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.corrupt_entries;
  }
  if (DumpConfig::fromEnvironment().any()) {
    std::cerr << "tilegrid: kernel cache: ignoring " << path.string() << " (" << why << "); compiling instead\n";
  }
}

std::shared_ptr<const CompiledKernel> KernelCache::load(const std::string& key, const std::string& material) {
  const auto path = diskPath(key);
  if (!path) return nullptr;
  // No links followed, no blocking on a FIFO, and only regular files of this user up to a bound.
  const int fd = ::open(path->c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) ignoreEntry(*path, std::string("cannot open: ") + std::strerror(errno));
    return nullptr;
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ignoreEntry(*path, "not a regular file");
    return nullptr;
  }
  if (st.st_uid != ::geteuid()) {
    ignoreEntry(*path, "owned by another user");
    return nullptr;
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxEntryBytes) {
    ignoreEntry(*path, "larger than " + std::to_string(kMaxEntryBytes) + " bytes");
    return nullptr;
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ignoreEntry(*path, "cannot be read whole");
      return nullptr;
    }
    done += static_cast<size_t>(n);
  }
  if (auto kernel = deserialize(bytes, material)) return std::make_shared<const CompiledKernel>(std::move(*kernel));
  // Damaged, or an entry for another key: compile again, and the store replaces it.
  ignoreEntry(*path, "damaged, or not the entry for this key");
  return nullptr;
}

void KernelCache::store(const std::string& key, const std::string& material, const CompiledKernel& kernel) {
  const auto path = diskPath(key);
  if (!path) return;
  try {
    writeFileAtomically(*path, serialize(kernel, material), "the kernel cache");
  } catch (const UserError&) {
    // A cache that cannot write is still a working in-memory cache.
  }
}

std::shared_ptr<const CompiledKernel> KernelCache::get(const codegen::KernelSource& source, scheduler::Arch arch,
                                                       const CompileOptions& options) {
  const std::string material = keyMaterial(source, arch, options);
  const std::string k = key(source, arch, options);
  std::promise<std::shared_ptr<const CompiledKernel>> promise;
  std::shared_future<std::shared_ptr<const CompiledKernel>> future;
  bool owner = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(k);
    if (it != entries_.end()) {
      future = it->second;
      ++stats_.memory_hits;
    } else {
      future = promise.get_future().share();
      entries_.emplace(k, future);
      owner = true;
    }
  }
  if (owner) {
    try {
      std::shared_ptr<const CompiledKernel> kernel = load(k, material);
      if (kernel) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++stats_.disk_hits;
      } else {
        kernel = std::make_shared<const CompiledKernel>(compile(source, arch, options));
        {
          std::lock_guard<std::mutex> lock(mutex_);
          ++stats_.compiles;
        }
        store(k, material, *kernel);
      }
      promise.set_value(kernel);
    } catch (...) {
      // Waiters see the failure; a later request may try again.
      promise.set_exception(std::current_exception());
      std::lock_guard<std::mutex> lock(mutex_);
      entries_.erase(k);
    }
  }
  std::shared_ptr<const CompiledKernel> kernel = future.get();
  dumpArtefacts(*kernel, source);
  return kernel;
}

std::vector<std::shared_ptr<const CompiledKernel>> KernelCache::getAll(
    const std::vector<const codegen::KernelSource*>& sources, scheduler::Arch arch, const CompileOptions& options,
    const std::function<void(size_t, size_t, const std::string&)>& progress) {
  std::vector<std::shared_ptr<const CompiledKernel>> compiled(sources.size());
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::mutex report_mutex;
  std::exception_ptr failure;
  auto worker = [&] {
    for (size_t i = next++; i < sources.size(); i = next++) {
      try {
        compiled[i] = get(*sources[i], arch, options);
      } catch (...) {
        std::lock_guard lock(report_mutex);
        if (!failure) failure = std::current_exception();
      }
      std::lock_guard lock(report_mutex);
      if (progress) progress(++done, sources.size(), sources[i]->kernel_name);
    }
  };
  const size_t threads = std::min<size_t>(std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16), sources.size());
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return compiled;
}

}  // namespace tilegrid::runtime
