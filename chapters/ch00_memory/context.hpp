/// \file context.hpp
/// \brief What every section of chapter 0 shares: whether it measures or only predicts, the
///        device profile, the run metadata, the scale, where CSV goes; and the section entry
///        points (one file per experiment: ceilings.cpp, coalescing.cpp, partitions.cpp,
///        banks.cpp, transfers.cpp, overheads.cpp).
#pragma once

#include "device.hpp"
#include "device_profile.hpp"
#include "memory_lab.hpp"
#include "report.hpp"

#include <string>

namespace wb::ch00 {

struct Context {
    bool measure = false;        ///< a device is used; false: predictions and White's tables only
    DeviceProfile dev;           ///< the live device, or the preset predictions are made for
    RunMetadata meta;            ///< every CSV row carries it
    lab::Scale scale = lab::Scale::full;
    std::string csv;             ///< --csv path ("" = no CSV); one file per table is derived from it
    bool all_verified = true;    ///< false once any kernel's result check failed
};

/// "out.csv" + "banks" -> "out_banks.csv" (also without the .csv extension); "" without --csv.
std::string csv_path(const std::string& csv, const std::string& table);

/// Prints the report (unless print is false) and appends it to its CSV file when --csv was given.
void emit(const Context& ctx, const Report& report, const std::string& table, bool print = true);

/// Section heading, and the lines under it.
void heading(const std::string& title);
void say(const std::string& label, const std::string& text);  ///< "prediction: ...", "reading: ...", wrapped at ~100 columns

/// Records a failed result check (prints it at once, and the binary exits 1 at the end).
void note_check(Context& ctx, bool ok, const std::string& what);

/// The experiments (their order in the chapter).
void show_ceilings(Context& ctx);
void show_coalescing(Context& ctx);
void show_partitions(Context& ctx);
void show_lda(Context& ctx);
void show_banks(Context& ctx);
void show_transfers(Context& ctx);
void show_overheads(Context& ctx);

/// Row of White's T10 tables (3.1, 3.2) for v, or -1 when he did not measure that v.
int white_row(int v);

}  // namespace wb::ch00
