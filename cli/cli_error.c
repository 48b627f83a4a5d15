/* The CLI's one way of saying what went wrong, on stderr. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
    size_t n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 && p[0] >= 0xC2 ? 2
               : (p[0] & 0xF0) == 0xE0                  ? 3
               : (p[0] & 0xF8) == 0xF0 && p[0] <= 0xF4  ? 4
                                                        : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* A message names what the user typed, which may be any bytes (a path is
 * not text): bytes that are not UTF-8, and control characters, are shown
 * as \xNN so the terminal shows what was given and nothing else. */
void cli_error(const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fputs("storscope: ", stderr);
    for (const unsigned char *p = (const unsigned char *)msg; *p;) {
        size_t n = utf8_len(p);
        if (n == 1 && (*p < 0x20 || *p == 0x7F) && *p != '\n' && *p != '\t')
            n = 0;
        if (n) {
            fwrite(p, 1, n, stderr);
            p += n;
        } else {
            fprintf(stderr, "\\x%02X", *p++);
        }
    }
    fputc('\n', stderr);
}

void cli_catch_stop_signals(void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}
