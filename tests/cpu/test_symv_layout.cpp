// The tuned SYMV's layouts (kernels/tuned/symv_layout.hpp): a launch names one by its fields, and
// the one place that reads them (symv_layout_of) agrees with the one that writes them
// (symv_layout_launch), for every legal launch and for the default rule's picks.
#include "catch.hpp"

#include "symv.hpp"
#include "tuned/symv_layout.hpp"

#include <map>
#include <string>

using wb::tuned::SymvLayout;

TEST_CASE("symv layouts: each launch a layout writes reads back as that layout", "[cpu][symv]") {
    using wb::tuned::symv_layout_launch;
    using wb::tuned::symv_layout_of;
    for (int q : {4, 8}) CHECK(symv_layout_of(symv_layout_launch(SymvLayout::kTiles, 64, q, 8, 0)) == SymvLayout::kTiles);
    CHECK(symv_layout_of(symv_layout_launch(SymvLayout::kTiles, 32, 4, 1, 1)) == SymvLayout::kTiles);
    CHECK(symv_layout_of(symv_layout_launch(SymvLayout::kWarpRows, 0, 0, 4, 0)) == SymvLayout::kWarpRows);
    CHECK(symv_layout_of(symv_layout_launch(SymvLayout::kVector, 0, 0, 16, 1)) == SymvLayout::kVector);
    for (int rows : {wb::tuned::small::kRows, wb::tuned::small::kRowsWide}) {
        const wb::SymvLaunch l = symv_layout_launch(SymvLayout::kRowPanels, rows, 0, 8, 1);
        CHECK(symv_layout_of(l) == SymvLayout::kRowPanels);
        CHECK(l.y_blocks == 1);  // one block per panel
        CHECK(l.atomics == 0);   // no partials to add
    }
    // The fields as the CSV shows them (SymvLaunch::str), unchanged by naming the layouts.
    CHECK(symv_layout_launch(SymvLayout::kVector, 0, 0, 8, 0).str() == "nb=64 Y=8 block=256x1");
    CHECK(symv_layout_launch(SymvLayout::kWarpRows, 0, 0, 2, 1).str() == "nb=64 Q=8 Y=2 atomics block=32x8");
    CHECK(symv_layout_launch(SymvLayout::kTiles, 32, 4, 4, 0).str() == "nb=32 Q=4 Y=4 block=32x4");
    CHECK(symv_layout_launch(SymvLayout::kRowPanels, 8, 0, 1, 0).str() == "nb=8 Y=1 block=1024x1");
    // An empty launch names no layout: the tile layout's fields come from the rule.
    CHECK(symv_layout_of(wb::SymvLaunch{}) == SymvLayout::kTiles);
}

TEST_CASE("symv layouts: the legal launches cover every layout, each accepted by the launch check",
          "[cpu][symv]") {
    std::map<SymvLayout, int> count;
    for (const wb::SymvLaunch& l : wb::tuned::symv_configs<float>()) {
        INFO(l.str());
        ++count[wb::tuned::symv_layout_of(l)];
        CHECK_NOTHROW(wb::tuned::check_symv_launch(l, "tuned::symv"));
    }
    CHECK(count[SymvLayout::kTiles] == 2 * 3 * 6);  // Y = 1 ... 32: every Y chapter 6 may derive
    CHECK(count[SymvLayout::kWarpRows] == 2 * 4);
    CHECK(count[SymvLayout::kVector] == 2 * 6);
    CHECK(count[SymvLayout::kRowPanels] == 2);
    CHECK(std::string(wb::tuned::symv_layout_name(SymvLayout::kVector)) == "vector");
}

TEST_CASE("symv layouts: the default (chapter 6's derivation) picks a layout by name", "[cpu][symv]") {
    using wb::tuned::symv_derived_launch;
    const wb::DeviceProfile h200 = wb::device_preset("h200");
    CHECK(wb::tuned::symv_layout_of(symv_derived_launch(h200, 16384, 16384, 4)) == SymvLayout::kVector);
    CHECK(wb::tuned::symv_layout_of(symv_derived_launch(h200, 512, 512, 4)) == SymvLayout::kRowPanels);
    CHECK(wb::tuned::symv_layout_of(symv_derived_launch(h200, 512, 512, 4, false)) == SymvLayout::kVector);
    CHECK(wb::tuned::symv_layout_of(symv_derived_launch(h200, 16383, 16383, 4)) == SymvLayout::kTiles);  // element loads
}
