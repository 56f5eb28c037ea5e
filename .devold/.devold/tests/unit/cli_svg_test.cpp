#include <gtest/gtest.h>

#include <string>

#include "cli/svg.h"
#include "support/cli_runner.h"

namespace tilegrid::cli {
namespace {

using testing::runCli;

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

bool wellFormed(const std::string& svg) {
  return svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0 && svg.find("</svg>\n") == svg.size() - 7 &&
         count(svg, "<rect") == count(svg, "/>") - count(svg, "<line") - count(svg, "<polyline") + count(svg, "</rect>");
}

TEST(Svg, EscapesTextAndTooltips) {
  Svg svg(10, 10);
  svg.title("a < b & \"c\"");
  svg.rect(0, 0, 1, 1, "#000", "none", 0, "x > y");
  const std::string s = svg.str();
  EXPECT_NE(s.find("<title>a &lt; b &amp; &quot;c&quot;</title>"), std::string::npos) << s;
  EXPECT_NE(s.find("<title>x &gt; y</title>"), std::string::npos) << s;
  EXPECT_EQ(s.find("a < b"), std::string::npos);
}

TEST(Svg, SequentialColorRunsFromDarkToLight) {
  EXPECT_EQ(sequentialColor(0), "#440154");
  EXPECT_EQ(sequentialColor(1), "#fde725");
  EXPECT_EQ(sequentialColor(-5), sequentialColor(0));
  EXPECT_EQ(sequentialColor(7), sequentialColor(1));
}

// Seed 003's picture: 10 x 7 tiles, split-merge by 4 launches 12 x 7 CTAs, 14 of them overhanging.
TEST(CliSvg, GridDrawsEveryLaunchedCtaAndTheOverhangInRed) {
  const auto r = runCli({"grid", "--tiles", "10,7", "--factor", "4", "--method", "split-merge", "--format", "svg",
                         "--wave", "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(wellFormed(r.out)) << r.out.substr(0, 400);
  EXPECT_EQ(count(r.out, "<title>CTA "), 84u);
  EXPECT_EQ(count(r.out, "fill=\"#d62728\""), 14u);
  EXPECT_EQ(count(r.out, ", overhang</title>"), 14u);
  EXPECT_NE(r.out.find("<title>CTA 83 -&gt; tile (m 11, n 6), overhang</title>"), std::string::npos);
  // The first wave (CTAs 0-19: rows 0-3 of columns 0-4) is outlined by thick lines.
  EXPECT_GT(count(r.out, "stroke-width=\"2.50\""), 0u);
}

TEST(CliSvg, SwizzleMergeDrawsNoOverhang) {
  const auto r = runCli({"grid", "--tiles", "10,7", "--factor", "4", "--method", "swizzle-merge", "--format", "svg"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count(r.out, "<title>CTA "), 70u);
  EXPECT_EQ(count(r.out, "#d62728"), 0u);
  // A wave larger than the grid outlines the whole grid: 2 * (10 + 7) edges.
  EXPECT_EQ(count(r.out, "stroke-width=\"2.50\""), 34u);
}

TEST(CliSvg, BanksTitleHasTheWavefronts) {
  // 32 threads reading a column of a 64-wide fp32 row-major tile: all in bank 0.
  const auto conflict = runCli({"banks", "--layout", "(32,64):(64,1)", "--format", "svg"});
  ASSERT_EQ(conflict.status, 0) << conflict.err;
  EXPECT_TRUE(wellFormed(conflict.out));
  EXPECT_NE(conflict.out.find("wavefronts: 32 (ideal 1)</title>"), std::string::npos) << conflict.out.substr(0, 400);
  EXPECT_EQ(count(conflict.out, "<title>word "), 32u);
  EXPECT_NE(conflict.out.find("<title>bank 0: 32 lanes, at most 32 distinct words in one phase</title>"),
            std::string::npos);
  // Swizzle<5,0,6> spreads the column over all 32 banks.
  const auto clean = runCli({"banks", "--layout", "(32,64):(64,1)", "--swizzle", "5,0,6", "--format", "svg"});
  ASSERT_EQ(clean.status, 0) << clean.err;
  EXPECT_NE(clean.out.find("wavefronts: 1 (ideal 1)</title>"), std::string::npos);
  EXPECT_EQ(count(clean.out, "#d62728"), 0u);
  EXPECT_EQ(count(clean.out, "1 lanes, at most 1 distinct words"), 32u);
}

}  // namespace
}  // namespace tilegrid::cli
