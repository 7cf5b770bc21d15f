// The program of each link-alone check (CMakeLists.txt, "Every module links alone"): linked with
// one module's whole archive and only the libraries that module declares, so a symbol the module
// uses from a module it does not declare fails the link. It is never run.
int main() { return 0; }
