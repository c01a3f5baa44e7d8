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

void say(const std::string& label, const std::string& text) { std::cout << label << ": " << text << '\n'; }

void note_check(Context& ctx, bool ok, const std::string& what) {
    if (ok) return;
    ctx.all_verified = false;
    std::cout << "!! result check FAILED: " << what << " (the kernel did not read what it should)\n";
}

}  // namespace wb::ch00
