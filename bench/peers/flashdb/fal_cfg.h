/* FAL's tables for the peers bench: one flash device per simulated medium,
 * each a single partition FlashDB's TSDB takes whole. The devices' ops are
 * in peer_flashdb.c (they forward to the simulated device of the run). */
#ifndef _FAL_CFG_H_
#define _FAL_CFG_H_
extern const struct fal_flash_dev peer_fal_nor, peer_fal_nor1m, peer_fal_managed;
#define FAL_PRINTF(...) ((void)0)
#define FAL_FLASH_DEV_TABLE {&peer_fal_nor, &peer_fal_nor1m, &peer_fal_managed}
#define FAL_PART_HAS_TABLE_CFG
#define FAL_PART_TABLE                                                              \
    {                                                                               \
        {FAL_PART_MAGIC_WORD, "nor_db", "peer_nor", 0, 16 * 1024 * 1024, 0},        \
        {FAL_PART_MAGIC_WORD, "nor1m_db", "peer_nor1m", 0, 1024 * 1024, 0},         \
        {FAL_PART_MAGIC_WORD, "managed_db", "peer_managed", 0, 256 * 1024 * 1024, 0}, \
    }
#endif
