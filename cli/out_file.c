/* Output files that never exist half-written, and that are never a reason
 * to replace what the user named: a regular file grows in PATH.partial and
 * takes PATH's name only when written whole; through a symbolic link, the
 * file it names does (the link stays a link); a device or a FIFO
 * (/dev/stdout, /dev/null) is written where it is, as renaming over it
 * would replace the device node, and removing it after a failure would
 * delete it. */
#define _GNU_SOURCE /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_out_open(struct cli_out *o, const char *option, const char *path)
{
    memset(o, 0, sizeof(*o));
    o->path = path;
    struct stat st;
    int in_place = 0;
    /* a link's file takes the new content, the link stays: rename onto
     * where it points (a dangling link is written through, in place) */
    if (!lstat(path, &st) && S_ISLNK(st.st_mode))
        in_place = !realpath(path, o->real);
    const char *file = o->real[0] ? o->real : path;
    if (!in_place && !stat(file, &st)) {
        if (S_ISDIR(st.st_mode)) {
            cli_error("%s %s is a directory (give a file name)", option, path);
            return -1;
        }
        in_place = !S_ISREG(st.st_mode);
        o->replaces = !in_place;
        o->mode = (unsigned)st.st_mode & 07777;
    }
    if (!in_place && snprintf(o->partial, sizeof(o->partial), "%s.partial", file) >=
                         (int)sizeof(o->partial)) {
        cli_error("%s %s: path too long", option, path);
        return -1;
    }
    o->f = fopen(in_place ? path : o->partial, "we");
    if (!o->f) {
        cli_error("cannot write %s %s: %s", option, path, strerror(errno));
        return -1;
    }
    /* the file renamed over PATH keeps PATH's mode and owner: results a
     * user made private (0600) did not stay private */
    if (o->replaces && (fchmod(fileno(o->f), (mode_t)o->mode) ||
                        (geteuid() == 0 && fchown(fileno(o->f), st.st_uid, st.st_gid)))) {
        cli_error("cannot give %s %s the mode and owner of the file it replaces: %s", option,
                  o->partial, strerror(errno));
        fclose(o->f);
        o->f = NULL;
        unlink(o->partial);
        return -1;
    }
    return 0;
}

/* Makes a rename in path's directory durable (POSIX: the directory's own
 * fsync). */
static int sync_dir_of(const char *path)
{
    char d[4096];
    if (snprintf(d, sizeof(d), "%s", path) >= (int)sizeof(d))
        return -1;
    int fd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static int out_failed(struct cli_out *o)
{
    if (!o->err)
        o->err = errno ? errno : EIO;
    return -1;
}

int cli_out_write(void *out, const char *s, size_t n)
{
    struct cli_out *o = out;
    return fwrite(s, 1, n, o->f) == n ? 0 : out_failed(o);
}

int cli_out_flush(void *out)
{
    struct cli_out *o = out;
    return fflush(o->f) == 0 ? 0 : out_failed(o);
}

int cli_out_close(struct cli_out *o, int keep)
{
    if (!o->f)
        return 0;
    int bad = ferror(o->f), err = o->err;
    /* the content on the medium before its name moves onto it: a power cut
     * after the rename then never leaves an empty PATH */
    if (!bad && keep && o->partial[0] && (fflush(o->f) || fsync(fileno(o->f)))) {
        bad = 1;
        err = err ? err : errno;
    }
    if (fclose(o->f)) {
        bad = 1;
        if (!err)
            err = errno; /* the last buffer's write, e.g. ENOSPC */
    }
    o->f = NULL;
    if (bad && keep)
        cli_error("error writing %s: %s", o->path, err ? strerror(err) : "a write failed");
    if (o->partial[0] && (bad || !keep))
        unlink(o->partial); /* a regular file of ours: nothing half-written stays */
    else if (o->partial[0] && rename(o->partial, o->real[0] ? o->real : o->path)) {
        cli_error("cannot rename %s to %s: %s", o->partial, o->path, strerror(errno));
        return -1;
    } else if (o->partial[0] && sync_dir_of(o->real[0] ? o->real : o->path)) {
        cli_error("cannot make %s's new name durable: %s", o->path, strerror(errno));
        return -1;
    }
    return bad ? -1 : 0;
}

/* path with its directory resolved (links followed), into out */
static int resolved(const char *path, char *out, size_t n)
{
    char d[4096], b[4096], dir_real[4096];
    if (snprintf(d, sizeof(d), "%s", path) >= (int)sizeof(d) ||
        snprintf(b, sizeof(b), "%s", path) >= (int)sizeof(b) || !realpath(dirname(d), dir_real))
        return -1;
    return snprintf(out, n, "%s/%s", dir_real, basename(b)) >= (int)n ? -1 : 0;
}

int cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) /* both there: the same inode (a link to the other counts) */
        return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb)
        return 0;
    char ra[8192], rb[8192];
    return !resolved(a, ra, sizeof(ra)) && !resolved(b, rb, sizeof(rb)) && !strcmp(ra, rb);
}
