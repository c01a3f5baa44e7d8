/// \file model/conv2d.hpp
/// \brief The convolution model (architecture §6): per ladder step, bytes (the image once, the
///        halo overhead per tile), flops 2 rows cols FS^2, shared-memory and constant-memory loads
///        per FMA, occupancy, and the predicted GFLOP/s against the roofline bound
///        min(FMA peak, bandwidth x intensity); and the FFT convolution's cost, from which the
///        filter size above which the FFT wins follows. Plain host arithmetic on a DeviceProfile.
///
/// A step is described by its design (Conv2dDesign): the block's tile, the thread's outputs, and
/// per tap the instructions it issues. Per warp FMA instruction the model counts: shared-memory
/// (or L1) wavefronts, filter loads, other instructions; the time is the largest of five bounds
/// (FMA lanes, instruction issue at 4 warp instructions per clock per SM, shared/L1 wavefronts at
/// one per clock per SM, L2 bandwidth for the tile windows (kL2OverDram x DRAM, model/gemm.hpp),
/// DRAM for the image read once and written once), stretched by the tail wave, plus the launch.
#pragma once

#include "device_profile.hpp"
#include "stage.hpp"
#include "model/occupancy.hpp"

#include <string>

namespace wb::model {

/// One convolution step's design, as the model sees it (the chapters derive it from the step's
/// launch: chapters/runner/conv2d_op.cpp).
struct Conv2dDesign {
    Stage stage = Stage::kNaive;  ///< the ladder stage it models (stage.hpp; for the words only)
    int threads = 256;          ///< threads per block
    int tile_x = 32, tile_y = 8;  ///< outputs per block (x along the row)
    int thread_x = 1, thread_y = 1;  ///< outputs per thread
    int chunk_x = 0, chunk_y = 0;    ///< filter taps staged per pass (0: the whole filter)
    bool staged = true;         ///< image window staged in shared memory (false: naive, from L1)
    /// Thread rows of the staging loop (conv2d_common.cuh, stage_tile: chapters 2 and 3), whose
    /// every trip waits for its global load before its shared store; 0: the window is copied with
    /// cp.async (chapters 4 and 5), all its loads in flight at once.
    int stage_loop_rows = 0;
    /// The next window's copy is in flight while the block computes on this one (chapter 5's
    /// double buffer): no block waits between its passes.
    bool prefetch = false;
    /// Independent FMAs a warp issues back to back (the accumulators one operand pair serves with
    /// no load between them): 1 where each tap is loaded at a run-time index just before its FMAs
    /// (the SM then needs kBusyWarps warps to keep its pipes busy), rx ry where every tap is an
    /// operand already in a register (the filter-row kernel: fewer warps suffice, Little's law
    /// on the pipe's latency).
    int independent_fmas = 1;
    /// The blocks keep enough warps of independent FMAs resident to share the SM's pipes, and an SM
    /// takes the next block as soon as one frees up: the grid's tail is the busiest SM's whole
    /// blocks (ceil(blocks / SMs) against the mean), not a whole last wave (the tuned step's
    /// kernels; the earlier steps' few warps each wait on their own loads).
    bool shares_pipes = false;
    double wavefronts_per_fma = 1;   ///< shared (or L1) wavefronts per warp FMA instruction
    double other_per_fma = 1;   ///< instructions besides the FMA per FMA (loads, moves, indices, loop)
    int regs_per_thread = 32;
    int smem_per_block = 0;
};

/// The model's design of `stage` for filter size fs, element size (4 or 8) and the step's
/// outputs per thread / tile (from its launch). `vector_rows`: every image row starts on a 16-byte
/// boundary (base aligned, pitch a multiple of the vector), so the staging copies whole 16-byte
/// vectors; otherwise it copies element by element (kernels/conv2d_common.cuh). Throws
/// std::invalid_argument on an unknown stage. `blocked` (the tuned step): the blocked kernel's loop
/// even where the filter size has a compile-time kernel (FS = 3, 5, 7, 15; Conv2dLaunch::blocked).
Conv2dDesign conv2d_stage_design(Stage stage, int fs, int elem_bytes, int tile_x, int tile_y,
                                 int thread_x, int thread_y, int threads, bool vector_rows = true,
                                 bool blocked = false);

struct Conv2dPrediction {
    double flops = 0;            ///< 2 rows cols FS^2
    double useful_bytes = 0;     ///< size(T) (2 rows cols + FS^2): image in, image out, filter
    double halo_factor = 1;      ///< pixels a block stages per output pixel (>= 1), over all passes
    double l2_bytes = 0;         ///< bytes the tiles read through the L2 (halo included) and write
    double intensity = 0;        ///< flops per useful byte
    double roofline_gflops = 0;  ///< min(FMA peak, bandwidth x intensity)
    double peak_gflops = 0;      ///< the FMA lanes' peak for this precision
    double issue_fraction = 0;   ///< FMA instructions / all issued instructions
    double wavefronts_per_fma = 0;
    Occupancy occ;
    double waves = 0;
    double ms = 0, gflops = 0;   ///< predicted time and rate
    std::string limit;           ///< what sets the time, in words
};

/// Prediction of a rows x cols image with an FS x FS filter, elements of `elem_bytes` (4 or 8).
/// Sizes of zero predict the launch overhead only. Throws std::invalid_argument on negative
/// sizes, fs even or < 1, elem_bytes not 4 or 8, or a design whose block cannot be resident.
Conv2dPrediction predict_conv2d(const Conv2dDesign& d, long long rows, long long cols, int fs, int elem_bytes,
                                const DeviceProfile& dev);

/// The tuned step's prediction for one of its launches (a block of `threads`, a thread
/// thread_x x thread_y outputs, the tile tile_x x tile_y) on a rows x cols image whose rows are
/// `vector_rows` (conv2d_stage_design; `blocked` likewise): the time chapter 6 ranks its sweep with
/// and the derivation (derive_conv2d) picks the least of.
Conv2dPrediction predict_conv2d_launch(int tile_x, int tile_y, int thread_x, int thread_y, int threads, long long rows,
                                       long long cols, int fs, int elem_bytes, bool vector_rows,
                                       const DeviceProfile& dev, bool blocked = false);

/// The roofline bound of a convolution: min(peak, bandwidth x 2 FS^2 rows cols / useful bytes),
/// GFLOP/s (bandwidth in GB/s).
double conv2d_roofline_gflops(long long rows, long long cols, int fs, int elem_bytes, double peak_gflops,
                              double bandwidth_gbs);

/// The FFT convolution's predicted time (ms): the image padded to P_r x P_c (the smallest
/// 2^a 3^b 5^c 7^d >= n + FS/2), then per call: the pad (read the image, write P_r P_c), an R2C and
/// a C2R, each `kFftPasses` passes over its data through DRAM (cuFFT's multi-pass 2-D transforms
/// at these sizes), the pointwise product (read two spectra, write one), the extraction (read and
/// write the image). Independent of FS except through the padding.
double predict_fft_conv2d_ms(long long rows, long long cols, int fs, int elem_bytes, const DeviceProfile& dev);
/// Passes over the data of one 2-D transform the FFT model assumes (cuFFT at 8192^2: about 3,
/// from the 1.0 ms of an 8192^2 FFT convolution on an H200, ../shared/reference).
constexpr double kFftPasses = 3.0;

/// The filter sizes the tuned step compiles its fixed kernel for (FS a template constant: the
/// dispatch in kernels/tuned/conv2d.cu instantiates exactly these); every other size runs the
/// blocked kernel. The model, the tuned rules and their legal launches read this one list.
constexpr bool tuned_conv2d_fixed_fs(int fs) { return fs == 3 || fs == 5 || fs == 7 || fs == 15; }

/// The smallest odd filter size at which the FFT convolution is predicted faster than the design
/// `tuned` of the tuned step (evaluated at each odd FS up to kConv2dMaxFilter = 1025); 0 when it
/// never is.
int fft_crossover_fs(long long rows, long long cols, int elem_bytes, const DeviceProfile& dev);

}  // namespace wb::model
