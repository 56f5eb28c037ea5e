#include "tilegrid/runtime/file_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "tilegrid/ir/check.h"

namespace tilegrid::runtime {
namespace {

// Removes the temporary file unless the write got as far as renaming it.
struct TemporaryFile {
  std::string name;
  int fd = -1;
  bool renamed = false;
  ~TemporaryFile() {
    if (fd >= 0) ::close(fd);
    if (!renamed && !name.empty()) ::unlink(name.c_str());
  }
};

// The process's file mode mask, read without changing it (umask() would, for every thread): Linux
// reports it in /proc/self/status. 022 where it does not.
mode_t processUmask() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  return 022;
}

}  // namespace

void checkCanWriteFile(const std::filesystem::path& path, std::string_view what) {
  TG_USER_CHECK(!path.empty()) << what << ": an empty file name";
  std::error_code error;
  TG_USER_CHECK(!std::filesystem::is_directory(path, error)) << what << ": " << path.string() << " is a folder";
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  TG_USER_CHECK(std::filesystem::is_directory(dir, error)) << what << ": the folder " << dir.string()
                                                           << " does not exist";
  TG_USER_CHECK(::access(dir.c_str(), W_OK | X_OK) == 0)
      << what << ": cannot create files in " << dir.string() << ": " << std::strerror(errno);
}

void writeFileAtomically(const std::filesystem::path& path, std::string_view bytes, std::string_view what) {
  TG_USER_CHECK(!path.empty()) << what << ": an empty file name";
  TemporaryFile temp;
  // mkstemp creates the file exclusively (O_EXCL) with mode 0600 and a random suffix.
  std::string pattern = path.string() + ".tmp-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  TG_USER_CHECK(fd >= 0) << what << ": cannot create a file beside " << path.string() << ": " << std::strerror(errno);
  temp.name = pattern;
  temp.fd = fd;
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    TG_USER_CHECK(n > 0) << what << ": writing " << path.string() << " failed after " << done << " of "
                         << bytes.size() << " bytes: " << std::strerror(n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
  TG_USER_CHECK(::fsync(fd) == 0) << what << ": writing " << path.string() << " failed: " << std::strerror(errno);
  // Permissions as an ordinary new file's (mkstemp's are 0600).
  ::fchmod(fd, 0666 & ~processUmask());
  temp.fd = -1;
  TG_USER_CHECK(::close(fd) == 0) << what << ": writing " << path.string() << " failed: " << std::strerror(errno);
  TG_USER_CHECK(::rename(temp.name.c_str(), path.c_str()) == 0)
      << what << ": cannot replace " << path.string() << ": " << std::strerror(errno);
  temp.renamed = true;
}

}  // namespace tilegrid::runtime
