/* stb_image compiled into the harness, with the fuzzer's coverage and the
 * sanitizers: the harness's definitions take the place of the system
 * libstb's (whose code is neither instrumented nor checked). */
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#include <stb/stb_image.h>
