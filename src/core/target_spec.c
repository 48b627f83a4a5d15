#include "storscope/error.h"
#include "storscope/target.h"

#include <string.h>

static int is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* The FS part starts at the last '+' followed by an identifier and then ','
 * or the end, so paths may still contain '+' elsewhere. */
static const char *find_fs_sep(const char *s)
{
    const char *found = NULL;
    for (const char *p = strchr(s, '+'); p; p = strchr(p + 1, '+')) {
        const char *q = p + 1;
        if (!(*q >= 'a' && *q <= 'z'))
            continue;
        while (is_ident_char(*q))
            q++;
        if (*q == '\0' || *q == ',')
            found = p;
    }
    return found;
}

/* Parses "key=value,key=value" of [s, end) into opts. */
static int parse_opts(const char *s, const char *end, struct sts_spec_opt *opts,
                      uint32_t *n, const char **why)
{
    *n = 0;
    while (s < end) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        if (!comma)
            comma = end;
        const char *eq = memchr(s, '=', (size_t)(comma - s));
        if (!eq || eq == s) {
            *why = "an option is not of the form key=value";
            return STS_EINVAL;
        }
        if (*n >= STS_SPEC_MAX_OPTS) {
            *why = "too many options";
            return STS_EINVAL;
        }
        size_t kl = (size_t)(eq - s), vl = (size_t)(comma - eq - 1);
        if (kl >= STS_SPEC_NAME_MAX || vl >= STS_SPEC_ARG_MAX) {
            *why = "an option key or value is too long";
            return STS_EINVAL;
        }
        memcpy(opts[*n].key, s, kl);
        opts[*n].key[kl] = '\0';
        memcpy(opts[*n].value, eq + 1, vl);
        opts[*n].value[vl] = '\0';
        (*n)++;
        s = comma + 1;
    }
    return STS_OK;
}

int sts_target_spec_parse(const char *s, struct sts_target_spec *spec, const char **why)
{
    static const char *dummy;
    if (!why)
        why = &dummy;
    memset(spec, 0, sizeof(*spec));
    if (!s || !*s) {
        *why = "the target is empty";
        return STS_EINVAL;
    }
    const char *colon = strchr(s, ':');
    if (!colon || colon == s) {
        *why = "a target is written KIND:ARG (e.g. posix:/var/tmp or null:)";
        return STS_EINVAL;
    }
    size_t kl = (size_t)(colon - s);
    if (kl >= STS_SPEC_NAME_MAX) {
        *why = "the target kind is too long";
        return STS_EINVAL;
    }
    for (size_t i = 0; i < kl; i++)
        if (!is_ident_char(s[i])) {
            *why = "the target kind may hold only a-z, 0-9, '_' and '-'";
            return STS_EINVAL;
        }
    memcpy(spec->kind, s, kl);
    const char *dev = colon + 1;
    const char *plus = find_fs_sep(dev);
    const char *dev_end = plus ? plus : dev + strlen(dev);
    /* ARG runs to the first ',' that starts a key=value option. */
    const char *arg_end = dev_end;
    for (const char *p = dev; p < dev_end; p++) {
        if (*p == ',') {
            const char *q = p + 1;
            while (q < dev_end && is_ident_char(*q))
                q++;
            if (q < dev_end && *q == '=' && q > p + 1) {
                arg_end = p;
                break;
            }
        }
    }
    if ((size_t)(arg_end - dev) >= STS_SPEC_ARG_MAX) {
        *why = "the target argument is too long";
        return STS_EINVAL;
    }
    memcpy(spec->arg, dev, (size_t)(arg_end - dev));
    /* a profile name holds no '+' (a path may): a second layer was taken
     * for part of the name ("unknown device profile 'emmc+sensorlog'") */
    if (plus && !strcmp(spec->kind, "sim") && find_fs_sep(spec->arg)) {
        *why = "one filesystem layer at most: a second +FS follows the first";
        return STS_EINVAL;
    }
    if (arg_end < dev_end &&
        parse_opts(arg_end + 1, dev_end, spec->opts, &spec->n_opts, why) != STS_OK)
        return STS_EINVAL;
    if (plus) {
        const char *fs = plus + 1;
        const char *fs_end = fs;
        while (is_ident_char(*fs_end))
            fs_end++;
        if ((size_t)(fs_end - fs) >= STS_SPEC_NAME_MAX) {
            *why = "the filesystem name is too long";
            return STS_EINVAL;
        }
        memcpy(spec->fs, fs, (size_t)(fs_end - fs));
        if (*fs_end == ',' &&
            parse_opts(fs_end + 1, fs_end + strlen(fs_end), spec->fs_opts,
                       &spec->n_fs_opts, why) != STS_OK)
            return STS_EINVAL;
    }
    return STS_OK;
}

void sts_target_env(struct sts_target *t, struct sts_kv kv)
{
    if (t->n_env < STS_TARGET_MAX_ENV)
        t->env[t->n_env++] = kv;
}

void sts_target_warn(struct sts_target *t, const char *msg)
{
    if (t->n_warnings < STS_TARGET_MAX_WARN)
        t->warnings[t->n_warnings++] = msg;
}
