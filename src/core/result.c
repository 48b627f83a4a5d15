#include "storscope/result.h"

#include <string.h>

const char *sts_test_status_name(enum sts_test_status s)
{
    switch (s) {
    case STS_TEST_OK: return "ok";
    case STS_TEST_FAILED: return "failed";
    case STS_TEST_INTERRUPTED: return "interrupted";
    case STS_TEST_NOT_APPLICABLE: return "not_applicable";
    }
    return "unknown";
}

const struct sts_kv *sts_kv_find(const struct sts_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(kv[i].key, key) == 0)
            return &kv[i];
    return NULL;
}

double sts_kv_number(const struct sts_kv *kv)
{
    switch (kv->type) {
    case STS_KV_INT: return (double)kv->v.i;
    case STS_KV_UINT: return (double)kv->v.u;
    case STS_KV_DOUBLE: return kv->v.d;
    case STS_KV_BOOL: return kv->v.b;
    case STS_KV_STR: return 0.0;
    }
    return 0.0;
}
