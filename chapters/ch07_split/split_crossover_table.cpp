// split_crossover_table.cpp — chapter 7's crossover table (split_crossover_table.hpp).
#include "split_crossover_table.hpp"

#include <string>
#include <vector>

namespace wb::ch07 {

Report crossover_table(const std::vector<RowResult>& rows) {
    Report t("Crossovers: the smallest size not on the CPU (model's choice / measured best; '-': every size on the CPU)",
             {"op", "T", "FS", "sizes", "predicted", "measured"});
    auto cell = [](int n) { return n < 0 ? std::string("-") : std::to_string(n); };
    for (const auto& g : groups(rows)) {
        const Case& c = g.front().c;
        std::vector<std::string> cells = case_cells(c);
        cells.insert(cells.end(), {std::to_string(c.n) + " ... " + std::to_string(g.back().c.n),
                                   cell(crossover(g, true)), cell(crossover(g, false))});
        t.add_row(cells);
    }
    return t;
}

}  // namespace wb::ch07
