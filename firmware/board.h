/* The board template: what a board must provide to run storscope. Copy
 * board_qemu_an505.c, fill in these functions for your MCU (console,
 * exit, tick clock set-up), and link your block device where the suite
 * image uses the simulator. */
#ifndef STORSCOPE_BOARD_H
#define STORSCOPE_BOARD_H

#include <stddef.h>
#include <stdint.h>

void board_init(void);                 /* clocks, tick timer, console */
void board_puts(const char *s);        /* console output, NUL-terminated */
void board_write(const char *s, uint32_t n);
/* board_write in the shape of a JSON sink's writer (ctx unused): results
 * go to the console. */
int board_sink_write(void *ctx, const char *s, size_t n);
__attribute__((noreturn)) void board_exit(int code); /* end of the run */
/* The host's command line for the image, NUL-terminated in buf (n bytes):
 * 0, or -1 (and "") where the board has none. Optional: only images that
 * take arguments call it. */
int board_cmdline(char *buf, uint32_t n);

#endif
