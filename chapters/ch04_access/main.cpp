/// \file ch04_access/main.cpp
/// \brief Chapter 4 — the optimized access pattern. Runs this step of every op's ladder against the previous
///        step, the naive step, the vendor library and the measured ceilings.
/// Run: ./workbook run ch04   (or build/bin/ch04_access --help)
#include "ladder_chapter.hpp"

int main(int argc, char** argv) {
    return wb::run_ladder_chapter(argc, argv, 4);
}
