// burst_chaos_table RESULTS_DIR: prints the chaos matrix from the cells' result files and writes
// it to RESULTS_DIR/chaos-matrix.txt. Exit 1 when a cell failed, leaked a pod or corrupted an
// artefact. ctest runs it after the cells (fixture cleanup).
#include <fstream>
#include <iostream>

#include "chaos/chaos_matrix.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: burst_chaos_table RESULTS_DIR\n";
    return 2;
  }
  bool ok = true;
  const std::string table = burst::chaos::render_table(argv[1], &ok);
  std::cout << table;
  std::ofstream(std::string(argv[1]) + "/chaos-matrix.txt") << table;
  return ok ? 0 : 1;
}
