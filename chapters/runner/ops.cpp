/// \file ops.cpp
/// \brief The registered ops (ops.hpp).
#include "ops.hpp"

#include <sstream>
#include <stdexcept>

namespace wb {

const std::vector<std::unique_ptr<OpChapter>>& registered_ops() {
    static const std::vector<std::unique_ptr<OpChapter>> ops = [] {
        std::vector<std::unique_ptr<OpChapter>> v;
#define WB_MAKE_OP(name) v.push_back(make_op_chapter_##name());
        WB_OPS(WB_MAKE_OP)
#undef WB_MAKE_OP
        return v;
    }();
    return ops;
}

std::string op_names() {
    std::string s;
    for (const auto& op : registered_ops()) s += (s.empty() ? "" : ", ") + op->name();
    return s;
}

std::vector<const OpChapter*> select_ops(const std::string& list) {
    std::vector<const OpChapter*> out;
    if (list.empty() || list == "all") {
        for (const auto& op : registered_ops()) out.push_back(op.get());
        return out;
    }
    std::stringstream ss(list);
    std::string name;
    while (std::getline(ss, name, ',')) {
        const OpChapter* found = nullptr;
        for (const auto& op : registered_ops())
            if (op->name() == name) found = op.get();
        if (!found)
            throw std::invalid_argument("--op (\"" + name + "\") must be \"all\" or a comma list of: " + op_names());
        out.push_back(found);
    }
    return out;
}

}  // namespace wb
