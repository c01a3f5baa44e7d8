/// \file ch01_global/main.cpp
/// \brief Chapter 1 — the global-memory baseline: one thread per result. Runs this step of every op's ladder against the previous
///        step, the naive step, the vendor library and the measured ceilings.
/// Run: ./workbook run ch01   (or build/bin/ch01_global --help)
#include "ladder_chapter.hpp"

int main(int argc, char** argv) {
    return wb::run_ladder_chapter(argc, argv, 1);
}
