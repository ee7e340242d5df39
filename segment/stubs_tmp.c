#include "cli.h"
int cmd_segment(int argc, char **argv) { (void)argc; (void)argv; DISPLAY("flowcut segment: not available yet\n"); return EXIT_FAIL; }
int cmd_graph(int argc, char **argv) { (void)argc; (void)argv; DISPLAY("flowcut graph: not available yet\n"); return EXIT_FAIL; }
int cmd_batch(int argc, char **argv) { (void)argc; (void)argv; DISPLAY("flowcut batch: not available yet\n"); return EXIT_FAIL; }
