/// \file ch07_cli.hpp
/// \brief Chapter 7's command line in the cpu tests (test_ch07_split.cpp, test_ch07_replay_cli.cpp):
///        parse_split_cli on "ch07_split <args...>", as a shell would pass them.
#pragma once

#include "split_options.hpp"

#include <initializer_list>
#include <string>
#include <vector>

namespace wb::test {

/// Runs parse_split_cli on "ch07_split <args...>" into `opt` and returns its code (-1: run).
inline int parse_ch07(std::initializer_list<std::string> args, wb::ch07::SplitOptions& opt) {
    std::vector<std::string> storage = {"ch07_split"};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    return wb::ch07::parse_split_cli(static_cast<int>(storage.size()), argv.data(), opt);
}

/// The same into options of its own.
inline int parse_ch07(std::initializer_list<std::string> args) {
    wb::ch07::SplitOptions opt;
    return parse_ch07(args, opt);
}

}  // namespace wb::test
