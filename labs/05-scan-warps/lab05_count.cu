// Lab 05's graded functions, once each, for the counting mode and ncu (count_program.cuh): block
// scans with 1024-element tiles, the whole-array scans with 256 threads per block.
#include "count_program.cuh"
#include "lab05_scan_warps.cuh"

int main(int argc, char** argv) {
  using namespace count_program;
  const Options o = parse(argc, argv);
  const int n = static_cast<int>(o.n);
  const Buffer<int> in(values<int>(o, n, 100));
  auto block_scan = [&](const char* name, auto launcher) {
    return Call{name, [&, name, launcher] {
                  Buffer<int> out(static_cast<std::size_t>(n));
                  launcher(in.d, n, out.d, lab05::BlockScanLaunch{1024});
                  print_checksum(name, out);
                }};
  };
  return run_calls(o, {
    block_scan("scan_v1_hillis_steele", [](const int* i, int m, int* out, lab05::BlockScanLaunch l) { lab05::scan_v1_hillis_steele(i, m, out, l); }),
    block_scan("scan_v2_blelloch", [](const int* i, int m, int* out, lab05::BlockScanLaunch l) { lab05::scan_v2_blelloch(i, m, out, l); }),
    block_scan("scan_v3_blelloch_padded", [](const int* i, int m, int* out, lab05::BlockScanLaunch l) { lab05::scan_v3_blelloch_padded(i, m, out, l); }),
    block_scan("scan_v4_warp_shuffle", [](const int* i, int m, int* out, lab05::BlockScanLaunch l) { lab05::scan_v4_warp_shuffle(i, m, out, l); }),
    {"scan_v5_multi_block", [&] {
       Buffer<int> out(static_cast<std::size_t>(n));
       Buffer<unsigned char> workspace(lab05::scan_workspace_bytes(n));
       lab05::scan_v5_multi_block(in.d, n, out.d, workspace.d, {256});
       print_checksum("scan_v5_multi_block", out);
     }},
    {"scan_v6_single_pass", [&] {
       Buffer<int> out(static_cast<std::size_t>(n));
       Buffer<unsigned char> workspace(lab05::scan_workspace_bytes(n));
       lab05::scan_v6_single_pass(in.d, n, out.d, workspace.d);
       print_checksum("scan_v6_single_pass", out);
     }},
  });
}
