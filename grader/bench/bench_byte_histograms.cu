// The benchmark's byte groups: 256 bins (lab 03 (b), lab 06 stage 1, then bytes v3) and 7 letter
// bins (lab 03 (d), then letters v2), the references of grader/bench/references/ next to a byte
// baseline, CUB and the grader's read; then lab 06's equalization on the same bytes
// (bench_equalization.cu). Rows keep the names of the lab versions they reproduce.
#include <optional>
#include <string>
#include <vector>

#include "grader/bench/bench_harness.cuh"
#include "grader/bench/cub_wrappers.cuh"
#include "grader/bench/references/references.cuh"
#include "grader/core/cpu_histograms.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/yardsticks.cuh"

namespace bench {
namespace {

namespace ref = bench::reference;

// A global-atomics byte histogram: the baseline of the byte group (the grader's takes ints).
__global__ void byte_global_atomics(const unsigned char* bytes, int n, unsigned int* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&bins[bytes[i]], 1u);
  }
}

struct Version {
  std::string kernel, launch;
  EdgeRun<unsigned char, unsigned> run;  // every byte reference takes any pointer
};

}  // namespace

// ---- 256 bins of bytes (lab 03 (b), lab 06 stage 1), letters (lab 03 (d)), lab 06's stages ------
void bench_bytes(Bench& b, Distribution dist) {
  const std::string name = distribution_name(dist, true);
  const std::vector<unsigned char> bytes = byte_samples(dist, kByteSamples);
  const int n = static_cast<int>(bytes.size());
  grader::DeviceBuffer<unsigned char> d_bytes(bytes);
  const unsigned char* in = d_bytes.data();
  const int* in_as_int = reinterpret_cast<const int*>(in);
  const double in_bytes = static_cast<double>(n);

  const std::string group = "256-bin byte histogram";
  const std::vector<unsigned int> expected = grader::cpu_byte_histogram(bytes);
  grader::DeviceBuffer<unsigned int> d_bins(ref::kByteBins);
  unsigned int* out = d_bins.data();
  Yardsticks y = b.read_yardstick(group, name, in_as_int, bytes.size() / 4);
  const int blocks = 4 * sm_count();
  const Row& base = b.measure(group, "global atomics on bytes (baseline)",
                              std::to_string(blocks) + " blocks of 256", name, in_bytes, expected,
                              d_bins, [&] {
    GRADER_CUDA_CHECK(cudaMemsetAsync(out, 0, ref::kByteBins * sizeof(unsigned int)));
    byte_global_atomics<<<blocks, 256>>>(in, n, out);
  }, y, true);
  y.baseline_ms = base.time.median;
  CubHistogramEven<unsigned char, unsigned int> cub(in, n, out, ref::kByteBins);
  const Row& cub_row = b.measure(group, "CUB HistogramEven", "CUB's own", name, in_bytes, expected,
                                 d_bins, [&] { cub(); }, y, true);
  y.cub_ms = cub_row.time.median;
  y.cub = [&] { cub(); };

  const ref::GridLaunch v2 = ref::bytes_v2_launch(sm_count());
  const ref::GridLaunch v3 = ref::bytes_v3_launch(sm_count());
  const Version byte_versions[] = {
      {"lab03 v3 bytes", std::to_string(blocks) + " blocks of 256",
       [=](const unsigned char* i, int k, unsigned* o) {
         ref::histogram_bytes_v1_thread_per_bin(i, k, o, blocks);
       }},
      {"lab06 histogram_256", grader::describe(v2),
       [=](const unsigned char* i, int k, unsigned* o) { ref::histogram_bytes_v2_bank_copies(i, k, o, v2); }},
      {"bytes v3 prefetched loads", grader::describe(v3),
       [=](const unsigned char* i, int k, unsigned* o) { ref::histogram_bytes_v3_prefetch(i, k, o, v3); }}};
  std::optional<EdgeSuite<unsigned char, unsigned>> suite;  // built on the first edge check
  for (const Version& v : byte_versions) {
    const std::string& edge = b.edges(v.kernel, [&] {
      if (!suite) suite.emplace(0, 255, 255, grader::cpu_byte_histogram);
      return suite->first_failure(v.run, true);
    });
    b.measure(group, v.kernel, v.launch, name, in_bytes, expected, d_bins, [&] { v.run(in, n, out); }, y,
              false, edge);
  }

  // Letters: 7 bins; random bytes hold a tenth of letters, all-equal bytes are all 'e'.
  Yardsticks letters_y;
  letters_y.read_ms = y.read_ms;
  letters_y.read = y.read;
  grader::DeviceBuffer<unsigned int> d_letters(ref::kLetterBins);
  const std::vector<unsigned> letters = grader::cpu_letter_histogram(bytes, ref::kLettersPerBin);
  const ref::GridLaunch l1 = ref::shared_grid_launch(sm_count());
  const ref::GridLaunch l2 = ref::letters_v2_launch(sm_count());
  const Version letter_versions[] = {
      {"lab03 v5 letters", grader::describe(l1),
       [=](const unsigned char* i, int k, unsigned* o) { ref::histogram_letters_v1_shared(i, k, o, l1); }},
      {"letters v2 register counters", grader::describe(l2),
       [=](const unsigned char* i, int k, unsigned* o) {
         ref::histogram_letters_v2_registers(i, k, o, l2);
       }}};
  std::optional<EdgeSuite<unsigned char, unsigned>> letter_suite;
  for (const Version& v : letter_versions) {
    const std::string& edge = b.edges(v.kernel, [&] {
      if (!letter_suite) {  // all 'z': the last bin, the one of two letters
        letter_suite.emplace(0, 255, 'z', [](const std::vector<unsigned char>& text) {
          return grader::cpu_letter_histogram(text, ref::kLettersPerBin);
        });
      }
      return letter_suite->first_failure(v.run, true);
    });
    b.measure("7-bin letter histogram", v.kernel, v.launch, name, in_bytes, letters, d_letters,
              [&] { v.run(in, n, d_letters.data()); }, letters_y, false, edge);
  }

  bench_equalization(b, dist, bytes, d_bytes);
}

}  // namespace bench
