/* What every third-party adapter must do, checked the same way for each:
 * missing files and existing directories come back as storscope's codes,
 * data written reads back at any offset and to the end, a directory that
 * is not empty is not removed, and a removed file's space returns. */
#ifndef STORSCOPE_ADAPTER_CHECK_H
#define STORSCOPE_ADAPTER_CHECK_H

#include "storscope/error.h"
#include "storscope/fs.h"

#include <stdio.h>
#include <string.h>

static int adapter_failures;
#define EXPECT(cond)                                                                     \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);         \
            adapter_failures++;                                                          \
        }                                                                                \
    } while (0)

/* slack: bytes a filesystem may keep after the file and its directory are
 * gone (metadata blocks); the directory's own allocation comes back */
static int check_adapter(const char *name, struct sts_fs fs, uint64_t slack)
{
    const struct sts_fs_ops *o = fs.ops;
    sts_fh fh;
    static uint8_t buf[100000], got[100000];
    const char *path = "d/a_long_file_name.bin";
    EXPECT(o->open(fs.ctx, "missing", STS_O_RDONLY, &fh) == STS_ENOENT);
    struct sts_statvfs before, with_file, after;
    EXPECT(o->statvfs(fs.ctx, &before) == STS_OK);
    EXPECT(o->mkdir(fs.ctx, "d") == STS_OK);
    EXPECT(o->mkdir(fs.ctx, "d") == STS_EEXIST);
    EXPECT(o->open(fs.ctx, path, STS_O_WRONLY | STS_O_CREAT | STS_O_TRUNC, &fh) == STS_OK);
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 31 + 7);
    size_t done = 0;
    EXPECT(o->write(fs.ctx, fh, buf, sizeof(buf), &done) == STS_OK && done == sizeof(buf));
    EXPECT(o->sync(fs.ctx, fh, STS_SYNC_FULL) == STS_OK);
    EXPECT(o->close(fs.ctx, fh) == STS_OK);
    EXPECT(o->close(fs.ctx, fh) == STS_EINVAL);
    EXPECT(o->rmdir(fs.ctx, "d") == STS_EBUSY); /* not empty */
    struct sts_stat st;
    EXPECT(o->stat(fs.ctx, path, &st) == STS_OK && st.size == sizeof(buf) && !st.is_dir);
    EXPECT(o->stat(fs.ctx, "d", &st) == STS_OK && st.is_dir);
    EXPECT(o->stat(fs.ctx, "nothing", &st) == STS_ENOENT);
    /* opened again for writing, without truncation: it writes from the
     * start, over what is there (FileX opens a file for writing at its
     * end: its adapter appended, and S1 grew its files pass after pass) */
    uint8_t head[100];
    for (size_t i = 0; i < sizeof(head); i++)
        head[i] = (uint8_t)~buf[i];
    EXPECT(o->open(fs.ctx, path, STS_O_WRONLY, &fh) == STS_OK);
    EXPECT(o->write(fs.ctx, fh, head, sizeof(head), &done) == STS_OK && done == sizeof(head));
    EXPECT(o->close(fs.ctx, fh) == STS_OK);
    EXPECT(o->stat(fs.ctx, path, &st) == STS_OK && st.size == sizeof(buf));
    memcpy(buf, head, sizeof(head));
    EXPECT(o->open(fs.ctx, path, STS_O_RDONLY, &fh) == STS_OK);
    EXPECT(o->seek(fs.ctx, fh, 54321) == STS_OK);
    EXPECT(o->read(fs.ctx, fh, got, 1000, &done) == STS_OK && done == 1000);
    EXPECT(memcmp(got, buf + 54321, 1000) == 0);
    EXPECT(o->seek(fs.ctx, fh, 0) == STS_OK);
    EXPECT(o->read(fs.ctx, fh, got, sizeof(got), &done) == STS_OK && done == sizeof(got));
    EXPECT(memcmp(got, buf, sizeof(buf)) == 0);
    EXPECT(o->read(fs.ctx, fh, got, 10, &done) == STS_OK && done == 0); /* end of file */
    EXPECT(o->close(fs.ctx, fh) == STS_OK);
    EXPECT(o->statvfs(fs.ctx, &with_file) == STS_OK &&
           with_file.free_bytes + sizeof(buf) <= before.free_bytes);
    EXPECT(o->unlink(fs.ctx, path) == STS_OK);
    EXPECT(o->unlink(fs.ctx, path) == STS_ENOENT);
    EXPECT(o->rmdir(fs.ctx, "d") == STS_OK);
    EXPECT(o->statvfs(fs.ctx, &after) == STS_OK &&
           after.free_bytes >= with_file.free_bytes + sizeof(buf) &&
           after.free_bytes + slack >= before.free_bytes);
    printf("%s adapter: %s\n", name, adapter_failures ? "FAILED" : "ok");
    return adapter_failures != 0;
}

#endif
