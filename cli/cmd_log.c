/* storscope log: sensorlog images on the host.
 *   log dump IMAGE [--stream NAME] [--csv]   decode a card image or device, read-only
 *   log demo IMAGE [--size SIZE] [--seconds N]  write a demo log (imu, ppg, env)
 * Both reach the medium through the raw: target, so a mounted device is
 * refused and dump never writes. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "sensorlog/sensorlog.h"
#include "storscope/posix.h"
#include "storscope/units.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct log_mem {
    struct sl_log log;
    struct sl_config cfg;
    uint8_t *ring, *chunk, *read;
    struct sl_seg_info *segs;
    struct sl_stream_info *streams;
};

static void log_mem_free(struct log_mem *m)
{
    free(m->ring);
    free(m->chunk);
    free(m->read);
    free(m->segs);
    free(m->streams);
}

static int log_mem_alloc(struct log_mem *m, struct sts_bd bd, uint32_t chunk, uint32_t seg_bytes,
                         uint64_t size, uint32_t max_streams)
{
    memset(m, 0, sizeof(*m));
    uint32_t n = (uint32_t)(size / seg_bytes);
    m->ring = malloc(65536);
    m->streams = calloc(max_streams ? max_streams : 1, sizeof(*m->streams));
    m->segs = calloc(n ? n : 1, sizeof(*m->segs));
    if (posix_memalign((void **)&m->chunk, 4096, chunk))
        m->chunk = NULL;
    if (posix_memalign((void **)&m->read, 4096, chunk))
        m->read = NULL;
    if (!m->ring || !m->segs || !m->chunk || !m->read || !m->streams)
        return SL_ENOMEM;
    m->cfg = (struct sl_config){.bd = bd, .size = size, .chunk_bytes = chunk,
                                .segment_bytes = seg_bytes, .buffer = m->ring,
                                .buffer_bytes = 65536, .chunk_buf = m->chunk,
                                .read_buf = m->read, .segs = m->segs, .n_segs = n,
                                .streams = m->streams, .max_streams = max_streams};
    return SL_OK;
}

static int open_raw(struct sts_target *t, const char *path, int writable)
{
    struct sts_target_spec spec;
    const char *why = NULL;
    char spec_text[600], err[256] = "";
    snprintf(spec_text, sizeof(spec_text), "raw:%s", path);
    if (sts_target_spec_parse(spec_text, &spec, &why)) {
        cli_error("bad image path '%s': %s", path, why);
        return -1;
    }
    memset(t, 0, sizeof(*t));
    t->allow_destructive = writable;
    if (sts_target_raw.open(t, &spec, err, sizeof(err))) {
        cli_error("%s", err);
        return -1;
    }
    return 0;
}

/* The geometry is in the first segment header; any header would do. */
static int probe(struct sts_bd *bd, uint32_t *chunk, uint32_t *seg, uint32_t *n,
                 uint32_t *max_streams)
{
    uint8_t *hdr;
    if (posix_memalign((void **)&hdr, 4096, 4096))
        return -1;
    int rc = bd->ops->read(bd->ctx, 0, hdr, 4096);
    int ok = !rc && !memcmp(hdr, "SLSG", 4);
    if (ok) {
        *chunk = (uint32_t)hdr[32] | (uint32_t)hdr[33] << 8 | (uint32_t)hdr[34] << 16 |
                 (uint32_t)hdr[35] << 24;
        *seg = (uint32_t)hdr[36] | (uint32_t)hdr[37] << 8 | (uint32_t)hdr[38] << 16 |
               (uint32_t)hdr[39] << 24;
        *n = (uint32_t)hdr[40] | (uint32_t)hdr[41] << 8 | (uint32_t)hdr[42] << 16 |
             (uint32_t)hdr[43] << 24;
        *max_streams = (uint32_t)hdr[48] | (uint32_t)hdr[49] << 8 | (uint32_t)hdr[50] << 16 |
                       (uint32_t)hdr[51] << 24;
        ok = *chunk >= 1024 && *seg >= 2 * *chunk && *n >= 3;
    }
    free(hdr);
    return ok ? 0 : -1;
}

static int dump(const char *path, const char *stream, int csv)
{
    struct sts_target t;
    if (open_raw(&t, path, 0))
        return EXIT_USAGE;
    uint32_t chunk, seg, n, max_streams;
    if (probe(t.bd, &chunk, &seg, &n, &max_streams) || max_streams > SL_MAX_STREAMS) {
        cli_error("%s holds no sensorlog log (no segment header at offset 0)", path);
        sts_target_raw.close(&t);
        return EXIT_USAGE;
    }
    struct log_mem m;
    int rc = log_mem_alloc(&m, *t.bd, chunk, seg, (uint64_t)seg * n, max_streams);
    if (!rc)
        rc = sl_mount(&m.log, &m.cfg);
    uint16_t id = 0;
    if (!rc && stream && sl_stream_open(&m.log, stream, &id)) {
        cli_error("%s has no stream '%s'", path, stream);
        rc = SL_ENOENT;
        stream = NULL;
    }
    if (rc) {
        if (stream || rc != SL_ENOENT)
            cli_error("cannot mount the log in %s: %s", path,
                      rc == SL_ECORRUPT ? "unknown format version or geometry" : "I/O error");
        log_mem_free(&m);
        sts_target_raw.close(&t);
        return EXIT_USAGE;
    }
    if (csv)
        printf("gseq,stream,timestamp,bytes,data_hex\n");
    struct sl_iter it;
    struct sl_record r;
    uint64_t count = 0;
    sl_iter_from_gseq(&m.log, &it, id, 0);
    while (sl_iter_next(&it, &r) == SL_OK) {
        const struct sl_stream_info *si = sl_stream_info(&m.log, r.stream);
        const char *name = si ? si->name : "?";
        if (csv)
            printf("%llu,%s,%llu,%u,", (unsigned long long)r.gseq, name,
                   (unsigned long long)r.ts, r.len);
        else
            printf("%10llu  %-15s  ts %-14llu  %3u B  ", (unsigned long long)r.gseq, name,
                   (unsigned long long)r.ts, r.len);
        for (unsigned i = 0; i < r.len; i++)
            printf("%02x", r.data[i]);
        putchar('\n');
        count++;
    }
    if (!csv) {
        struct sl_stats st;
        sl_stats(&m.log, &st);
        fprintf(stderr, "%llu records; %u segments of %u KiB, %u-byte chunks; wear %u..%u "
                        "erases per segment\n",
                (unsigned long long)count, n, seg / 1024, chunk, st.erase_min, st.erase_max);
    }
    log_mem_free(&m);
    sts_target_raw.close(&t);
    return EXIT_OK;
}

/* A demo log: 3 sensors sampled for `seconds`, synced once a second. */
static int demo(const char *path, uint64_t size, uint64_t seconds)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        cli_error("cannot create %s (it must not exist yet)", path);
        return EXIT_USAGE;
    }
    int trunc = ftruncate(fd, (off_t)size);
    close(fd);
    struct sts_target t;
    if (trunc || open_raw(&t, path, 1)) {
        unlink(path);
        return EXIT_USAGE;
    }
    struct log_mem m;
    int rc = log_mem_alloc(&m, *t.bd, 4096, 65536, size / 65536 * 65536, 16);
    if (!rc)
        rc = sl_format(&m.log, &m.cfg);
    uint16_t imu = 0, ppg = 0, env = 0;
    if (!rc)
        rc = sl_stream_create(&m.log, "imu", &imu);
    if (!rc)
        rc = sl_stream_create(&m.log, "ppg", &ppg);
    if (!rc)
        rc = sl_stream_create(&m.log, "env", &env);
    for (uint64_t ms = 0; !rc && ms < seconds * 1000; ms++) {
        uint64_t ts = ms * 1000000ull; /* ns */
        int16_t acc[6] = {(int16_t)(ms % 100), (int16_t)(-(int)(ms % 37)), 1000, 0, 1, 2};
        rc = sl_append(&m.log, imu, ts, acc, sizeof(acc));
        if (!rc && ms % 10 == 0) {
            uint32_t ppg_v[6] = {(uint32_t)ms, 2, 3, 4, 5, 6};
            rc = sl_append(&m.log, ppg, ts, ppg_v, sizeof(ppg_v));
        }
        if (!rc && ms % 1000 == 0) {
            char text[64];
            int len = snprintf(text, sizeof(text), "t=%llus temp=21.5C rh=40%%",
                               (unsigned long long)(ms / 1000));
            rc = sl_append(&m.log, env, ts, text, (size_t)len);
        }
        while (!rc && (rc = sl_pump(&m.log)) == SL_BUSY)
            rc = 0;
        if (!rc && ms % 1000 == 999)
            rc = sl_sync(&m.log);
    }
    if (!rc)
        rc = sl_sync(&m.log);
    log_mem_free(&m);
    sts_target_raw.close(&t);
    if (rc) {
        cli_error("writing the demo log failed (%d)", rc);
        unlink(path);
        return EXIT_RUN_FAILED;
    }
    printf("%s: a sensorlog with streams imu (1 kHz), ppg (100 Hz), env (1 Hz), %llu s\n", path,
           (unsigned long long)seconds);
    return EXIT_OK;
}

static void log_usage(FILE *f)
{
    fputs("usage: storscope log dump IMAGE [--stream NAME] [--csv]\n"
          "       storscope log demo IMAGE [--size SIZE] [--seconds N]\n"
          "\n"
          "dump decodes a sensorlog on a card image or block device (read-only; a\n"
          "mounted device is refused): one line per record, or CSV with --csv.\n"
          "demo writes a new image holding a small log of three sensor streams.\n",
          f);
}

int cmd_log(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"stream", required_argument, NULL, 's'}, {"csv", no_argument, NULL, 'c'},
        {"size", required_argument, NULL, 'z'},   {"seconds", required_argument, NULL, 'n'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    if (argc < 2 || (strcmp(argv[1], "dump") && strcmp(argv[1], "demo"))) {
        if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            log_usage(stdout);
            return EXIT_OK;
        }
        cli_error(argc < 2 ? "log needs a subcommand" : "unknown log subcommand '%s'",
                  argc < 2 ? "" : argv[1]);
        log_usage(stderr);
        return EXIT_USAGE;
    }
    int is_dump = !strcmp(argv[1], "dump"), csv = 0, ch;
    const char *stream = NULL;
    uint64_t size = 1ull << 20, seconds = 10;
    opterr = 0;
    optind = 1;
    while ((ch = getopt_long(argc - 1, argv + 1, ":h", longopts, NULL)) != -1) {
        switch (ch) {
        case 's': stream = optarg; break;
        case 'c': csv = 1; break;
        case 'z':
            if (sts_parse_size(optarg, &size) || size < (256u << 10)) {
                cli_error("bad --size '%s' (at least 256K)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'n':
            if (sts_parse_u64(optarg, &seconds) || !seconds || seconds > 86400) {
                cli_error("bad --seconds '%s' (1 .. 86400)", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': log_usage(stdout); return EXIT_OK;
        case ':': cli_error("option '%s' needs a value", argv[optind]); return EXIT_USAGE;
        default: cli_error("unknown option '%s'", argv[optind]); return EXIT_USAGE;
        }
    }
    char **sub = argv + 1; /* getopt saw argv[1..]: its non-options end up from optind */
    if (argc - 1 - optind != 1) {
        cli_error("log %s needs one IMAGE", argv[1]);
        return EXIT_USAGE;
    }
    const char *image = sub[optind];
    return is_dump ? dump(image, stream, csv) : demo(image, size, seconds);
}
