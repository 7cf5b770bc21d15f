// burst: the CLI. The command table and the dispatch live in cli/cli_app.cpp.
#include "cli/cli_app.h"

int main(int argc, char** argv) { return burst::run_cli(argc, argv); }
