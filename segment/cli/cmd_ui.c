/* flowcut ui: an interactive segmentation session in the browser. The
 * HTTP server binds loopback by default and every request must carry the
 * random token of the printed URL. */
#define _GNU_SOURCE /* getrandom */
#include "cli.h"
#include "seg_args.h"

#include "flowcut/segment.h"

#ifdef FLOWCUT_HAVE_UI
#include "ui_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

#include <stdlib.h>
#include <string.h>

#define DEFAULT_PORT 8750

static void usage(FILE *f)
{
    fprintf(f,
            "usage: flowcut ui IMAGE [--seeds FILE] [-o MASK] [--port N] [options]\n"
            "Opens a local web page to click the object (Shift-click or right-click the\n"
            "background), drag a box around it, or paint foreground and background strokes;\n"
            "the cut follows every edit (warm re-solve). Save writes the mask, and on request\n"
            "the cut-out and the seeds (a seed file `flowcut segment --seeds` replays exactly;\n"
            "after a click, with the --clicks and --previous that Save prints).\n"
            "  -o MASK               where Save writes the mask (default IMAGE-stem.mask.png);\n"
            "                        the cut-out and seeds go beside it (.cutout.png, .seeds.png,\n"
            "                        and .previous.png: the mask the last click corrects)\n"
            "  --port N              TCP port (default %d; 0: any free port)\n"
            "  --host ADDR           listen on ADDR instead of 127.0.0.1 (other machines can\n"
            "                        then reach the page: the token is all that guards it)\n"
            "  -q, --quiet           no log lines on stderr\n"
            "  -h, --help\n"
            "Segmentation options (as for segment):\n" SEG_OPTIONS_HELP,
            DEFAULT_PORT);
}

#ifdef FLOWCUT_HAVE_UI
/* "DIR/stem.png" -> "DIR/stem" + suffix (the extension after the last dot
 * of the file name is dropped). */
static char *beside(const char *path, const char *suffix)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - path) : strlen(path);
    if (stem > 4 && !strncmp(path + stem - 5, ".mask", 5))
        stem -= 5; /* photo.mask.png -> photo.cutout.png */
    char *out = malloc(stem + strlen(suffix) + 1);
    if (out) {
        memcpy(out, path, stem);
        strcpy(out + stem, suffix);
    }
    return out;
}

/* A numeric listening address, IPv4 or IPv6 (names are not resolved: the
 * address the page is served on must be the one the user typed). */
typedef struct listen_addr {
    struct sockaddr_storage sa;
    socklen_t len;
    int loopback; /* 127.0.0.0/8 or ::1: only this machine can connect */
} listen_addr;

static int parse_host(const char *host, listen_addr *a, char *msg, size_t size)
{
    memset(a, 0, sizeof *a);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&a->sa;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&a->sa;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        a->len = sizeof *v4;
        a->loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
        return 0;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        a->len = sizeof *v6;
        a->loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
        return 0;
    }
    snprintf(msg, size, "--host %s: not an IP address (IPv4 such as 127.0.0.1, or IPv6 such as ::1)", host);
    return -1;
}

/* Binds and listens; a clear message when the port is taken. */
static int listen_on(const char *host, listen_addr *a, int port, int *actual, char *msg, size_t size)
{
    int family = a->sa.ss_family;
    if (family == AF_INET)
        ((struct sockaddr_in *)&a->sa)->sin_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in6 *)&a->sa)->sin6_port = htons((uint16_t)port);
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(msg, size, "cannot create %s socket: %s", family == AF_INET6 ? "an IPv6" : "a", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (family == AF_INET6) /* exactly the address given, not IPv4 too */
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a->sa, a->len) != 0) {
        int e = errno;
        close(fd);
        if (e == EADDRINUSE)
            snprintf(msg, size, "port %d on %s is already in use (another flowcut ui?); choose another with --port N",
                     port, host);
        else
            snprintf(msg, size, "cannot listen on %s port %d%s: %s", host, port,
                     family == AF_INET6 && e == EADDRNOTAVAIL ? " (IPv6 unavailable here?)" : "", strerror(e));
        return -1;
    }
    socklen_t len = a->len;
    if (listen(fd, 128) != 0 || getsockname(fd, (struct sockaddr *)&a->sa, &len) != 0) {
        snprintf(msg, size, "cannot listen on %s port %d: %s", host, port, strerror(errno));
        close(fd);
        return -1;
    }
    *actual = ntohs(family == AF_INET ? ((struct sockaddr_in *)&a->sa)->sin_port
                                      : ((struct sockaddr_in6 *)&a->sa)->sin6_port);
    return fd;
}

/* The photo and, with --seeds, the labels of its seed image (NULL
 * without). 0, or -1 after printing why. */
static int load_inputs(const char *image, const char *seeds, const seg_options *o, img_image *photo,
                       uint8_t **labels)
{
    char msg[1024];
    img_error ie = {0};
    img_image seed_img = {0};
    int64_t nfg, nbg;
    int rc = -1;
    *labels = NULL;
    if (img_load_rgb(image, o->max_pixels, photo, &ie)) {
        img_error_format(&ie, msg, sizeof msg);
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
        return -1;
    }
    if (!seeds)
        return 0;
    if (img_load_labels(seeds, o->max_pixels, &seed_img, &ie)) {
        img_error_format(&ie, msg, sizeof msg);
        DISPLAYLEVEL(1, "flowcut: %s\n", msg);
    } else if (seed_img.width != photo->width || seed_img.height != photo->height) {
        DISPLAYLEVEL(1, "flowcut: %s: seed image is %dx%d, the photo %s is %dx%d\n", seeds, seed_img.width,
                     seed_img.height, image, photo->width, photo->height);
    } else if (!(*labels = malloc((size_t)photo->width * photo->height))) {
        DISPLAYLEVEL(1, "flowcut ui: out of memory\n");
    } else {
        seg_labels_from_seeds(seed_img.data, seed_img.width, seed_img.height, seed_img.channels, o, *labels, &nfg,
                              &nbg);
        rc = 0;
    }
    img_free(&seed_img);
    return rc;
}

/* Where Save writes: the mask (-o, else beside the photo), the cut-out and
 * the seeds beside the mask. 0, or -1 without memory. */
static int output_paths(const char *image, const char *out, char **mask, char **cutout, char **seeds,
                        char **previous)
{
    *mask = out ? strdup(out) : beside(image, ".mask.png");
    *cutout = beside(*mask ? *mask : image, ".cutout.png");
    *seeds = beside(*mask ? *mask : image, ".seeds.png");
    *previous = beside(*mask ? *mask : image, ".previous.png");
    return *mask && *cutout && *seeds && *previous ? 0 : -1;
}

/* Listens, prints the URL and serves the session until SIGINT, SIGTERM or
 * SIGHUP; the exit status. base holds all of the server's settings but the
 * token, which is made here. */
static int serve(const char *host, listen_addr *addr, int port, const ui_config *base)
{
    char msg[1024], token[33];
    ui_config cfg = *base;
    ui_server *server = NULL;
    int actual = 0, fd;
    if (!addr->loopback)
        DISPLAYLEVEL(1, "flowcut ui: warning: listening on %s, not only this machine's loopback: anyone who "
                        "learns the URL can drive the session\n",
                     host);
    if ((fd = listen_on(host, addr, port, &actual, msg, sizeof msg)) < 0) {
        DISPLAYLEVEL(1, "flowcut ui: %s\n", msg);
        return EXIT_FAIL;
    }
    unsigned char rnd[16];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        DISPLAYLEVEL(1, "flowcut ui: no random bytes for the token: %s\n", strerror(errno));
        close(fd);
        return EXIT_FAIL;
    }
    for (int i = 0; i < 16; i++)
        snprintf(token + 2 * i, 3, "%02x", rnd[i]);
    cfg.token = token;
    /* SIGINT/SIGTERM blocked in every thread: the main thread waits for them */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    if (ui_server_start(&cfg, fd, &server, msg, sizeof msg)) {
        DISPLAYLEVEL(1, "flowcut ui: %s\n", msg);
        close(fd);
        return EXIT_FAIL;
    }
    /* the server owns fd now. The URL: a wildcard address is reached
     * through loopback; IPv6 in brackets */
    int v6 = addr->sa.ss_family == AF_INET6;
    const char *shown = !strcmp(host, "0.0.0.0") ? "127.0.0.1" : v6 && !strcmp(host, "::") ? "::1" : host;
    printf("flowcut ui: open http://%s%s%s:%d/?token=%s\n", v6 ? "[" : "", shown, v6 ? "]" : "", actual, token);
    printf("flowcut ui: Save writes %s; Ctrl-C stops\n", cfg.mask_path);
    fflush(stdout);
    int sig = 0;
    sigwait(&sigs, &sig);
    if (!cfg.quiet)
        DISPLAY("flowcut ui: stopping (%s)\n", sig == SIGINT ? "interrupt" : "terminate");
    ui_server_stop(server); /* finishes the request in progress first */
    return EXIT_OK;
}
#endif

/* The command line, parsed. */
typedef struct ui_args {
    seg_options o;
    const char *image, *seeds, *out, *host;
    int port, quiet;
    const struct option *longopts;
    int nwords; /* argv's words before the image, options all (getopt's order) */
    char replay[4096]; /* ui_config.replay */
} ui_args;

/* The long option argv word w names, as getopt_long reads it: the exact
 * name, else the one name it begins (an abbreviation); NULL for none. */
static const struct option *long_option(const struct option *longopts, const char *w, size_t len)
{
    const struct option *hit = NULL;
    for (const struct option *o = longopts; o->name; o++) {
        if (strncmp(o->name, w, len))
            continue;
        if (strlen(o->name) == len)
            return o;
        if (hit)
            return NULL; /* ambiguous: getopt refused it */
        hit = o;
    }
    return hit;
}

/* The replay's start (ui_config.replay): the options among argv's first n
 * words (getopt has put the options first) that shape the page's masks, less
 * the page's own (seeds, prompts, lambda: Save adds them) and those the
 * saved seeds or the session do not take (scribble colours: the seeds are
 * saved as labels; iterations: a session does not re-fit on its cuts).
 * -1 when it does not fit in buf (no replay then). */
static int replay_prefix(char **argv, int n, const struct option *longopts, const char *image, const char *seeds,
                         char *buf, size_t size)
{
    static const char *skip[] = {"seeds", "trimap", "clicks", "box", "lambda", "port", "host", "quiet", "help",
                                 "scribble-colors", "iterations", "max-pixels"};
    snprintf(buf, size, "flowcut segment");
    int rc = cli_shell_word(buf, size, image) | cli_shell_word(buf, size, "--seeds") | cli_shell_word(buf, size, seeds);
    for (int i = 1; i < n && !rc; i++) {
        const char *w = argv[i];
        if (strncmp(w, "--", 2)) { /* -o FILE, -q: the server's */
            i += !strcmp(w, "-o");
            continue;
        }
        const char *eq = strchr(w, '=');
        const struct option *o = long_option(longopts, w + 2, eq ? (size_t)(eq - w - 2) : strlen(w + 2));
        const int takes = o && o->has_arg == required_argument && !eq;
        int skipped = !o;
        for (size_t k = 0; o && k < sizeof skip / sizeof skip[0]; k++)
            skipped |= !strcmp(o->name, skip[k]);
        if (!skipped) {
            rc |= cli_shell_word(buf, size, w);
            if (takes && i + 1 < n)
                rc |= cli_shell_word(buf, size, argv[i + 1]);
        }
        i += takes;
    }
    return rc ? -1 : 0;
}

/* Parses argv into a; returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, ui_args *a)
{
    enum { O_PORT = 256, O_HOST };
    static const struct option longopts[] = {SEG_LONG_OPTIONS,
                                             {"port", required_argument, NULL, O_PORT},
                                             {"host", required_argument, NULL, O_HOST},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    seg_options_default(&a->o); /* the page's session runs segment's energy */
    a->host = "127.0.0.1";
    a->port = DEFAULT_PORT;
    int c;
    int64_t p;
    optind = 1;
    opterr = 0;
    /* shortopts begin with ':': a missing value is told apart (':') from an unknown option */
    while ((c = seg_next_option(argc, argv, ":o:qh", longopts, &a->o, &a->seeds, "flowcut ui")) != -1) {
        switch (c) {
        case SEG_BAD_OPTION: return EXIT_USAGE;
        case 'o': a->out = optarg; break;
        case O_PORT:
            if (parse_i64(optarg, 0, 65535, &p)) {
                DISPLAYLEVEL(1, "flowcut ui: --port needs a port number 0..65535\n");
                return EXIT_USAGE;
            }
            a->port = (int)p;
            break;
        case O_HOST: a->host = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default:
            cli_option_error("flowcut ui", longopts, argv, c);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        cli_usage_error("flowcut ui", "needs exactly one IMAGE");
        return EXIT_USAGE;
    }
    a->image = argv[optind];
    a->longopts = longopts;
    a->nwords = optind;
    return -1;
}

int cmd_ui(int argc, char **argv)
{
    ui_args a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0) {
        seg_args_done(&a.o);
        return status;
    }
#ifndef FLOWCUT_HAVE_UI
    DISPLAYLEVEL(1, "flowcut ui: this build has no web UI (libmicrohttpd was not found at build time)\n");
    seg_args_done(&a.o);
    return EXIT_FAIL;
#else
    char msg[1024];
    listen_addr addr;
    if (parse_host(a.host, &addr, msg, sizeof msg)) { /* before any other output */
        DISPLAYLEVEL(1, "flowcut ui: %s\n", msg);
        return EXIT_USAGE;
    }
    img_image photo = {0};
    uint8_t *labels = NULL;
    seg_session *session = NULL;
    char *mask_path = NULL, *cutout_path = NULL, *seeds_path = NULL, *previous_path = NULL;
    status = EXIT_FAIL;
    if (load_inputs(a.image, a.seeds, &a.o, &photo, &labels))
        goto done;
    if (output_paths(a.image, a.out, &mask_path, &cutout_path, &seeds_path, &previous_path)) {
        DISPLAYLEVEL(1, "flowcut ui: out of memory\n");
        goto done;
    }
    seg_session_options so;
    seg_session_options_default(&so);
    so.graph = a.o.graph;
    so.solve = a.o.solve;
    seg_error serr = {0};
    if (seg_session_open(photo.data, photo.width, photo.height, labels, &so, &session, &serr)) {
        DISPLAYLEVEL(1, "flowcut: %s: %s\n", a.image, serr.message);
        goto done;
    }
    /* bodies: a stroke of 4,096 points is about 100 kB. One address may
     * hold 64 connections when the page is exposed (a browser opens 6), so
     * one remote machine cannot take them all; on loopback every client
     * shares 127.0.0.1 and only the total limit applies. */
    const int replay = !replay_prefix(argv, a.nwords, a.longopts, a.image, seeds_path, a.replay, sizeof a.replay);
    ui_config cfg = {session, NULL, mask_path, cutout_path, seeds_path, previous_path, (size_t)1 << 20,
                     addr.loopback ? 0u : 64u, a.quiet, a.o.prompts, replay ? a.replay : NULL};
    /* the process is the session's: its cold cuts reuse released arrays */
    mf_alloc_cache_limit(seg_session_cache_bytes(session));
    status = serve(a.host, &addr, a.port, &cfg);
    mf_alloc_cache_limit(0);
done:
    seg_session_close(session);
    free(labels);
    free(mask_path);
    free(cutout_path);
    free(seeds_path);
    free(previous_path);
    img_free(&photo);
    seg_args_done(&a.o);
    return status;
#endif
}
