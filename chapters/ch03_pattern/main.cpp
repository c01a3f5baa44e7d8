/// \file ch03_pattern/main.cpp
/// \brief Chapter 3 — the optimized computation pattern. Runs this step of every op's ladder against the previous
///        step, the naive step, the vendor library and the measured ceilings.
/// Run: ./workbook run ch03   (or build/bin/ch03_pattern --help)
#include "ladder_chapter.hpp"

int main(int argc, char** argv) {
    return wb::run_ladder_chapter(argc, argv, 3);
}
