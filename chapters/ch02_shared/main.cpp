/// \file ch02_shared/main.cpp
/// \brief Chapter 2 — shared and constant memory. Runs this step of every op's ladder against the previous
///        step, the naive step, the vendor library and the measured ceilings.
/// Run: ./workbook run ch02   (or build/bin/ch02_shared --help)
#include "ladder_chapter.hpp"

int main(int argc, char** argv) {
    return wb::run_ladder_chapter(argc, argv, 2);
}
