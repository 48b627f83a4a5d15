/* probe_identity.h: SD and eMMC registers from sysfs. */
#define _DEFAULT_SOURCE /* realpath */
#include "probe_identity.h"
#include "storscope/units.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mmc/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int read_attr(const char *dir, const char *name, char *buf, size_t n)
{
    char path[640];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t got = fread(buf, 1, n - 1, f);
    fclose(f);
    buf[got] = '\0';
    while (got && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
        buf[--got] = '\0';
    return got ? 0 : -1;
}


/* The kernel's debugfs ext_csd: 1024 hex digits and a newline. */
static int ext_csd_from_text(const char *path, uint8_t x[512])
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char text[1100];
    size_t got = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[got] = '\0';
    return sts_hex_bytes(text, x, 512) ? -2 : 0;
}

/* CMD8 (SEND_EXT_CSD) through the block device, as mmc-utils sends it. */
static int ext_csd_from_ioctl(const char *dev, uint8_t x[512])
{
    int fd = open(dev, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct mmc_ioc_cmd c;
    memset(&c, 0, sizeof(c));
    c.opcode = 8;                              /* MMC_SEND_EXT_CSD */
    /* R1 (present, CRC, opcode), its SPI form, a data transfer command */
    c.flags = (1u << 0) | (1u << 2) | (1u << 4) | (1u << 7) | (1u << 5);
    c.blksz = 512;
    c.blocks = 1;
    mmc_ioc_cmd_set_data(c, x);
    int rc = ioctl(fd, MMC_IOC_CMD, &c) ? errno : 0;
    close(fd);
    return rc;
}

/* An eMMC's EXT_CSD: the fixture's or debugfs's text, else the ioctl. */
static void read_ext_csd(const struct sts_target_spec *spec, struct identity *id)
{
    static uint8_t x[512];
    char path[PATH_MAX + 64], real[PATH_MAX];
    snprintf(path, sizeof(path), "%s/ext_csd", id->dir);
    int rc = ext_csd_from_text(path, x);
    if (rc == -1 && realpath(id->dir, real)) { /* .../mmc_host/mmc0/mmc0:0001 */
        const char *card = strrchr(real, '/');
        card = card ? card + 1 : real;
        snprintf(path, sizeof(path), "/sys/kernel/debug/%.*s/%s/ext_csd",
                 (int)strcspn(card, ":"), card, card);
        rc = ext_csd_from_text(path, x);
    }
    if (rc == 0) {
        snprintf(id->ext_source, sizeof(id->ext_source), "debugfs");
    } else {
        int e = strcmp(spec->kind, "raw") ? ENOTBLK : ext_csd_from_ioctl(spec->arg, x);
        if (e) {
            snprintf(id->ext_why, sizeof(id->ext_why),
                     "EXT_CSD not read: no debugfs ext_csd (mount debugfs, as root) and the "
                     "MMC_IOC_CMD ioctl failed (%s)", strerror(e));
            return;
        }
        snprintf(id->ext_source, sizeof(id->ext_source), "MMC_IOC_CMD");
    }
    if (sts_mmc_ext_csd_parse(x, &id->ext)) {
        snprintf(id->ext_why, sizeof(id->ext_why), "EXT_CSD read through %s is not one "
                 "(revision %u, no sector count)", id->ext_source, x[192]);
        id->ext_source[0] = '\0';
        return;
    }
    id->has_ext_csd = 1;
}

void probe_identity(const struct sts_target_spec *spec, struct identity *id)
{
    memset(id, 0, sizeof(*id));
    const char *over = getenv("STORSCOPE_SYSFS_DEVICE");
    struct stat st;
    if (over && over[0]) {
        snprintf(id->dir, sizeof(id->dir), "%s", over);
    } else if (!strcmp(spec->kind, "raw") && !stat(spec->arg, &st) && S_ISBLK(st.st_mode)) {
        char probe_path[600];
        snprintf(id->dir, sizeof(id->dir), "/sys/dev/block/%u:%u/device", major(st.st_rdev),
                 minor(st.st_rdev));
        snprintf(probe_path, sizeof(probe_path), "%s/type", id->dir);
        if (access(probe_path, R_OK))
            snprintf(id->dir, sizeof(id->dir), "/sys/dev/block/%u:%u/../device",
                     major(st.st_rdev), minor(st.st_rdev));
    } else {
        return;
    }
    if (read_attr(id->dir, "type", id->type, sizeof(id->type))) {
        id->dir[0] = '\0'; /* not an SD or MMC device: nothing to say */
        return;
    }
    if (id->type[0] >= '0' && id->type[0] <= '9') {
        /* a SCSI device type (0: a disk): a USB card reader or an SSD.
         * Printed as SD fields it read "identity: 0 ?, manufacturer ?" */
        snprintf(id->type, sizeof(id->type), "SCSI");
        (void)read_attr(id->dir, "vendor", id->vendor, sizeof(id->vendor));
        (void)read_attr(id->dir, "model", id->model, sizeof(id->model));
        (void)read_attr(id->dir, "rev", id->fwrev, sizeof(id->fwrev));
        return;
    }
    char hex[80];
    uint8_t reg[16];
    if (!strcmp(id->type, "SD")) {
        id->has_cid = !read_attr(id->dir, "cid", hex, sizeof(hex)) &&
                      !sts_hex_bytes(hex, reg, 16) && !sts_sd_cid_parse(reg, &id->cid);
        id->has_csd = !read_attr(id->dir, "csd", hex, sizeof(hex)) &&
                      !sts_hex_bytes(hex, reg, 16) && !sts_sd_csd_parse(reg, &id->csd);
        id->has_scr = !read_attr(id->dir, "scr", hex, sizeof(hex)) &&
                      !sts_hex_bytes(hex, reg, 8) && !sts_sd_scr_parse(reg, &id->scr);
        char ssr_hex[160];
        uint8_t ssr[64];
        id->has_ssr = !read_attr(id->dir, "ssr", ssr_hex, sizeof(ssr_hex)) &&
                      !sts_hex_bytes(ssr_hex, ssr, 64) && !sts_sd_ssr_parse(ssr, &id->ssr);
    }
    /* the kernel's erase sizes (bytes; for SD the preferred one is the AU) */
    char num[32];
    if (!read_attr(id->dir, "preferred_erase_size", num, sizeof(num)))
        id->pref_erase = strtoull(num, NULL, 10);
    if (!read_attr(id->dir, "erase_size", num, sizeof(num)))
        id->erase = strtoull(num, NULL, 10);
    /* what the kernel decoded (eMMC: its CID layout differs; health) */
    (void)read_attr(id->dir, "name", id->name, sizeof(id->name));
    (void)read_attr(id->dir, "manfid", id->manfid, sizeof(id->manfid));
    (void)read_attr(id->dir, "oemid", id->oemid, sizeof(id->oemid));
    (void)read_attr(id->dir, "date", id->date, sizeof(id->date));
    (void)read_attr(id->dir, "fwrev", id->fwrev, sizeof(id->fwrev));
    (void)read_attr(id->dir, "life_time", id->life_time, sizeof(id->life_time));
    (void)read_attr(id->dir, "pre_eol_info", id->pre_eol, sizeof(id->pre_eol));
    if (!strcmp(id->type, "MMC"))
        read_ext_csd(spec, id);
}

/* eMMC DEVICE_LIFE_TIME_EST: 0x01 = 0-10 % of its life used ... 0x0B beyond */
static const char *life_text(unsigned v, char *buf, size_t n)
{
    if (v >= 1 && v <= 10)
        snprintf(buf, n, "%u-%u %% used", (v - 1) * 10, v * 10);
    else
        snprintf(buf, n, v == 11 ? "beyond its life" : "not stated");
    return buf;
}

static const char *eol_text(unsigned v)
{
    return v == 1 ? "normal" : v == 2 ? "warning (80 % of reserved blocks used)"
                  : v == 3 ? "urgent (90 % of reserved blocks used)" : "not stated";
}

unsigned probe_identity_bus_lines(const struct identity *id)
{
    return id->has_scr && (id->scr.bus_widths & 4) ? 4 : 1;
}

void probe_identity_print(FILE *f, const struct identity *id)
{
    if (!id->dir[0])
        return;
    if (!strcmp(id->type, "SCSI")) {
        fprintf(f, "  identity: a disk behind a USB or SCSI bridge: vendor %s, model %s, "
                   "firmware %s (the bridge's, as a card reader reports itself: the card's "
                   "own registers are not visible through it)\n",
                id->vendor[0] ? id->vendor : "?", id->model[0] ? id->model : "?",
                id->fwrev[0] ? id->fwrev : "?");
        return;
    }
    if (id->has_cid)
        fprintf(f, "  identity: SD card %s, manufacturer 0x%02x, OEM %s, revision %u.%u, "
                   "serial 0x%08x, made %02u/%u\n",
                id->cid.name, id->cid.manfid, id->cid.oemid, id->cid.hwrev, id->cid.fwrev,
                id->cid.serial, id->cid.month, id->cid.year);
    else
        fprintf(f, "  identity: %s %s, manufacturer %s, OEM %s, firmware %s, made %s\n",
                id->type, id->name[0] ? id->name : "?", id->manfid[0] ? id->manfid : "?",
                id->oemid[0] ? id->oemid : "?", id->fwrev[0] ? id->fwrev : "?",
                id->date[0] ? id->date : "?");
    if (id->has_csd) {
        char a[32];
        sts_fmt_bytes(a, sizeof(a), id->csd.capacity);
        /* TRAN_SPEED is a rate a data line: the card moves bus-width times
         * that (printed alone it was 4x low for a 4-bit card) */
        unsigned lines = probe_identity_bus_lines(id);
        fprintf(f, "    CSD %u.0: %s claimed, up to %u Mbit/s a data line: %u Mbit/s "
                   "(%.1f MB/s) on its %u-bit bus%s\n", id->csd.version, a,
                (unsigned)(id->csd.max_rate / 1000000u),
                (unsigned)(id->csd.max_rate / 1000000u * lines),
                id->csd.max_rate / 8.0 * lines / 1e6, lines,
                id->has_scr ? "" : " (no SCR: taken as 1 bit)");
    }
    if (id->has_scr)
        fprintf(f, "    SCR: SD spec %s, %s bus, %s\n", id->scr.spec,
                id->scr.bus_widths & 4 ? "4-bit" : "1-bit",
                id->scr.security == 4 ? "SDXC" : id->scr.security == 3 ? "SDHC" : "SDSC");
    if (id->has_ssr) {
        const struct sts_sd_ssr *s = &id->ssr;
        char au[32], uau[32], cls[64] = "";
        sts_fmt_bytes(au, sizeof(au), s->au_bytes);
        sts_fmt_bytes(uau, sizeof(uau), s->uhs_au_bytes);
        size_t k = (size_t)snprintf(cls, sizeof(cls), "Class %u", s->speed_class);
        if (s->uhs_grade)
            k += (size_t)snprintf(cls + k, sizeof(cls) - k, ", U%u", s->uhs_grade);
        if (s->video_class)
            k += (size_t)snprintf(cls + k, sizeof(cls) - k, ", V%u", s->video_class);
        if (s->app_class)
            snprintf(cls + k, sizeof(cls) - k, ", A%u", s->app_class);
        fprintf(f, "    SD Status: %s; allocation unit %s, erased %u at a time; %s\n", cls,
                s->au_bytes ? au : "not stated", s->erase_aus,
                s->discard ? "discard supported" : "no discard");
        if (s->uhs_au_bytes)
            fprintf(f, "      (the UHS AU %s applies in UHS modes)\n", uau);
    }
    if (id->pref_erase || id->erase) {
        char pe[32], es[32];
        sts_fmt_bytes(pe, sizeof(pe), id->pref_erase);
        sts_fmt_bytes(es, sizeof(es), id->erase);
        fprintf(f, "    kernel: preferred erase size %s, erase size %s\n",
                id->pref_erase ? pe : "not given", id->erase ? es : "not given");
    }
    unsigned a, b, e;
    char ta[32], tb[32];
    if (sscanf(id->life_time, "%x %x", &a, &b) == 2)
        fprintf(f, "    wear: life time estimate A %s, B %s\n", life_text(a, ta, sizeof(ta)),
                life_text(b, tb, sizeof(tb)));
    if (sscanf(id->pre_eol, "%x", &e) == 1)
        fprintf(f, "    pre-EOL: %s\n", eol_text(e));
    if (id->has_ext_csd) {
        const struct sts_mmc_ext_csd *x = &id->ext;
        char cap[32], eg[32];
        sts_fmt_bytes(cap, sizeof(cap), x->capacity);
        sts_fmt_bytes(eg, sizeof(eg), x->erase_group);
        fprintf(f, "    EXT_CSD (%s): eMMC %s, %s, cache %u KiB, erase group %s%s%s\n",
                id->ext_source, x->version, cap, (unsigned)x->cache_kib, eg,
                x->firmware[0] ? ", firmware " : "", x->firmware);
        if (x->rev >= 7)
            fprintf(f, "    EXT_CSD wear: life time estimate A %s, B %s; pre-EOL: %s\n",
                    life_text(x->life_a, ta, sizeof(ta)), life_text(x->life_b, tb, sizeof(tb)),
                    eol_text(x->pre_eol));
        else
            fprintf(f, "    EXT_CSD wear: not reported (eMMC %s; the health report came with "
                       "5.0)\n", x->version);
    } else if (id->ext_why[0]) {
        fprintf(f, "    %s\n", id->ext_why);
    }
}

void probe_identity_json(struct sts_jw *w, const struct identity *id)
{
    if (!id->dir[0])
        return;
    sts_jw_object(w, "identity");
    sts_jw_str(w, "source", id->dir);
    sts_jw_str(w, "type", id->type);
    if (!strcmp(id->type, "SCSI")) {
        sts_jw_str(w, "vendor", id->vendor);
        sts_jw_str(w, "model", id->model);
        sts_jw_str(w, "firmware", id->fwrev);
        sts_jw_bool(w, "card_registers_visible", 0);
        sts_jw_end(w);
        return;
    }
    if (id->has_cid) {
        sts_jw_str(w, "name", id->cid.name);
        sts_jw_u64(w, "manfid", id->cid.manfid);
        sts_jw_str(w, "oemid", id->cid.oemid);
        sts_jw_u64(w, "hwrev", id->cid.hwrev);
        sts_jw_u64(w, "fwrev", id->cid.fwrev);
        sts_jw_u64(w, "serial", id->cid.serial);
        sts_jw_u64(w, "year", id->cid.year);
        sts_jw_u64(w, "month", id->cid.month);
    } else {
        sts_jw_str(w, "name", id->name);
        sts_jw_str(w, "manfid_text", id->manfid);
        sts_jw_str(w, "oemid", id->oemid);
        sts_jw_str(w, "firmware", id->fwrev);
        sts_jw_str(w, "date", id->date);
    }
    if (id->has_csd) {
        sts_jw_u64(w, "csd_version", id->csd.version);
        sts_jw_u64(w, "csd_capacity_bytes", id->csd.capacity);
        sts_jw_u64(w, "rate_per_line_bytes_per_second", id->csd.max_rate / 8);
        sts_jw_u64(w, "bus_lines", probe_identity_bus_lines(id));
        sts_jw_u64(w, "max_rate_bytes_per_second",
                   (uint64_t)id->csd.max_rate / 8 * probe_identity_bus_lines(id));
    }
    if (id->has_scr) {
        sts_jw_str(w, "sd_spec", id->scr.spec);
        sts_jw_u64(w, "bus_widths", id->scr.bus_widths);
    }
    if (id->has_ssr) {
        const struct sts_sd_ssr *s = &id->ssr;
        sts_jw_object(w, "ssr");
        sts_jw_u64(w, "bus_lines", s->bus_width);
        sts_jw_u64(w, "speed_class", s->speed_class);
        sts_jw_u64(w, "uhs_speed_grade", s->uhs_grade);
        sts_jw_u64(w, "video_speed_class", s->video_class);
        sts_jw_u64(w, "app_performance_class", s->app_class);
        sts_jw_u64(w, "au_bytes", s->au_bytes);
        sts_jw_u64(w, "uhs_au_bytes", s->uhs_au_bytes);
        sts_jw_u64(w, "erase_aus", s->erase_aus);
        sts_jw_u64(w, "erase_timeout_ns", (uint64_t)s->erase_timeout_s * 1000000000u);
        sts_jw_u64(w, "erase_offset_ns", (uint64_t)s->erase_offset_s * 1000000000u);
        sts_jw_u64(w, "move_bytes_per_second", (uint64_t)s->move_mbps * 1000000u);
        sts_jw_bool(w, "discard", s->discard);
        sts_jw_bool(w, "fule", s->fule);
        sts_jw_end(w);
    }
    if (id->pref_erase)
        sts_jw_u64(w, "preferred_erase_bytes", id->pref_erase);
    if (id->erase)
        sts_jw_u64(w, "erase_bytes", id->erase);
    unsigned a, b, e;
    if (sscanf(id->life_time, "%x %x", &a, &b) == 2) {
        sts_jw_u64(w, "life_time_est_a", a);
        sts_jw_u64(w, "life_time_est_b", b);
    }
    if (sscanf(id->pre_eol, "%x", &e) == 1)
        sts_jw_u64(w, "pre_eol_info", e);
    if (id->has_ext_csd) {
        const struct sts_mmc_ext_csd *x = &id->ext;
        sts_jw_object(w, "ext_csd");
        sts_jw_str(w, "source", id->ext_source);
        sts_jw_u64(w, "rev", x->rev);
        sts_jw_str(w, "version", x->version);
        sts_jw_u64(w, "capacity_bytes", x->capacity);
        sts_jw_u64(w, "cache_bytes", (uint64_t)x->cache_kib * 1024u);
        sts_jw_u64(w, "erase_group_bytes", x->erase_group);
        if (x->rev >= 7) {
            sts_jw_str(w, "firmware", x->firmware);
            sts_jw_u64(w, "life_time_est_a", x->life_a);
            sts_jw_u64(w, "life_time_est_b", x->life_b);
            sts_jw_u64(w, "pre_eol_info", x->pre_eol);
        }
        sts_jw_end(w);
    } else if (id->ext_why[0]) {
        sts_jw_str(w, "ext_csd_not_read", id->ext_why);
    }
    sts_jw_end(w);
}

