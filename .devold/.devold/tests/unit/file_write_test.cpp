// Files are written whole or not at all: a write that fails leaves the old file as it was, no
// temporary file behind, and an error that names the file and the system's reason.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/app.h"
#include "tilegrid/ir/error.h"
#include "tilegrid/runtime/file_write.h"
#include "support/cli_runner.h"

namespace tilegrid::runtime {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string name = (fs::temp_directory_path() / "tilegrid-write-XXXXXX").string();
    path = ::mkdtemp(name.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t entries(const fs::path& dir) { return static_cast<size_t>(std::distance(fs::directory_iterator(dir), {})); }

TEST(FileWrite, ReplacesTheFileWhole) {
  TempDir dir;
  const fs::path file = dir.path / "out.cu";
  writeFileAtomically(file, "old", "-o");
  writeFileAtomically(file, std::string(100000, 'x'), "-o");
  EXPECT_EQ(slurp(file), std::string(100000, 'x'));
  EXPECT_EQ(entries(dir.path), 1u);
}

// A file size limit makes write() fail part way, as a full disk does.
TEST(FileWrite, AFailedWriteLeavesTheOldFileAndNoTemporary) {
  TempDir dir;
  const fs::path file = dir.path / "out.cu";
  writeFileAtomically(file, "old", "-o");
  rlimit old_limit{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = signal(SIGXFSZ, SIG_IGN);
  rlimit small = old_limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    writeFileAtomically(file, std::string(100000, 'x'), "-o");
  } catch (const UserError& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old_limit);
  signal(SIGXFSZ, old_handler);
  EXPECT_NE(message.find("-o: writing " + file.string() + " failed after 4096 of 100000 bytes"), std::string::npos)
      << message;
  EXPECT_NE(message.find("File too large"), std::string::npos) << message;
  EXPECT_EQ(slurp(file), "old");
  EXPECT_EQ(entries(dir.path), 1u);
}

TEST(FileWrite, AFolderThatIsNotThereIsNamedBeforeAnyWork) {
  TempDir dir;
  const fs::path missing = dir.path / "no" / "out.csv";
  EXPECT_THROW(checkCanWriteFile(missing, "--out"), UserError);
  EXPECT_THROW(checkCanWriteFile(dir.path, "--out"), UserError);  // a folder, not a file
  EXPECT_NO_THROW(checkCanWriteFile(dir.path / "out.csv", "--out"));
  EXPECT_THROW(writeFileAtomically(missing, "x", "--out"), UserError);
  // The sweep refuses such a name before it emits or measures anything.
  const testing::CliResult r = testing::runCli({"sweep", "--m", "256", "--n", "256", "--k", "256", "--out", missing.string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// Output that cannot be written (a full disk behind standard output, a closed pipe) fails the
// command instead of reporting success.
TEST(FileWrite, StandardOutputThatFailsFailsTheCommand) {
  std::ostream broken(nullptr);  // every write sets badbit
  std::ostringstream err;
  const char* argv[] = {"tilegrid", "plan", "--m", "512", "--n", "512", "--k", "512"};
  EXPECT_EQ(cli::run(8, argv, broken, err), 2);
  EXPECT_NE(err.str().find("writing standard output failed"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace tilegrid::runtime
