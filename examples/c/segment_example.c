/* flowcut from C: segment a photo with its seeds into a mask PNG, then
 * solve a small graph given as node pairs (PyMaxflow's two-node example).
 *
 * Against an installed flowcut:
 *   cc segment_example.c $(pkg-config --cflags --libs flowcut) -o segment_example
 * or with CMake (CMakeLists.txt here): find_package(flowcut), flowcut::flowcut.
 *   ./segment_example coffee.png coffee-seeds.png mask.png [--lambda 150 ...] */
#include <flowcut/images.h>
#include <flowcut/maxflow.h>
#include <flowcut/segment.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 4 || argc % 2) {
        fprintf(stderr, "usage: segment_example PHOTO SEEDS MASK.png [--OPTION VALUE ...]\n");
        return 2;
    }
    seg_options o;
    seg_error err = {0};
    seg_options_default(&o);
    for (int i = 4; i + 1 < argc; i += 2) /* the CLI's option names */
        if (strncmp(argv[i], "--", 2) || seg_options_set(&o, argv[i] + 2, argv[i + 1], &err)) {
            fprintf(stderr, "segment_example: %s: %s\n", argv[i], err.message);
            return 2;
        }
    uint8_t *mask = NULL;
    int32_t w, h;
    seg_info info;
    if (seg_segment_files(argv[1], argv[2], &o, &mask, &w, &h, &info, &err)) {
        fprintf(stderr, "segment_example: %s\n", err.message);
        return 1;
    }
    img_image im = {w, h, 1, mask};
    img_error ie = {0};
    FILE *f = fopen(argv[3], "wb");
    int bad = !f || img_write_png(f, &im, argv[3], &ie);
    if (f)
        bad |= fclose(f) != 0;
    seg_free(mask);
    if (bad) {
        fprintf(stderr, "segment_example: cannot write %s\n", argv[3]);
        return 1;
    }
    printf("%dx%d: flow %lld, %lld foreground pixels, %s engine\n", w, h, (long long)info.flow,
           (long long)info.foreground, info.engine == MF_ENGINE_GPU ? "gpu" : "cpu");

    /* nodes 0 and 1: edge 0 -> 1 of capacity 1 (2 back), terminals (2, 5) and (9, 4) */
    int32_t tail[] = {0}, head[] = {1}, cap[] = {1}, rcap[] = {2};
    int64_t from_source[] = {2, 9}, to_sink[] = {5, 4};
    mf_graph g;
    mf_result r;
    mf_error me = {0};
    if (mf_graph_from_pairs(2, 1, tail, head, cap, rcap, from_source, to_sink, &g, &me) ||
        mf_solve(&g, NULL, &r, &me)) {
        fprintf(stderr, "segment_example: %s\n", me.message);
        return 1;
    }
    printf("graph: flow %lld, node 0 on the %s side, node 1 on the %s side\n", (long long)r.flow_value,
           r.source_side[0] ? "source" : "sink", r.source_side[1] ? "source" : "sink");
    mf_result_free(&r);
    mf_graph_free(&g);
    return 0;
}
