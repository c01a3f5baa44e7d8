// context.cpp — printing and CSV helpers shared by chapter 0's sections (context.hpp).
#include "context.hpp"

#include <filesystem>
#include <iostream>

namespace wb::ch00 {

std::string csv_path(const std::string& csv, const std::string& table) {
    if (csv.empty()) return {};
    const std::string ext = ".csv";
    std::string base = csv;
    if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0)
        base.resize(base.size() - ext.size());
    return base + "_" + table + ext;
}

void emit(const Context& ctx, const Report& report, const std::string& table, bool print) {
    if (print) {
        report.print(std::cout);
        std::cout << '\n';
    }
    const std::string path = csv_path(ctx.csv, table);
    if (path.empty()) return;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);  // throws with the reason on failure
    report.write_csv(path, ctx.meta, /*append=*/true);
}

void heading(const std::string& title) {
    std::cout << "\n== " << title << " ==\n";
}

void say(const std::string& label, const std::string& text) {
    // Wrapped at spaces to about 100 columns (continuation lines indented), so that a reading
    // stays legible in a terminal and in the docs' excerpts of the output; never inside a word.
    constexpr std::size_t kWidth = 100;
    std::string line = label + ":";
    std::size_t pos = 0;
    bool first_word = true;
    while (pos < text.size()) {
        const std::size_t space = text.find(' ', pos);
        const std::size_t end = space == std::string::npos ? text.size() : space;
        const std::string word = text.substr(pos, end - pos);
        pos = end == text.size() ? end : end + 1;
        if (word.empty()) continue;
        if (!first_word && line.size() + 1 + word.size() > kWidth) {
            std::cout << line << '\n';
            line = "  " + word;
        } else {
            line += " " + word;
        }
        first_word = false;
    }
    std::cout << line << '\n';
}

void note_check(Context& ctx, bool ok, const std::string& what) {
    if (ok) return;
    ctx.all_verified = false;
    std::cout << "!! result check FAILED: " << what << " (the kernel did not read what it should)\n";
}

int white_row(int v) {
    for (int i = 0; i < 6; ++i)
        if (lab::white::kV[i] == v) return i;
    return -1;
}

}  // namespace wb::ch00
