/* invertbd: flash that erases to 0x00 seen as flash that erases to 0xFF,
 * over any struct sts_bd. Most NOR and NAND erase to 0xFF and a program
 * clears bits; some MCUs' internal flash (STM32L0/L1 data EEPROM, several
 * Renesas RA and NXP parts) erases to 0x00 and a program sets them. A store
 * that looks for 0xFF blanks - sensorlog, like most log stores - stacks this
 * under it: every byte is inverted on its way in and out, so blank reads
 * 0xFF and a program clears bits again. What the store writes to the chip
 * is then the complement of what it meant, which nothing but this decorator
 * reads. The device's geometry says which it is: STS_BD_ERASES_TO_ZERO
 * (storscope's +sensorlog and `log` insert it themselves).
 *
 * A program is inverted into the caller's buffer: give one as large as the
 * largest program (a store's chunk), so that a program stays one command
 * (a larger one is programmed in pieces of the buffer, each its own
 * command). The non-blocking path is not offered; erase suspend is, where
 * the device has it. Portable: no heap, no OS calls. */
#ifndef STORSCOPE_INVERTBD_H
#define STORSCOPE_INVERTBD_H

#include "storscope/device.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sts_invertbd {
    struct sts_bd lower;
    struct sts_bd_ops ops;
    uint8_t *buf;     /* where a program is inverted, lent by the caller */
    size_t buf_bytes; /* >= the largest program, or it goes in pieces */
};

void sts_invertbd_init(struct sts_invertbd *v, const struct sts_bd *lower, void *buf,
                       size_t buf_bytes, struct sts_bd *out);

#ifdef __cplusplus
}
#endif
#endif
