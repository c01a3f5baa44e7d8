/// \file ch05_unrolled/main.cpp
/// \brief Chapter 5 — fine-tuning: unrolled, vectorized, prefetched. Runs this step of every op's ladder against the previous
///        step, the naive step, the vendor library and the measured ceilings.
/// Run: ./workbook run ch05   (or build/bin/ch05_unrolled --help)
#include "ladder_chapter.hpp"

int main(int argc, char** argv) {
    return wb::run_ladder_chapter(argc, argv, 5);
}
