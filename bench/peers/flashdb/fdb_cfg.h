/* FlashDB's configuration for the peers bench: the time-series database
 * only, on FAL partitions (fal_cfg.h), written bit-granular as NOR allows
 * (FDB_WRITE_GRAN 1). Quiet: the bench prints its own table. */
#ifndef _FDB_CFG_H_
#define _FDB_CFG_H_
#define FDB_USING_TSDB
#define FDB_USING_FAL_MODE
#define FDB_WRITE_GRAN 1
#define FDB_PRINT(...) ((void)0)
#endif
