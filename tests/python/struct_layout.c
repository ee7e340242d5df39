/* Prints the C layout of every struct the Python module mirrors with
 * ctypes (segment/python/flowcut/_lib.py), and the constants it copies,
 * for test_layout.py to compare: a mirror that drifts from the header
 * would pass garbage to the library without any error.
 *
 * Lines: "struct NAME SIZE", "field NAME FIELD OFFSET SIZE", "const NAME
 * VALUE". test_layout.py also reads the headers' field lists, so a field
 * added to a header but not here fails the test too. */
#include "flowcut/graphbuild.h"
#include "flowcut/maxflow.h"
#include "flowcut/segment.h"

#include <stddef.h>
#include <stdio.h>

#define STRUCT(T) printf("struct %s %zu\n", #T, sizeof(T))
#define FIELD(T, f) printf("field %s %s %zu %zu\n", #T, #f, offsetof(T, f), sizeof(((T *)0)->f))
#define CONST(c) printf("const %s %lld\n", #c, (long long)(c))

int main(void)
{
    STRUCT(mf_error);
    FIELD(mf_error, code); FIELD(mf_error, line); FIELD(mf_error, file); FIELD(mf_error, message);

    STRUCT(mf_options);
    FIELD(mf_options, engine); FIELD(mf_options, phase2); FIELD(mf_options, device);
    FIELD(mf_options, verbose_notice); FIELD(mf_options, cpu_algorithm); FIELD(mf_options, cut_only);
    FIELD(mf_options, threads);

    STRUCT(mf_stats);
    FIELD(mf_stats, solve_seconds); FIELD(mf_stats, phase1_seconds); FIELD(mf_stats, phase2_seconds);
    FIELD(mf_stats, upload_seconds); FIELD(mf_stats, download_seconds); FIELD(mf_stats, pushes);
    FIELD(mf_stats, relabels); FIELD(mf_stats, global_relabels); FIELD(mf_stats, rounds);
    FIELD(mf_stats, bfs_levels); FIELD(mf_stats, visits); FIELD(mf_stats, relabel_seconds);
    FIELD(mf_stats, engine_used); FIELD(mf_stats, warm); FIELD(mf_stats, changed_arcs);
    FIELD(mf_stats, deficits); FIELD(mf_stats, device_name); FIELD(mf_stats, setup_seconds);
    FIELD(mf_stats, cpu_algorithm); FIELD(mf_stats, work_seconds); FIELD(mf_stats, critical_seconds);
    FIELD(mf_stats, longest_task_seconds);
    FIELD(mf_stats, fell_back);

    STRUCT(mf_result);
    FIELD(mf_result, flow_value); FIELD(mf_result, flow); FIELD(mf_result, source_side);
    FIELD(mf_result, num_arcs); FIELD(mf_result, num_vertices); FIELD(mf_result, stats);

    STRUCT(mf_graph);
    FIELD(mf_graph, num_vertices); FIELD(mf_graph, num_arcs); FIELD(mf_graph, source); FIELD(mf_graph, sink);
    FIELD(mf_graph, out_start); FIELD(mf_graph, arc_head); FIELD(mf_graph, arc_cap); FIELD(mf_graph, arc_rcap);
    FIELD(mf_graph, in_start); FIELD(mf_graph, in_arc); FIELD(mf_graph, in_tail); FIELD(mf_graph, input_map);
    FIELD(mf_graph, num_input_arcs); FIELD(mf_graph, flow_offset);

    STRUCT(mf_arclist);
    FIELD(mf_arclist, num_vertices); FIELD(mf_arclist, num_arcs); FIELD(mf_arclist, capacity);
    FIELD(mf_arclist, source); FIELD(mf_arclist, sink); FIELD(mf_arclist, tail); FIELD(mf_arclist, head);
    FIELD(mf_arclist, cap);

    STRUCT(gb_params);
    FIELD(gb_params, lambda); FIELD(gb_params, connectivity); FIELD(gb_params, model);
    FIELD(gb_params, gmm_components); FIELD(gb_params, uniform_mix); FIELD(gb_params, threads);
    FIELD(gb_params, geodesic); FIELD(gb_params, border); FIELD(gb_params, star); FIELD(gb_params, in_lists);
    FIELD(gb_params, quick_fit); FIELD(gb_params, keep); FIELD(gb_params, keep_radius);
    FIELD(gb_params, previous); FIELD(gb_params, keep_x); FIELD(gb_params, keep_y);

    STRUCT(seg_click);
    FIELD(seg_click, x); FIELD(seg_click, y); FIELD(seg_click, label); FIELD(seg_click, radius);

    STRUCT(seg_error);
    FIELD(seg_error, code); FIELD(seg_error, message);

    STRUCT(seg_info);
    FIELD(seg_info, flow); FIELD(seg_info, foreground); FIELD(seg_info, engine); FIELD(seg_info, iterations);
    FIELD(seg_info, model_seconds); FIELD(seg_info, build_seconds); FIELD(seg_info, solve_seconds);
    FIELD(seg_info, device); FIELD(seg_info, click_radius);

    STRUCT(seg_session_options);
    FIELD(seg_session_options, graph); FIELD(seg_session_options, solve); FIELD(seg_session_options, refit);

    STRUCT(seg_cut_stats);
    FIELD(seg_cut_stats, total_seconds); FIELD(seg_cut_stats, model_seconds); FIELD(seg_cut_stats, update_seconds);
    FIELD(seg_cut_stats, solve_seconds); FIELD(seg_cut_stats, warm); FIELD(seg_cut_stats, refitted);
    FIELD(seg_cut_stats, changed_pixels); FIELD(seg_cut_stats, changed_arcs); FIELD(seg_cut_stats, flow);
    FIELD(seg_cut_stats, foreground); FIELD(seg_cut_stats, engine); FIELD(seg_cut_stats, device);

    STRUCT(seg_batch_item);
    FIELD(seg_batch_item, image); FIELD(seg_batch_item, seeds); FIELD(seg_batch_item, prompts);
    FIELD(seg_batch_item, mask); FIELD(seg_batch_item, overlay); FIELD(seg_batch_item, cutout);

    STRUCT(seg_batch_outcome);
    FIELD(seg_batch_outcome, index); FIELD(seg_batch_outcome, code); FIELD(seg_batch_outcome, error);
    FIELD(seg_batch_outcome, width); FIELD(seg_batch_outcome, height); FIELD(seg_batch_outcome, flow);
    FIELD(seg_batch_outcome, foreground); FIELD(seg_batch_outcome, engine); FIELD(seg_batch_outcome, device);
    FIELD(seg_batch_outcome, decode_seconds); FIELD(seg_batch_outcome, model_seconds);
    FIELD(seg_batch_outcome, build_seconds); FIELD(seg_batch_outcome, solve_seconds);
    FIELD(seg_batch_outcome, encode_seconds);

    STRUCT(seg_batch_config);
    FIELD(seg_batch_config, jobs); FIELD(seg_batch_config, ndevices); FIELD(seg_batch_config, devices);
    FIELD(seg_batch_config, per_gpu); FIELD(seg_batch_config, per_launch);
    FIELD(seg_batch_config, alloc_cache_bytes); FIELD(seg_batch_config, overwrite); FIELD(seg_batch_config, stop);
    FIELD(seg_batch_config, report); FIELD(seg_batch_config, user);

    STRUCT(seg_batch_stats);
    FIELD(seg_batch_stats, ok); FIELD(seg_batch_stats, failed); FIELD(seg_batch_stats, not_started);
    FIELD(seg_batch_stats, seconds); FIELD(seg_batch_stats, decode_seconds); FIELD(seg_batch_stats, model_seconds);
    FIELD(seg_batch_stats, build_seconds); FIELD(seg_batch_stats, solve_seconds);
    FIELD(seg_batch_stats, encode_seconds); FIELD(seg_batch_stats, workers); FIELD(seg_batch_stats, devices);
    FIELD(seg_batch_stats, per_gpu); FIELD(seg_batch_stats, launches); FIELD(seg_batch_stats, launched);

    CONST(MF_GPU_MANY_MAX);
    CONST(MF_ENGINE_AUTO); CONST(MF_ENGINE_CPU); CONST(MF_ENGINE_GPU);
    CONST(SEG_SAVE_MASK); CONST(SEG_SAVE_OVERLAY); CONST(SEG_SAVE_CUTOUT); CONST(SEG_SAVE_SEEDS); CONST(SEG_SAVE_PREVIOUS);
    CONST(MF_OK); CONST(MF_ERR_NOMEM); CONST(MF_ERR_IO); CONST(MF_ERR_PARSE); CONST(MF_ERR_INVALID);
    CONST(MF_ERR_TOO_LARGE); CONST(MF_ERR_NO_DEVICE); CONST(MF_ERR_DEVICE); CONST(MF_ERR_DEVICE_MEMORY);
    CONST(MF_ERR_VERIFY); CONST(MF_ERR_INTERNAL);
    CONST(SEG_OK); CONST(SEG_ERR_NOMEM); CONST(SEG_ERR_INVALID); CONST(SEG_ERR_IO); CONST(SEG_ERR_NEED_SEEDS);
    CONST(SEG_ERR_MODEL); CONST(SEG_ERR_SOLVE); CONST(SEG_ERR_IMAGE);
    return 0;
}
