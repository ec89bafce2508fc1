// Lab 00's program, for the counting mode and ncu (count_program.cuh): the lab file is a whole
// program, built with its main() renamed lab00_program_main (counting/programs.py, LAB_FILE_DEFINES), and
// run once on a samples file written from the seeded input.
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "count_program.cuh"

int lab00_program_main(int argc, char** argv);

int main(int argc, char** argv) {
  using namespace count_program;
  const Options o = parse(argc, argv);
  const std::vector<int> samples = values<int>(o, o.n, 1024);
  char path[] = "/tmp/lab00_count_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0 || write(fd, samples.data(), samples.size() * sizeof(int)) !=
                    static_cast<ssize_t>(samples.size() * sizeof(int))) {
    std::fprintf(stderr, "cannot write the samples file %s\n", path);
    return 1;
  }
  close(fd);
  const int status = run_calls(o, {
    {"lab00_program", [&] {
       char* args[] = {argv[0], path, nullptr};
       const int ended = lab00_program_main(2, args);
       if (ended != 0) std::printf("call lab00_program: the program ended with status %d\n", ended);
     }},
  });
  unlink(path);
  return status;
}
