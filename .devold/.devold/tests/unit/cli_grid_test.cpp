#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>

#include "support/cli_runner.h"

namespace tilegrid::cli {
namespace {

using Result = testing::CliResult;
using testing::runCli;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

TEST(CliGrid, CsvListsEveryLaunchedCtaWithOverhangInvalid) {
  const Result r = runCli({"grid", "--tiles", "10,7", "--factor", "4", "--method", "split-merge", "--format", "csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto rows = lines(r.out);
  ASSERT_EQ(rows.size(), 85u);
  EXPECT_EQ(rows[0], "cta,tile_m,tile_n,valid");
  int invalid = 0;
  for (size_t i = 1; i < rows.size(); ++i) invalid += rows[i].back() == '0';
  EXPECT_EQ(invalid, 14);
  EXPECT_EQ(rows[1], "0,0,0,1");
  EXPECT_EQ(rows[2], "1,1,0,1");
}

TEST(CliGrid, SwizzleMergeTableHasNoOverhang) {
  const Result r = runCli({"grid", "--tiles", "10,7", "--factor", "4", "--method", "swizzle-merge"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("CTAs launched: 70, tiles: 70, wasted CTAs: 0"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('*'), std::string::npos);
}

TEST(CliGrid, SplitMergeTableMarksOverhang) {
  const Result r = runCli({"grid", "--tiles", "10,7", "--factor", "4", "--method", "split-merge", "--show-index"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("CTAs launched: 84, tiles: 70, wasted CTAs: 14"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("m10"), std::string::npos);
  EXPECT_NE(r.out.find("const int tile_m = blockIdx.x / 28 * 4 + blockIdx.x % 4;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("const bool valid ="), std::string::npos) << r.out;
}

TEST(CliGrid, JsonCarriesSummaryAndCtas) {
  const Result r = runCli({"grid", "--tiles", "3,2", "--factor", "2,1", "--format", "json", "--show-index"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"ctas_launched\": 6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"tile_m\": \""), std::string::npos) << r.out;
  // The streamed document parses, with every CTA in launch order.
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["ctas"].size(), 6u);
  for (int64_t cta = 0; cta < 6; ++cta) EXPECT_EQ(j["ctas"][cta]["cta"], cta);
  EXPECT_EQ(j["tile_count"], 6);
}

TEST(CliGrid, BadInputExitsTwoWithAMessage) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"grid", "--factor", "0"}, "factor"},
      {{"grid", "--factor", "-3"}, "factor"},
      {{"grid", "--factor", "4,0"}, "factor"},
      {{"grid", "--factor", "4,,2"}, "empty entry"},
      {{"grid", "--tiles", "0,5"}, ">= 1"},
      {{"grid", "--tiles", "5"}, "two tile counts"},
      {{"grid", "--tiles", "4x,5"}, "not an integer"},
      {{"grid", "--tiles", "99999999999999999999,5"}, "out of range"},
      {{"grid", "--tiles", "100000,100000"}, "more than"},
      {{"grid", "--method", "hilbert"}, "expected none, split-merge or swizzle-merge"},
      {{"grid", "--group", "k"}, "expected m or n"},
      {{"grid", "--format", "xml"}, "expected csv, table, json or svg"},
      {{"grid", "--format", "svg", "--wave", "0"}, "--wave"},
      {{"grid", "--method", "split-merge", "--factor", "8,2"}, "exactly one factor"},
      {{"grid", "--tiles", "1000,1000"}, "too large to draw"},
      {{"grid", "--bogus"}, "bogus"},
      {{"frobnicate"}, "frobnicate"},
      {{}, "ubcommand is required"},
  };
  for (const auto& [args, needle] : cases) {
    const Result r = runCli(args);
    EXPECT_EQ(r.status, 2) << args.size() << " " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
  }
}

TEST(CliGrid, HelpAndVersionExitZero) {
  EXPECT_EQ(runCli({"--help"}).status, 0);
  const Result grid_help = runCli({"grid", "--help"});
  EXPECT_EQ(grid_help.status, 0);
  EXPECT_NE(grid_help.out.find("--show-index"), std::string::npos);
  const Result version = runCli({"--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_NE(version.out.find("tilegrid "), std::string::npos);
}

}  // namespace
}  // namespace tilegrid::cli
