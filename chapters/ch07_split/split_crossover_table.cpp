// split_crossover_table.cpp — chapter 7's crossover table (split_crossover_table.hpp).
#include "split_crossover_table.hpp"

#include <string>

namespace wb::ch07 {

Report crossover_table(const std::vector<RowResult>& rows) {
    Report t("Crossovers: the smallest size not on the CPU (model's choice / measured best; '-': every size on the CPU)",
             {"op", "T", "FS", "sizes", "predicted", "measured"});
    auto cell = [](int n) { return n < 0 ? std::string("-") : std::to_string(n); };
    for (const auto& g : groups(rows)) {
        const Case& c = g.front().c;
        t.add_row({c.op, c.elem == 4 ? "float" : "double", c.fs > 0 ? std::to_string(c.fs) : "-",
                   std::to_string(g.front().c.n) + " ... " + std::to_string(g.back().c.n), cell(crossover(g, true)),
                   cell(crossover(g, false))});
    }
    return t;
}

}  // namespace wb::ch07
