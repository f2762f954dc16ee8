#include "suites/cases.h"

#include <gtest/gtest.h>

#include "suites/usage_error.h"
#include "tests/test_support.h"

namespace flabench {
namespace {

SuiteSpec gpu_spec(const std::string& filter, std::vector<std::string> axes = {}) {
  SuiteSpec spec;
  spec.shapes = resolve_presets("peer");
  spec.axes = parse_axes(axes);
  spec.filter = filter;
  spec.backend = Backend::cuda;
  spec.limits = {227 * 1024, 90};
  return spec;
}

TEST(Cases, NamesCarryOpVariantModeDtypeAndShape) {
  const std::vector<Case> cases =
      expand_cases(product_registry(), gpu_spec("^rwkv7/naive/fwdbwd/bf16/B4-T4096"));
  ASSERT_EQ(cases.size(), 2u);  // D=64 and D=128 at B4 T4096 H16
  EXPECT_EQ(cases[0].name, "rwkv7/naive/fwdbwd/bf16/B4-T4096-H16-K64-V64");
  EXPECT_EQ(cases[1].name, "rwkv7/naive/fwdbwd/bf16/B4-T4096-H16-K128-V128");
  EXPECT_EQ(cases[0].problem.scale, 1.0);
  EXPECT_EQ(cases[0].variant->backend, Backend::cuda);
}

TEST(Cases, DefaultAxesCoverModesDtypesAndPeerShapes) {
  // 5 peer shapes x 3 dtypes x 2 modes of the one cuda variant of rwkv7 so far
  EXPECT_EQ(expand_cases(product_registry(), gpu_spec("^rwkv7/naive/")).size(), 30u);
  const std::vector<Case> cpu = [] {
    SuiteSpec spec = gpu_spec("rwkv6");
    spec.backend = Backend::cpu;
    spec.shapes = resolve_presets(default_preset(false));
    return expand_cases(product_registry(), spec);
  }();
  ASSERT_FALSE(cpu.empty());
  for (const Case& c : cpu) EXPECT_EQ(c.variant->name, "reference") << c.name;
}

TEST(Cases, SizeOverridesReplaceEachPresetDimension) {
  const std::vector<Shape5> shapes =
      apply_size_overrides({{8, 1024, 8, 64, 64}, {4, 4096, 16, 64, 64}}, parse_axes({"T=100,200", "V=16"}));
  EXPECT_EQ(shapes,
            (std::vector<Shape5>{
                {8, 100, 8, 64, 16}, {8, 200, 8, 64, 16}, {4, 100, 16, 64, 16}, {4, 200, 16, 64, 16}}));
  // all five given: the plain cartesian product, duplicates dropped
  EXPECT_EQ(apply_size_overrides(resolve_presets("peer"), parse_axes({"B=1", "T=64", "H=2", "D=32"})).size(),
            1u);
}

TEST(Cases, SlotAndGroupAxesApplyToTheOpsThatHaveThem) {
  SuiteSpec spec = gpu_spec("^(gsa|gla)/reference/fwd/bf16/", {"M=32,128", "G=1,4"});
  spec.backend = Backend::cpu;
  spec.shapes = resolve_presets("B2_T64_H2_D64");
  const std::vector<Case> cases = expand_cases(product_registry(), spec);
  std::vector<std::string> names;
  for (const Case& c : cases) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"gla/reference/fwd/bf16/B2-T64-H2-K64-V64",
                                             "gsa/reference/fwd/bf16/B2-T64-H2-K64-V64-M32",
                                             "gsa/reference/fwd/bf16/B2-T64-H2-K64-V64-M32-G4",
                                             "gsa/reference/fwd/bf16/B2-T64-H2-K64-V64-M128",
                                             "gsa/reference/fwd/bf16/B2-T64-H2-K64-V64-M128-G4"}));
  EXPECT_EQ(cases.back().problem.M, 128);
  EXPECT_EQ(cases.back().problem.G, 4);
  // without --axis M, gsa takes its default 64 slots
  spec.axes = parse_axes({});
  spec.filter = "^gsa/reference/fwd/bf16/";
  ASSERT_EQ(expand_cases(product_registry(), spec).size(), 1u);
  EXPECT_EQ(expand_cases(product_registry(), spec)[0].name, "gsa/reference/fwd/bf16/B2-T64-H2-K64-V64-M64");
}

TEST(Cases, FilterIsARegexAndABadOneIsAUsageError) {
  const std::vector<Case> gla = expand_cases(product_registry(), gpu_spec("^gla/.*/fp16/", {"mode=fwd"}));
  EXPECT_EQ(gla.size(), 5u * product_registry().variants_of("gla").size() - 5u);  // every cuda variant
  for (const Case& c : gla) EXPECT_EQ(c.op->name, "gla");
  EXPECT_EQ(expand_cases(product_registry(), gpu_spec("^gla/naive/fwd/fp16/")).size(), 5u);
  EXPECT_THROW(expand_cases(product_registry(), gpu_spec("rwkv7(")), UsageError);
  EXPECT_TRUE(expand_cases(product_registry(), gpu_spec("no-such-op")).empty());
}

TEST(Cases, UnsupportedCasesCarryTheirReason) {
  SuiteSpec spec = gpu_spec("^gla/naive/fwdbwd/fp32/", {"D=256", "T=64", "B=1", "H=1"});
  const std::vector<Case> cases = expand_cases(product_registry(), spec);
  ASSERT_EQ(cases.size(), 1u);
  ASSERT_TRUE(cases[0].skip_reason);
  EXPECT_NE(cases[0].skip_reason->find("naive keeps the 256x256 fp32 state in shared memory"),
            std::string::npos)
      << *cases[0].skip_reason;

  spec.backend = Backend::cpu;
  spec.filter = "^gla/reference/fwdbwd/";
  spec.axes = parse_axes({"D=128", "T=24576", "B=1", "H=1", "dtype=bf16"});
  const std::vector<Case> reference = expand_cases(product_registry(), spec);
  ASSERT_EQ(reference.size(), 1u);
  ASSERT_TRUE(reference[0].skip_reason);
  EXPECT_NE(reference[0].skip_reason->find("keeps every state"), std::string::npos);
}

TEST(Cases, ChunkAxisAppliesOnlyToVariantsWithChunks) {
  const std::vector<Case> cases =
      expand_cases(product_registry(), gpu_spec("^simple_gla/naive/fwd/bf16/", {"C=16,64"}));
  EXPECT_EQ(cases.size(), 5u);  // naive has no chunk size: one case per shape, no /C suffix
  for (const Case& c : cases) EXPECT_EQ(c.name.find("/C"), std::string::npos);
}

TEST(Presets, GroupsShapeNamesAndErrors) {
  EXPECT_EQ(resolve_presets("peer").size(), 5u);
  EXPECT_EQ(resolve_presets("B4_T2048_H16_D128"), (std::vector<Shape5>{{4, 2048, 16, 128, 128}}));
  EXPECT_EQ(resolve_presets("B2_T200_H3_K32_V16,B2_T200_H3_K32_V16"),
            (std::vector<Shape5>{{2, 200, 3, 32, 16}}));
  EXPECT_EQ(shape_name({4, 2048, 16, 64, 32}), "B4_T2048_H16_K64_V32");
  EXPECT_THROW(resolve_presets("nope"), UsageError);
  EXPECT_THROW(resolve_presets("B0_T1_H1_D1"), UsageError);
  for (const PresetGroup& group : preset_groups())
    for (const Shape5& shape : group.shapes) EXPECT_EQ(resolve_presets(shape_name(shape)).front(), shape);
}

}  // namespace
}  // namespace flabench
