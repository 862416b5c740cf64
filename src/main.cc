// fabperf's entry point: everything else lives in the library.
#include <string>
#include <vector>

#include "app/fabperf_app.h"

int main(int argc, char** argv) {
  std::string program = argv[0];
  program = program.substr(program.find_last_of('/') + 1);
  return fabperf::fabperf_main(program, std::vector<std::string>(argv + 1, argv + argc));
}
