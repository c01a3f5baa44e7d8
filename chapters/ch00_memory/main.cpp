// ch00_memory — Chapter 0, the machine: the ceilings every later chapter is judged against, and
// the memory-layout effects White measured on a Tesla T10 (dissertation Ch. 3), measured again
// on today's GPU beside his tables.
//
//   ./workbook run ch00                       every experiment, measured
//   ch00_memory --experiments banks,transfers  some of them
//   ch00_memory --device-preset t10            predictions and White's tables, nothing measured
//   ch00_memory --quick --csv out.csv          fewer points; out_<table>.csv per table
//
// Each experiment prints a prediction (common/model.hpp), a measurement (common/memory_lab.hpp)
// and a one-line reading. Without a GPU the binary prints the predictions for a preset and
// White's published tables, says that nothing was measured, and exits 0.
#include "context.hpp"

#include "cli.hpp"
#include "device.hpp"
#include "device_profile.hpp"
#include "memory_lab.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

const std::vector<std::string> kExperiments = {"ceilings", "coalescing", "partitions", "lda", "banks", "transfers", "overheads"};

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
}

int run(const wb::ChapterOptions& opt, std::vector<std::string> experiments) {
    using namespace wb;
    ch00::Context ctx;
    ctx.csv = opt.csv;
    ctx.scale = lab::scale_for(opt.quick);

    const bool have_device = has_cuda_device();
    ctx.measure = opt.device_preset.empty() && have_device;
    std::cout << "Chapter 0 — the machine: ceilings, memory layout, transfers\n";
    if (ctx.measure) {
        select_device(opt.device);
        const DeviceInfo info = query_device(opt.device);
        ctx.meta = run_metadata(&info);
        ctx.dev = device_profile_from_device(opt.device);
        std::cout << "device: " << info.name << " (cc " << info.cc_major << '.' << info.cc_minor << ", "
                  << info.sm_count << " SMs, " << info.sm_clock_mhz << " MHz, L2 " << info.l2_bytes / (1024 * 1024)
                  << " MB, " << info.global_mem_bytes / (1024LL * 1024 * 1024) << " GB), driver " << ctx.meta.driver
                  << ", CUDA " << ctx.meta.cuda << ", scale " << lab::scale_name(ctx.scale) << '\n';
    } else {
        const std::string preset = opt.device_preset.empty() ? "h200" : opt.device_preset;
        ctx.dev = device_preset(preset);
        ctx.meta = run_metadata(nullptr);
        ctx.meta.gpu = ctx.dev.name;
        if (!have_device)
            std::cout << "no CUDA device found: predictions only, nothing was measured\n";
        else
            std::cout << "--device-preset " << preset << ": predictions only, nothing was measured\n";
        std::cout << "predictions for: " << ctx.dev.name
                  << (opt.device_preset.empty() ? " (choose another with --device-preset " +
                                                      join(device_preset_names()) + ")"
                                                : "")
                  << '\n';
    }

    if (experiments.empty()) experiments = kExperiments;
    auto wanted = [&](const std::string& e) {
        return std::find(experiments.begin(), experiments.end(), e) != experiments.end();
    };
    if (wanted("ceilings")) ch00::show_ceilings(ctx);
    if (wanted("coalescing")) ch00::show_coalescing(ctx);
    if (wanted("partitions")) ch00::show_partitions(ctx);
    if (wanted("lda")) ch00::show_lda(ctx);
    if (wanted("banks")) ch00::show_banks(ctx);
    if (wanted("transfers")) ch00::show_transfers(ctx);
    if (wanted("overheads")) ch00::show_overheads(ctx);

    if (!ctx.all_verified) {
        std::cout << "\nSome result checks failed (marked !! above): the numbers of those rows are not trustworthy.\n";
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    wb::ChapterOptions opt;
    std::vector<std::string> experiments;
    CLI::App app{"Chapter 0 — the machine: ceilings (copy, read, FMA), coalescing, partition camping and leading "
                 "dimensions (White §3.1), bank conflicts (White §3.2), host transfers and White's transfer model "
                 "(§3.4), launch and round-trip costs, each predicted, measured and compared with White's Tesla T10.",
                 "ch00_memory"};
    app.add_option("--experiments", experiments, "Which experiments to run (default: all): " + join(kExperiments))
        ->delimiter(',')
        ->check(CLI::IsMember(kExperiments));
    wb::add_chapter_options(app, opt);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);  // prints help (rc 0) or the error
        return rc == 0 ? 0 : 2;
    }
    try {
        wb::validate_chapter_options(opt);
    } catch (const std::invalid_argument& e) {
        std::cerr << "ch00_memory: " << e.what() << "\nRun with --help for more information.\n";
        return 2;
    }
    // The machine's experiments have no op, size, precision or op(A) to choose and one scale
    // beside --quick. The ladder chapters' options stay accepted (`./workbook run -- --op gemv`
    // hands every chapter the same ones) but are said to be ignored, never silently.
    for (const char* other : {"--op", "--sizes", "--precision", "--trans", "--full"})
        if (app.count(other) > 0)
            std::cerr << "ch00_memory: " << other
                      << " does not apply to chapter 0 (its experiments choose their own sizes and types; "
                         "--experiments picks them): ignored\n";
    try {
        return run(opt, experiments);
    } catch (const std::exception& e) {
        std::cerr << "ch00_memory: error: " << e.what() << '\n';
        return 1;
    }
}
