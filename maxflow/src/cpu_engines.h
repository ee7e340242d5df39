/* The CPU algorithms behind mf_solve_cpu (opt is never NULL here). */
#ifndef FLOWCUT_CPU_ENGINES_H
#define FLOWCUT_CPU_ENGINES_H

#include "internal.h"

int mf_push_relabel(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err);
int mf_bk(const mf_graph *g, const mf_options *opt, mf_result *res, mf_error *err);

#endif
