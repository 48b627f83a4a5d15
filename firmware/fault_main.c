/* A deliberate bus fault: the fault handler must report it and the image
 * must exit non-zero, so a crash can never pass as a success. */
#include <stdint.h>

int main(void)
{
    /* past the end of the 4 MiB SSRAM-1/2 window: a precise BusFault */
    volatile uint32_t *nowhere = (volatile uint32_t *)0x38800000u;
    return (int)*nowhere;
}
