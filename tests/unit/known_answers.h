/* Known answers: detector inputs with results computed by hand from the
 * definitions in docs/analysis.md, not by the code under test. Each row is
 * a curve of throughputs (any unit) at chunks first << i, and the index the
 * detector must return (-1: it must not fire). Included by test_analysis.c. */
#ifndef STS_KNOWN_ANSWERS_H
#define STS_KNOWN_ANSWERS_H

#include <stdint.h>

struct ka_curve {
    const char *why;
    double v[16];
    uint32_t n;
    int want;
};

/* knee: the last chunk more than 25 % above every smaller one, the curve at
 * least doubled by then, one point after it */
static const struct ka_curve ka_knee[] = {
    {"study B0 reads: steep to 512 B, flat after",
     {150, 216, 311, 448, 645, 929, 1338, 1927, 2775, 4000, 4050}, 11, 9},
    {"flat: no knee", {100, 101, 99, 100, 102, 100}, 6, -1},
    {"still rising at the end", {1, 2, 4, 8, 16, 32}, 6, -1},
    {"FileX: flat 1..256 B, 2x at 512 B",
     {300, 302, 299, 301, 300, 303, 300, 301, 302, 610, 615}, 11, 9},
    {"a dip's recovery is no rise", {1, 2, 4, 8, 8.2, 5, 8.1, 8.3}, 8, 3},
    {"20 % per doubling triples without a knee", {100, 120, 144, 172, 207, 248, 298}, 7, -1},
    {"a step below 2x overall", {100, 100, 100, 170, 171, 172}, 6, -1},
};

/* plateau (10 %): the smallest chunk no larger chunk beats by more than 10 % */
static const struct ka_curve ka_plateau[] = {
    {"study B2 reads: from 64 KiB (index 6 from 1 KiB)",
     {1500, 2800, 5000, 7600, 10000, 12000, 13800, 14000, 14100, 13900, 14000, 14050}, 12, 6},
    {"climbing 3 % per doubling: 101 x 1.1 = 111.1 >= 111", {95, 98, 101, 104, 107, 110, 110.5, 111},
     8, 2},
    {"flat from the start", {100, 101, 99, 100, 102}, 5, 0},
    {"doubling to the end", {1, 2, 4, 8, 16, 32}, 6, -1},
};

/* dip (20 %): a chunk at least 20 % below both neighbours */
static const struct ka_curve ka_dip[] = {
    {"study B2 writes: 128 KiB (index 7 from 1 KiB)",
     {800, 1500, 2600, 4000, 5200, 6200, 6800, 4700, 6900, 7000, 7000, 7050}, 12, 7},
    {"wiggles are not dips",
     {1500, 2800, 5000, 7600, 10000, 12000, 13800, 14000, 14100, 13900, 14000, 14050}, 12, -1},
    {"19 % below is not enough", {100, 100, 81, 100, 100}, 5, -1},
    {"21 % below is", {100, 100, 79, 100, 100}, 5, 2},
};

#endif
