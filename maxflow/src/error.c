/* Status codes and error detail formatting. */
#include "flowcut/maxflow.h"

#include <stdio.h>

const char *mf_strerror(int code)
{
    switch (code) {
    case MF_OK: return "success";
    case MF_ERR_NOMEM: return "out of memory";
    case MF_ERR_IO: return "input/output error";
    case MF_ERR_PARSE: return "malformed input";
    case MF_ERR_INVALID: return "invalid argument";
    case MF_ERR_TOO_LARGE: return "too large";
    case MF_ERR_NO_DEVICE: return "no CUDA device is available";
    case MF_ERR_DEVICE: return "CUDA runtime error";
    case MF_ERR_DEVICE_MEMORY: return "not enough device memory";
    case MF_ERR_VERIFY: return "certificate check failed";
    case MF_ERR_INTERNAL: return "internal error";
    default: return "unknown error";
    }
}

void mf_error_format(const mf_error *err, char *buf, size_t size)
{
    const char *msg = err->message[0] ? err->message : mf_strerror(err->code);
    if (err->file[0] && err->line > 0)
        snprintf(buf, size, "%s:%lld: %s", err->file, (long long)err->line, msg);
    else if (err->file[0])
        snprintf(buf, size, "%s: %s", err->file, msg);
    else
        snprintf(buf, size, "%s", msg);
}
