#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "support/cli_runner.h"

namespace tilegrid::cli {
namespace {

using Result = testing::CliResult;
using testing::runCli;

TEST(CliPlan, JsonHasTheDocumentedShape) {
  const Result r = runCli({"plan", "--m", "4000", "--n", "3000", "--k", "1000", "--arch", "sm_90", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["problem"]["m"], 4000);
  EXPECT_EQ(j["params"]["cta_tile"].size(), 3u);
  EXPECT_TRUE(j["params"]["stages"].is_number_integer());
  EXPECT_TRUE(j["params"]["persistent"].is_boolean());
  for (const char* operand : {"a", "b"}) {
    EXPECT_EQ(j["smem"][operand]["major"], "K");
    EXPECT_EQ(j["smem"][operand]["atom"], "SW128");
    EXPECT_EQ(j["smem"][operand]["swizzle"], nlohmann::json::array({3, 4, 3}));
  }
  EXPECT_EQ(j["grid"]["method"], "swizzle-merge");
  const int64_t cta_m = j["params"]["cta_tile"][0], cta_n = j["params"]["cta_tile"][1];
  EXPECT_EQ(j["grid"]["tiles"], ((4000 + cta_m - 1) / cta_m) * ((3000 + cta_n - 1) / cta_n));
  EXPECT_EQ(j["grid"]["ctas"], 132);
  EXPECT_TRUE(j["grid"]["factors"].is_array());
  EXPECT_TRUE(j["grid"]["group"] == "m" || j["grid"]["group"] == "n");
}

// One row against a 4096 x 4096 weight runs as the dot kernel cut into 512 blocks of 8 weight rows,
// one CTA each: the JSON counts them, the text names the blocks, the chunk and the CTAs.
TEST(CliPlan, ShowsTheDotKernelsBlocks) {
  const Result r = runCli({"plan", "--m", "1", "--n", "4096", "--k", "4096", "--arch", "sm_90", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dot"]["blocks"], 512);
  EXPECT_EQ(j["dot"]["chunks"], 1);
  EXPECT_EQ(j["dot"]["ctas"], 512);
  const Result text = runCli({"plan", "--m", "1", "--n", "4096", "--k", "4096", "--arch", "sm_90"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("cut into 512 blocks a batch entry, 1 chunk of 4 K steps a block; 512 CTAs launched"),
            std::string::npos)
      << text.out;
}

// 5000x3000 on the H100 preset: 240 cluster pairs of 128x256 tiles on 66 clusters leave a last wave
// of 42, which stream-K shares (2688 K tiles over 66 clusters: 40 or 41 each); 4096^3's last wave
// (58 of 66) stays whole, and its 256 units go four each to 64 clusters.
TEST(CliPlan, ShowsHowStreamKSharesTheLastWave) {
  const Result r = runCli({"plan", "--m", "5000", "--n", "3000", "--k", "4096", "--arch", "sm_90", "--cta-tile",
                           "128,256,64", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["grid"]["work_split"]["shared_units"], 42);
  EXPECT_EQ(j["grid"]["work_split"]["k_tiles_per_cluster"], nlohmann::json::array({40, 41}));
  // Who reduces: the first cut unit's 64 K tiles span clusters 0 (40 of them) and 1, which finishes it.
  const auto& first = j["grid"]["work_split"]["shared"][0];
  EXPECT_EQ(first["unit"], 198);
  EXPECT_EQ(first["clusters"], nlohmann::json::array({0, 1}));
  EXPECT_EQ(first["finisher"], 1);
  EXPECT_EQ(j["grid"]["work_split"]["shared"].size(), 42u);
  EXPECT_EQ(j["grid"]["work_split"]["reduction"], "in_turn");
  const Result text = runCli({"plan", "--m", "4096", "--n", "4096", "--k", "4096", "--arch", "sm_90"});
  EXPECT_NE(text.out.find("3 whole wave(s) and 58 of 66 in the last; the 256 whole units go to the first 64 "
                          "clusters, 4 round(s) each, the other 2 idle; stream-K cuts nothing"),
            std::string::npos)
      << text.out;
  const Result json = runCli({"plan", "--m", "4096", "--n", "4096", "--k", "4096", "--arch", "sm_90", "--format", "json"});
  EXPECT_EQ(nlohmann::json::parse(json.out)["grid"]["work_split"]["whole_unit_clusters"], 64);
  const Result off = runCli({"plan", "--m", "5000", "--n", "3000", "--k", "4096", "--arch", "sm_90", "--stream-k", "off"});
  EXPECT_EQ(off.out.find("stream-K"), std::string::npos) << off.out;
}

// Under half a wave every unit is cut at the same K tiles: 1024x1024x32768 in 128x256 pairs is 16
// units of 512 K tiles, 4 pieces of 128 each on 64 of 66 clusters.
TEST(CliPlan, ShowsTheInStepPiecesUnderHalfAWave) {
  const Result r = runCli({"plan", "--m", "1024", "--n", "1024", "--k", "32768", "--arch", "sm_90", "--cta-tile",
                           "128,256,64", "--cluster", "2", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["grid"]["work_split"]["shared_units"], 16);
  EXPECT_EQ(j["grid"]["work_split"]["pieces_per_unit"], 4);
  EXPECT_EQ(j["grid"]["work_split"]["k_tiles_per_cluster"], nlohmann::json::array({128, 128}));
  const Result text = runCli({"plan", "--m", "1024", "--n", "1024", "--k", "32768", "--arch", "sm_90", "--cta-tile",
                              "128,256,64", "--cluster", "2"});
  EXPECT_NE(text.out.find("into the same 4 pieces of 128-128 K tiles, one a cluster (64 of 66 clusters busy), the "
                          "cluster with a unit's last piece finishes it; it adds the others' sums in turn"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(j["grid"]["work_split"]["reduction"], "in_turn");
}

// From six pieces on, the pieces add up their sums together: 512x512x16384 in 128x128 pairs is 8 units
// of 256 K tiles, 8 pieces of 32. Their sums (8 x 128 KiB) fit the accumulation area, so by default
// they accumulate at L2; --deterministic adds them in slices.
TEST(CliPlan, ShowsManyPiecesAddingUpTheirSums) {
  const std::vector<std::string> args = {"plan",     "--m",         "512",    "--n",       "512", "--k",
                                         "16384",    "--arch",      "sm_90",  "--cta-tile", "128,128,64",
                                         "--cluster", "2"};
  const std::string pieces =
      "into the same 8 pieces of 32-32 K tiles, one a cluster (64 of 66 clusters busy), the cluster with a unit's last "
      "piece finishes it; ";
  for (const bool deterministic : {false, true}) {
    std::vector<std::string> text_args = args;
    if (deterministic) text_args.push_back("--deterministic");
    const Result text = runCli(text_args);
    ASSERT_EQ(text.status, 0) << text.err;
    EXPECT_NE(text.out.find(pieces + (deterministic ? "the other pieces first add up the sums a slice each"
                                                    : "the other pieces add their sums into one at L2")),
              std::string::npos)
        << text.out;
    std::vector<std::string> json = text_args;
    json.insert(json.end(), {"--format", "json"});
    const auto j = nlohmann::json::parse(runCli(json).out);
    EXPECT_EQ(j["grid"]["work_split"]["pieces_per_unit"], 8);
    EXPECT_EQ(j["grid"]["work_split"]["reduction"], deterministic ? "in_slices" : "accumulated");
    EXPECT_EQ(j["params"]["deterministic"], deterministic);
  }
}

// Where 128-row tiles of a fitted width fill one wave, plan says so: 640x2560x8192 computes C^T in
// 20 x 6 tiles of 128x112 on 132 SMs, 640x4096x8192 in 32 x 4 of 128x160.
TEST(CliPlan, ShowsTheTileWidthThatFillsOneWave) {
  const Result text = runCli({"plan", "--m", "640", "--n", "2560", "--k", "8192", "--arch", "sm_90"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("tiles:    128x112 alone computing C^T = B^T A^T fill one wave: 120 tiles on 132 SMs, 95.2% "
                          "of the padded grid real output"),
            std::string::npos)
      << text.out;
  const auto j = nlohmann::json::parse(
      runCli({"plan", "--m", "640", "--n", "2560", "--k", "8192", "--arch", "sm_90", "--format", "json"}).out);
  EXPECT_EQ(j["one_wave_tile"]["width"], 112);
  EXPECT_EQ(j["one_wave_tile"]["swap_ab"], true);
  EXPECT_EQ(j["one_wave_tile"]["tiles"], 120);
  // A user's tile is the user's: no fitted width.
  const Result user = runCli({"plan", "--m", "640", "--n", "4096", "--k", "8192", "--arch", "sm_90", "--cta-tile",
                              "128,128,64"});
  EXPECT_EQ(user.out.find("fill one wave"), std::string::npos) << user.out;
  // The fit replaces the ranked tile at 640x4096x8192 (192x128, 83% real): plan shows the fit, not a
  // ranking or an orientation whose choice did not run.
  const Result replaced = runCli({"plan", "--m", "640", "--n", "4096", "--k", "8192", "--arch", "sm_90"});
  EXPECT_NE(replaced.out.find("tiles:    128x160 alone computing C^T = B^T A^T fill one wave: 128 tiles"),
            std::string::npos)
      << replaced.out;
  EXPECT_EQ(replaced.out.find("ranked by"), std::string::npos) << replaced.out;
  EXPECT_EQ(replaced.out.find("orientation:"), std::string::npos) << replaced.out;
}

// 4000^3 on the H100 preset: the heuristic's ranking is shown with the shape it chose; a user's tile
// has no ranking.
TEST(CliPlan, ShowsTheTileRankingBehindTheChoice) {
  const Result r = runCli({"plan", "--m", "4000", "--n", "4000", "--k", "4000", "--arch", "sm_90", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["tile_ranking"].size(), 11u);
  int chosen = 0;
  for (const auto& t : j["tile_ranking"]) {
    EXPECT_NEAR(t["score"].get<double>(),
                t["speed"].get<double>() * t["useful"].get<double>() * t["busy"].get<double>(), 1e-12);
    // The modelled time: the problem's flops at the score's share of the full-wave throughput.
    EXPECT_NEAR(t["modelled_us"].get<double>(),
                2.0 * 4000 * 4000 * 4000 / (t["score"].get<double>() * 5.63e12 * 132) * 1e6, 1e-6);
    if (t["chosen"]) {
      ++chosen;
      EXPECT_EQ(t["cta_tile"], j["params"]["cta_tile"]);
    }
  }
  EXPECT_EQ(chosen, 1);
  EXPECT_EQ(j["params"]["cta_tile"], nlohmann::json::array({192, 160, 64}));
  // 2000x5000x4096: 256x152x32 pairs of two 128-row consumer warpgroups, exactly two waves.
  const Result tall = runCli({"plan", "--m", "2000", "--n", "5000", "--k", "4096", "--arch", "sm_90"});
  EXPECT_NE(tall.out.find("256x152 in 2x1 clusters, 128-row warpgroups: 0.94 x 0.973 x 1.000 = 0.915 (2.00 waves, 66 "
                          "units at once, 120.5 us)  <- chosen"),
            std::string::npos)
      << tall.out;
  EXPECT_NE(tall.out.find("2 consumer warpgroups of 128x152x32"), std::string::npos) << tall.out;
  // 5000x3000x4096: computing C^T, the same pairs with BK 64 fill three waves. Over more waves they
  // are not ranked.
  const Result fitted = runCli({"plan", "--m", "5000", "--n", "3000", "--k", "4096", "--arch", "sm_90"});
  EXPECT_NE(fitted.out.find("2 consumer warpgroups of 128x152x64"), std::string::npos) << fitted.out;
  EXPECT_NE(fitted.out.find("not eligible: ranked only for C = A B (not C^T)"), std::string::npos) << fitted.out;
  const Result many = runCli({"plan", "--m", "10000", "--n", "10000", "--k", "4096", "--arch", "sm_90"});
  EXPECT_NE(many.out.find("not eligible: ranked only on at most 4 waves"), std::string::npos) << many.out;
  EXPECT_EQ(j["tile_ranking"].back()["consumer_rows"], 128);
  // 4000^3 TT: 192x160 computing C^T (NN for the kernel, whose 160-wide B is K-major) scores 0.947,
  // 128x256 pairs computing C 0.925.
  const Result swapped = runCli({"plan", "--m", "4000", "--n", "4000", "--k", "4000", "--arch", "sm_90", "--layout", "TT"});
  EXPECT_NE(swapped.out.find("orientation: C^T = B^T A^T, swap_ab (ranked choice for C = A B: 0.925 (128x256 in 2x1 "
                             "clusters); for C^T = B^T A^T: 0.947 (192x160 in 1x1 clusters)"),
            std::string::npos)
      << swapped.out;
  EXPECT_NE(swapped.out.find("kernel:   4000x4000x4000 NN"), std::string::npos) << swapped.out;
  const Result text = runCli({"plan", "--m", "4000", "--n", "4000", "--k", "4000", "--arch", "sm_90", "--layout", "TT",
                              "--swap-ab", "off"});
  EXPECT_NE(text.out.find("128x256 in 2x1 clusters: 1.00 x 0.954 x 0.970 = 0.925 (3.88 waves, 66 units at once, 186.2 us)  <- chosen"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("orientation:"), std::string::npos) << "a user's orientation needs no reason";
  EXPECT_NE(text.out.find("not eligible: an MN-major operand tile would get narrower swizzle atoms"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("192x128 in 1x1 clusters"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("not eligible: ranked only where the first shape fills less than a wave"), std::string::npos)
      << text.out;
  // 192x192 at 4000^3: 441 tiles, 3.34 waves. At 3072^2 (1.94 waves) it is ranked alone with K-major A
  // and in pairs with M-major A.
  EXPECT_NE(text.out.find("192x192 in 1x1 clusters"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("not eligible: ranked only where its last wave is 90-100% full"), std::string::npos)
      << text.out;
  const Result nn = runCli({"plan", "--m", "3072", "--n", "3072", "--k", "4096", "--arch", "sm_90", "--layout", "NN"});
  EXPECT_NE(nn.out.find("not eligible: ranked only for TN with rows on 32-byte sectors"), std::string::npos)
      << nn.out;
  EXPECT_NE(nn.out.find("192x192 in 2x1 clusters: 0.97 x 1.000 x 0.970 = 0.941 (1.94 waves, 66 units at once, 110.6 us)  <- chosen"),
            std::string::npos)
      << nn.out;
  const Result tn = runCli({"plan", "--m", "3072", "--n", "3072", "--k", "4096", "--arch", "sm_90"});
  EXPECT_NE(tn.out.find("not eligible: ranked only with an MN-major operand or rows off 32-byte sectors"), std::string::npos)
      << tn.out;
  // 192x152 is ranked computing C on at most four waves, or computing C^T where it fits the grid.
  EXPECT_NE(tn.out.find("not eligible: ranked only for C^T = B^T A^T"),
            std::string::npos)
      << tn.out;
  const Result user = runCli({"plan", "--m", "4000", "--n", "4000", "--k", "4000", "--arch", "sm_90", "--cta-tile",
                              "128,256,64", "--format", "json"});
  EXPECT_FALSE(nlohmann::json::parse(user.out).contains("tile_ranking"));
}

TEST(CliPlan, OverridesApplyAndTextShowsTheIR) {
  const Result r = runCli({"plan", "--m", "4096", "--n", "4096", "--k", "4096", "--arch", "sm_80", "--layout", "NT",
                           "--cta-tile", "128,128,32", "--stages", "3", "--method", "split-merge", "--factor", "4",
                           "--group", "n"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cta 128x128x32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stages 3"), std::string::npos);
  EXPECT_NE(r.out.find("A: SW128 MN-major"), std::string::npos);
  EXPECT_NE(r.out.find("grid split-merge factors=4 group=n"), std::string::npos) << r.out;
  // The tile counts are read at launch: the IR splits the symbolic one.
  EXPECT_NE(r.out.find("i3{4} = Split(tile_n1{tiles_n}, factor=4, inner)"), std::string::npos) << r.out;
  // Compiled in, the factor is a constant.
  const Result fixed = runCli({"plan", "--m", "4096", "--n", "4096", "--k", "4096", "--arch", "sm_80", "--layout",
                               "NT", "--cta-tile", "128,128,32", "--stages", "3", "--method", "split-merge", "--factor",
                               "4", "--group", "n", "--specialize-shape"});
  ASSERT_EQ(fixed.status, 0) << fixed.err;
  EXPECT_NE(fixed.out.find("i3{4} = Split(tile_n1{32}, factor=4, inner)"), std::string::npos) << fixed.out;
}

// Tiles print as MxNxK (plan, kernel names); pasted back into the options they plan the same.
TEST(CliPlan, TileOptionsTakeTheFormPlanPrints) {
  const std::vector<std::string> p{"plan", "--m", "4096", "--n", "4096", "--k", "4096", "--arch", "sm_80"};
  auto plan = [&](const std::string& cta, const std::string& warp) {
    std::vector<std::string> args = p;
    args.insert(args.end(), {"--cta-tile", cta, "--warp-tile", warp});
    return runCli(args);
  };
  const Result commas = plan("128,128,32", "64,32"), crossed = plan("128x128x32", "64x32");
  ASSERT_EQ(commas.status, 0) << commas.err;
  ASSERT_EQ(crossed.status, 0) << crossed.err;
  EXPECT_NE(crossed.out.find("cta 128x128x32 warp 64x32"), std::string::npos) << crossed.out;
  EXPECT_EQ(crossed.out, commas.out);
}

TEST(CliPlan, BadInputExitsTwoWithAMessage) {
  const std::vector<std::string> base{"plan", "--m", "64", "--n", "64", "--k", "64"};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--stages", "0"}, "stages is 0"},
      {{"--cta-tile", "128,100,64"}, "multiples of 8"},
      {{"--cta-tile", "128,128"}, "expected M,N,K"},
      {{"--arch", "sm_70"}, "expected sm_80 or sm_90"},
      {{"--dtype", "fp32"}, "bf16, fp16, e4m3 or e5m2"},
      {{"--dtype", "int4"}, "got 'int4'"},
      {{"--layout", "XX"}, "expected TN, NT, NN or TT"},
      {{"--factor", "0"}, "factor"},
      {{"--method", "zigzag"}, "expected none, split-merge or swizzle-merge"},
      {{"--format", "yaml"}, "expected text or json"},
      {{"--arch", "sm_80", "--cta-tile", "256,256,256"}, "shared memory"},
  };
  for (const auto& [extra, needle] : cases) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    const Result r = runCli(args);
    EXPECT_EQ(r.status, 2) << extra[0] << " " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "stderr: " << r.err;
  }
  EXPECT_EQ(runCli({"plan", "--m", "0", "--n", "64", "--k", "64"}).status, 2);
  EXPECT_EQ(runCli({"plan", "--m", "x", "--n", "64", "--k", "64"}).status, 2);
  EXPECT_EQ(runCli({"plan", "--n", "64", "--k", "64"}).status, 2);
}

TEST(CliBanks, DrawsMapAndCountsWavefronts) {
  const Result r = runCli({"banks", "--layout", "(32,40):(40,1)", "--threads", "8", "--vec", "4", "--swizzle", "2,2,3"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("wavefronts: 2\nideal: 1\n"), std::string::npos) << r.out;
  const Result j = runCli({"banks", "--layout", "(32,64):(64,1)", "--format", "json"});
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["wavefronts"], 32);
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"banks", "--layout", "(32,64)"},
           {"banks", "--layout", "(32,64):(64,1)", "--swizzle", "3,2"},
           {"banks", "--layout", "(32,64):(64,1)", "--swizzle", "3,2,1"},
           {"banks", "--layout", "(32,64):(64,1)", "--threads", "64"},
           {"banks", "--layout", "(32,64):(64,1)", "--vec", "3"},
           {"banks"}}) {
    const Result b = runCli(bad);
    EXPECT_EQ(b.status, 2) << b.err;
    EXPECT_FALSE(b.err.empty());
  }
}

}  // namespace
}  // namespace tilegrid::cli
