/* Reading results files (cJSON): shared by report and compare. */
#include "json_in.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *more = realloc(buf, cap * 2 + 1);
        if (!more) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

cJSON *cli_load_results(const char *path)
{
    size_t len = 0;
    errno = 0;
    char *text = slurp(path, &len);
    if (!text) {
        cli_error("cannot read %s: %s", path, errno ? strerror(errno) : "out of memory");
        return NULL;
    }
    cJSON *doc = cJSON_ParseWithLength(text, len);
    if (!doc) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= text && at <= text + len ? (long)(at - text) : -1;
        cli_error("%s is not valid JSON (%s at byte %ld)", path,
                  off >= (long)len - 1 ? "truncated" : "syntax error", off);
        free(text);
        return NULL;
    }
    free(text);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "storscope-result/1")) {
        cli_error("%s is not a storscope-result/1 document", path);
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

double cli_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

const cJSON *cli_test(const cJSON *doc, const char *id)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(doc, "tests"))
    {
        const cJSON *tid = cJSON_GetObjectItemCaseSensitive(t, "id");
        if (cJSON_IsString(tid) && !strcmp(tid->valuestring, id))
            return t;
    }
    return NULL;
}
