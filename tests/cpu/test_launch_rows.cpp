// CPU tests of chapter 6's --launches-csv (chapters/runner/launch_rows): each launch type's
// params words, and the table's header and rows on a hand-made sweep result (no GPU: the rows a
// sweep would keep are filled in here), written through Report::write_csv with the run's metadata.
#include "catch.hpp"

#include "cg.hpp"
#include "conv2d.hpp"
#include "gemm.hpp"
#include "gemv_launch.hpp"
#include "launch_rows.hpp"
#include "symv.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// A case as sweep_launches leaves it: three launches, the first derived, the second chapter 5's
/// default, the third one the model has no design for (predicted -1) and one without a time.
wb::ch06::Comparison swept_case() {
    wb::ch06::Comparison c;
    c.derived.op = "gemv";
    c.derived.shape = "T 1001 x 37 double lda 1003";
    c.elem_bytes = 8;
    c.swept_launches = {{"bx=32 by=8", "block_x=32 block_y=8", true, false, 0.0123456789, 0.0131},
                        {"bx=64 by=4", "block_x=64 block_y=4", false, true, 1.5, 2.25},
                        {"bx=16 by=16", "block_x=16 block_y=16", false, false, -1, 7.0}};
    return c;
}

}  // namespace

TEST_CASE("launches CSV: every field of each op's launch, named, in the struct's order", "[cpu][ch06][csv]") {
    wb::GemvLaunch g;
    g.block_x = 32, g.block_y = 8, g.nb = 64, g.Q = 8, g.Y = 3, g.ept = 4, g.cache = 2, g.cluster = 1, g.loop = 1;
    CHECK(wb::ch06::launch_params(g) == "block_x=32 block_y=8 nb=64 Q=8 Y=3 ept=4 cache=2 cluster=1 loop=1");
    wb::GemmLaunch m;
    m.block_x = 256, m.block_y = 1, m.tile_m = 128, m.tile_n = 64, m.tile_k = 8, m.thread_m = 8, m.thread_n = 4;
    m.warp_m = 64, m.warp_n = 32, m.stages = 3, m.split_k = 5, m.pack_a = 2, m.pack_b = 1, m.align = 1, m.gemv = 1;
    m.math = 2;
    CHECK(wb::ch06::launch_params(m) == "block_x=256 block_y=1 tile_m=128 tile_n=64 tile_k=8 thread_m=8 thread_n=4 "
                                        "warp_m=64 warp_n=32 stages=3 split_k=5 pack_a=2 pack_b=1 align=1 gemv=1 math=2");
    wb::Conv2dLaunch v;
    v.block_x = 16, v.block_y = 8, v.tile_x = 64, v.tile_y = 32, v.thread_x = 4, v.thread_y = 2;
    v.blocked = 1;
    CHECK(wb::ch06::launch_params(v) == "block_x=16 block_y=8 tile_x=64 tile_y=32 thread_x=4 thread_y=2 blocked=1");
    wb::SymvLaunch s;
    s.block_x = 64, s.block_y = 4, s.nb = 64, s.y_blocks = 2, s.atomics = 1;
    CHECK(wb::ch06::launch_params(s) == "block_x=64 block_y=4 nb=64 y_blocks=2 atomics=1");
    wb::CgLaunch cg;
    cg.block = 256, cg.check_every = 8, cg.schedule = 2;
    CHECK(wb::ch06::launch_params(cg) == "block=256 check_every=8 schedule=2");
    CHECK(wb::ch06::launch_params(wb::CgLaunch{}) == "block=0 check_every=0 schedule=-1");  // defaults written too
}

TEST_CASE("launches CSV: the header, and one row per swept launch", "[cpu][ch06][csv]") {
    wb::Report t = wb::ch06::launches_report();
    CHECK(t.columns() == std::vector<std::string>{"op", "shape", "precision", "launch", "is derived", "is default",
                                                  "predicted ms", "measured ms", "params"});
    wb::ch06::Comparison unswept = swept_case();
    unswept.swept_launches.clear();
    wb::ch06::add_launch_rows(t, unswept);
    CHECK(t.rows().empty());  // a case not swept adds nothing
    wb::ch06::add_launch_rows(t, swept_case());
    REQUIRE(t.rows().size() == 3);
    CHECK(t.rows()[0] == std::vector<std::string>{"gemv", "T 1001 x 37 double lda 1003", "double", "bx=32 by=8", "1",
                                                  "0", "0.012345679", "0.0131", "block_x=32 block_y=8"});
    CHECK(t.rows()[1][4] == "0");
    CHECK(t.rows()[1][5] == "1");
    CHECK(t.rows()[1][6] == "1.5");
    CHECK(t.rows()[1][7] == "2.25");
    CHECK(t.rows()[2][6] == "-");  // no prediction
    CHECK(t.rows()[2][7] == "7");
    wb::ch06::Comparison f = swept_case();
    f.elem_bytes = 4;
    f.swept_launches.resize(1);
    f.swept_launches[0].measured_ms = -1;  // not measured
    wb::ch06::add_launch_rows(t, f);
    REQUIRE(t.rows().size() == 4);
    CHECK(t.rows()[3][2] == "float");
    CHECK(t.rows()[3][7] == "-");
}

TEST_CASE("launches CSV: written with the run's metadata first, as every chapter's CSV", "[cpu][ch06][csv]") {
    wb::Report t = wb::ch06::launches_report();
    wb::ch06::Comparison c = swept_case();
    c.swept_launches.resize(1);
    wb::ch06::add_launch_rows(t, c);
    const wb::RunMetadata meta{"NVIDIA H200", 132, 1980, 2619, "13.0", "13.0", "abc1234", "2030-01-02T03:04:05Z"};
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("wb_test_launch_rows_" + std::to_string(::getpid()) + ".csv"))
                                 .string();
    t.write_csv(path, meta);
    std::ifstream in(path);
    std::string header, row, extra;
    std::getline(in, header);
    std::getline(in, row);
    const bool more = static_cast<bool>(std::getline(in, extra));
    in.close();
    std::remove(path.c_str());
    CHECK(header == "gpu,sm_count,sm_clock_mhz,mem_clock_mhz,driver,cuda,commit,date,op,shape,precision,launch,"
                    "is derived,is default,predicted ms,measured ms,params");
    CHECK(row == "NVIDIA H200,132,1980,2619,13.0,13.0,abc1234,2030-01-02T03:04:05Z,gemv,T 1001 x 37 double lda 1003,"
                 "double,bx=32 by=8,1,0,0.012345679,0.0131,block_x=32 block_y=8");
    CHECK_FALSE(more);
}
