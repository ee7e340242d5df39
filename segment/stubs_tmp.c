#include "cli.h"
int cmd_batch(int argc, char **argv) { (void)argc; (void)argv; DISPLAY("flowcut batch: not available yet\n"); return EXIT_FAIL; }
