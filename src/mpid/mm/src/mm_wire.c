/*
 * mm wire decoders (include/mm_wire.h): pure functions of their bytes. No MPICH header,
 * no allocation, no assert: test/fuzz builds this file alone.
 *
 * Text fields (descriptions, port names) come from other processes through PMI, port
 * names the user passes around, or connect requests: each parser is told how many bytes
 * it may read and requires the terminating NUL inside them, so a string that is not
 * terminated is refused instead of read past.
 */
#include "mm_wire.h"
#include <string.h>

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

mm_wire_err_t mm_wire_descr_parse(const char *descr, size_t len, uint64_t * gpid,
                                  const char **cards)
{
    uint64_t g = 0;

    if (descr == NULL || memchr(descr, '\0', len) == NULL)
        return MM_WIRE_BAD;
    for (int i = 0; i < MM_WIRE_GPID_DIGITS; i++) {
        int v = hexval(descr[i]);       /* stops at the NUL, which is inside len */
        if (v < 0)
            return MM_WIRE_BAD;
        g = (g << 4) | (uint64_t) v;
    }
    if (descr[MM_WIRE_GPID_DIGITS] != '\0' && descr[MM_WIRE_GPID_DIGITS] != '/')
        return MM_WIRE_BAD;
    *gpid = g;
    *cards = descr[MM_WIRE_GPID_DIGITS] ? descr + MM_WIRE_GPID_DIGITS : NULL;
    return MM_WIRE_OK;
}

mm_wire_err_t mm_wire_cards_find(const char *cards, const char *name, char *card, size_t len)
{
    size_t nlen = strlen(name);

    for (const char *p = cards; p && *p == '/';) {
        const char *m = p + 1, *c = strchr(m, '/'), *end;
        if (c == NULL)
            return MM_WIRE_BAD;
        end = strchr(c + 1, '/');
        if (end == NULL)
            end = c + 1 + strlen(c + 1);
        if ((size_t) (c - m) == nlen && strncmp(m, name, nlen) == 0)
            if (end > c + 1 && (size_t) (end - c - 1) < len) {
                memcpy(card, c + 1, end - c - 1);
                card[end - c - 1] = '\0';
                return MM_WIRE_OK;
            }
        p = end;
    }
    return MM_WIRE_BAD;
}

mm_wire_err_t mm_wire_port_parse(const char *name, size_t len, int *tag, uint64_t * secret,
                                 uint64_t * gpid, const char **cards)
{
    size_t plen = sizeof(MM_PORT_PREFIX) - 1, i;
    long t = 0;
    uint64_t s = 0;

    if (name == NULL || memchr(name, '\0', len) == NULL || strncmp(name, MM_PORT_PREFIX, plen))
        return MM_WIRE_BAD;
    /* The tag: decimal digits, no sign, no leading zero, at most 2^31-1. */
    for (i = plen; name[i] >= '0' && name[i] <= '9'; i++) {
        t = t * 10 + (name[i] - '0');
        if (t > INT32_MAX || (i == plen && name[i] == '0'))
            return MM_WIRE_BAD;
    }
    if (i == plen || name[i] != '-')
        return MM_WIRE_BAD;
    /* The secret: exactly MM_PORT_SECRET_DIGITS lowercase hex digits (the NUL found above
     * ends the name before len, so these reads stop at it at the latest). */
    for (int d = 0; d < MM_PORT_SECRET_DIGITS; d++) {
        char c = name[++i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0)
            return MM_WIRE_BAD;
        s = s << 4 | (uint64_t) v;
    }
    if (name[++i] != ':')
        return MM_WIRE_BAD;
    if (mm_wire_descr_parse(name + i + 1, len - i - 1, gpid, cards) != MM_WIRE_OK)
        return MM_WIRE_BAD;
    *tag = (int) t;
    *secret = s;
    return MM_WIRE_OK;
}

mm_wire_err_t mm_wire_port_req_check(const mm_port_req_t * req, size_t got, uint64_t * gpid,
                                     const char **cards)
{
    if (got != sizeof(*req) || req->magic != MM_PORT_MAGIC || req->ctx == 0 ||
        req->ctx > UINT16_MAX)
        return MM_WIRE_BAD;
    return mm_wire_descr_parse(req->descr, sizeof(req->descr), gpid, cards);
}

mm_wire_err_t mm_wire_port_reply_check(const mm_port_reply_t * reply, size_t got)
{
    if (got != sizeof(*reply) || reply->magic != MM_PORT_MAGIC)
        return MM_WIRE_BAD;
    if (reply->status == MM_PORT_OK)
        return reply->ctx > 0 && reply->ctx <= UINT16_MAX ? MM_WIRE_OK : MM_WIRE_BAD;
    return reply->status == MM_PORT_REFUSED ||
        reply->status == MM_PORT_DENIED ? MM_WIRE_OK : MM_WIRE_BAD;
}

mm_wire_err_t mm_wire_group_next(const char *blob, size_t len, size_t *pos, uint64_t * gpid,
                                 const char **cards)
{
    const char *p;
    size_t n;

    if (*pos >= len)
        return MM_WIRE_BAD;
    p = blob + *pos;
    n = strnlen(p, len - *pos);
    if (n == 0 || n == len - *pos)     /* empty, or not terminated inside the blob */
        return MM_WIRE_BAD;
    if (mm_wire_descr_parse(p, n + 1, gpid, cards) != MM_WIRE_OK)
        return MM_WIRE_BAD;
    *pos += n + 1;
    return MM_WIRE_OK;
}
