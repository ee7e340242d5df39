/* The launch configuration of a solve: lane-group size, grids, batches,
 * the BFS variant and the relabel trigger, from the tuning in force
 * (mf_gpu_tuning, tuning.c) and a few facts about the graph. */
#include "gpu_engine.cuh"

void add_facts(const mf_graph *g, graph_facts *f)
{
    for (int32_t v = 0; v < g->num_vertices; v++) {
        int32_t deg = g->out_start[v + 1] - g->out_start[v] + g->in_start[v + 1] - g->in_start[v];
        if (v != g->source && v != g->sink)
            f->max_deg = deg > f->max_deg ? deg : f->max_deg;
    }
    for (int32_t a = 0; a < g->num_arcs; a += 64) {
        f->sampled++;
        f->two_way += g->arc_rcap[a] > 0;
    }
}

/* The launch configuration of a solve of n vertices and m arcs, from the
 * tuning in force (mf_gpu_tuning, whose defaults say why each value);
 * sets the device state's hub degree. */
void make_config(mf_gpu_solver *s, int32_t n, int32_t m, const graph_facts &f, engine_cfg *cfg_out,
                 int32_t *interval_out)
{
    const mf_gpu_tuning *tune = mf_gpu_tuning_get();
    engine_cfg cfg;
    dev_state &d = s->d;
    double avg_degree = 2.0 * m / (double)n;
    cfg.group = tune->group ? tune->group : avg_degree <= 3 ? 4 : avg_degree <= 12 ? 8 : avg_degree <= 24 ? 16 : 32;
    if (cfg.group != 1 && cfg.group != 4 && cfg.group != 8 && cfg.group != 16)
        cfg.group = 32;
    cfg.blocks = s->sm_count * tune->blocks_per_sm;
    cfg.batch = tune->batch;
    cfg.cycles = tune->cycles;
    cfg.small_bfs = tune->small_bfs * (1024 / cfg.group);
    cfg.small_push = tune->small_push * (1024 / cfg.group);
    /* hubs: vertices whose scan would take a group more than 32 steps;
     * none on grids, which then launch nothing more */
    {
        int32_t hub_deg = tune->hub_degree < 0 ? 32 * cfg.group : tune->hub_degree;
        d.hub_deg = hub_deg > 0 && f.max_deg > hub_deg ? hub_deg : 0;
        cfg.hub_blocks = s->sm_count * 2;
    }
    /* the BFS in super-levels of 16 levels (bfs_hops) up to 8 M vertices,
     * bfs_coop's level by level beyond (0). A level costs a chain of
     * dependent loads either way, so fewer grid barriers shorten the BFS
     * only where frontiers are narrow; on wide fronts they cost more */
    cfg.hops = tune->bfs_hops >= 0 ? tune->bfs_hops : n <= (8 << 20) ? 16 : 0;
    /* bfs_hops labels by atomicMin alone (no load of the height first)
     * while a frontier has fewer than 16,384 vertices, on graphs of low
     * degree without hubs: one memory round trip fewer a level, where
     * levels wait on latency; wide frontiers (unions of photos' networks)
     * and dense graphs (a DAG's thousands of arcs into each vertex) queue
     * on the atomics instead */
    d.bfs_direct = tune->bfs_direct >= 0 ? tune->bfs_direct : cfg.group <= 8 && d.hub_deg == 0 ? 16384 : 0;
    cfg.hops_blocks = cfg.hops > 0 ? coop_grid(s->device, hops_kernel(cfg.group), s->sm_count * tune->coop_per_sm) : 0;
    cfg.coop_blocks = tune->coop ? coop_grid(s->device, coop_kernel(cfg.group), s->sm_count * tune->coop_per_sm) : 0;
    {
        /* relabel after n visits where most arcs carry capacity both
         * ways (grids, genrmf, photos), after 2n on one-way networks
         * (Washington RLG, dense DAGs); every 64th arc is sampled */
        const double per_n = f.sampled && 2 * f.two_way >= f.sampled ? 1.0 : 2.0;
        cfg.work_limit = (tune->work > 0 ? tune->work : per_n) * (double)n;
    }
    if (cfg.cycles < 1)
        cfg.cycles = 1;
    if (cfg.batch < 1)
        cfg.batch = 1;
    int32_t interval = tune->interval;
    if (interval <= 0) { /* ECL-MaxFlow's max(100, V^2 / (1000 E)), at most 10^6 */
        double ecl = (double)n * (double)n / (1000.0 * (m ? m : 1));
        interval = ecl < 100 ? 100 : ecl > 1e6 ? 1000000 : (int32_t)ecl;
    }
    *cfg_out = cfg;
    *interval_out = interval;
}
