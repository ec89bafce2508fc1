// The grader's yardsticks, once each, for the counting mode and ncu (count_program.cuh): the read
// yardstick over the samples, the global-atomics baseline and the privatized histogram over
// 1024 bins, with the grids of a 132-multiprocessor GPU (yardstick_launches.cu).
#include "count_program.cuh"
#include "yardstick_launches.cuh"

int main(int argc, char** argv) {
  using namespace count_program;
  const Options o = parse(argc, argv);
  const int n = static_cast<int>(o.n);
  const Buffer<int> samples(values<int>(o, n, yardstick_launches::kNumBins));
  return run_calls(o, {
    {"read_everything", [&] {
       Buffer<int> sink(1);
       yardstick_launches::read_everything(samples.d, static_cast<std::size_t>(n), sink.d);
       print_checksum("read_everything", sink);
     }},
    {"baseline_histogram", [&] {
       Buffer<int> bins(yardstick_launches::kNumBins);
       yardstick_launches::baseline_histogram(samples.d, n, bins.d, yardstick_launches::kNumBins);
       print_checksum("baseline_histogram", bins);
     }},
    {"privatized_histogram", [&] {
       Buffer<int> bins(yardstick_launches::kNumBins);
       yardstick_launches::privatized_histogram(samples.d, n, bins.d, yardstick_launches::kNumBins);
       print_checksum("privatized_histogram", bins);
     }},
  });
}
