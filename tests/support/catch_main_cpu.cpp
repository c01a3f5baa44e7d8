// The Catch2 main of the CPU tests (compiled once: Catch2 is a large header).
#define CATCH_CONFIG_RUNNER
#include "catch.hpp"

int main(int argc, char** argv) { return Catch::Session().run(argc, argv); }
