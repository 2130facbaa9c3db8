/*
 * Decoder of an RMA_OP payload (mm_rma_wire.h). Pure: no MPICH, no allocation, no assert.
 *
 * Order of the checks: first that every length fits the payload (so nothing is read past
 * it), then the target buffer's size and span with overflow-checked arithmetic (so the
 * window check the caller makes with lo/hi means what it says), then the per-operation
 * equalities between data, result and target sizes (so the apply loops, which trust them,
 * stay inside the buffers). Sizes are capped at MM_MSG_MAX, so sums of two or three of
 * them never wrap.
 */
#include "mm_rma_wire.h"
#include <string.h>

#define OVF_MUL(a, b, r) __builtin_mul_overflow(a, b, r)
#define OVF_ADD(a, b, r) __builtin_add_overflow(a, b, r)

/* The footprint: size, span and block count of the runs, each checked. */
static mm_wire_err_t decode_segs(mm_rma_op_view_t * v)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN, span;
    uint64_t tsize = 0, blocks = 0;

    for (uint32_t i = 0; i < v->hdr.nseg; i++) {
        mm_rma_seg_t s = mm_rma_wire_seg(v, i);
        int64_t last, first_end, last_end, step;
        uint64_t bytes;

        if (s.len == 0 || s.count == 0 || s.len > MM_MSG_MAX || s.count > MM_MSG_MAX)
            return MM_WIRE_COUNT;
        /* Blocks of one run must not overlap: what an accumulate applies twice to the same
         * bytes in one operation is undefined, and a run of zero stride would let a short
         * description claim a huge target. */
        if (s.count > 1 && (s.stride == INT64_MIN || (uint64_t) (s.stride < 0 ? -s.stride :
                                                                  s.stride) < s.len))
            return MM_WIRE_TYPE;
        if (OVF_MUL((int64_t) (s.count - 1), s.stride, &step) || OVF_ADD(s.off, step, &last) ||
            OVF_ADD(s.off, (int64_t) s.len, &first_end) ||
            OVF_ADD(last, (int64_t) s.len, &last_end))
            return MM_WIRE_COUNT;
        if (OVF_MUL(s.len, s.count, &bytes) || OVF_ADD(tsize, bytes, &tsize) ||
            tsize > MM_MSG_MAX)
            return MM_WIRE_TOOLARGE;
        if (v->bsize && s.len % v->bsize)
            return MM_WIRE_TYPE;        /* a block that ends inside an element */
        blocks += s.count;      /* <= tsize: no wrap */
        lo = s.off < lo ? s.off : lo;
        lo = last < lo ? last : lo;
        hi = first_end > hi ? first_end : hi;
        hi = last_end > hi ? last_end : hi;
    }
    /* No window spans more than a message may: this also makes hi - lo a valid int64_t for
     * every caller. */
    if (v->hdr.nseg > 0 && (__builtin_sub_overflow(hi, lo, &span) || span > (int64_t) MM_MSG_MAX))
        return MM_WIRE_TOOLARGE;
    v->tsize = tsize;
    v->blocks = blocks;
    v->lo = lo;
    v->hi = hi;
    return MM_WIRE_OK;
}

static mm_wire_err_t decode_predefined(mm_rma_op_view_t * v, const mm_rma_wire_type_t * t)
{
    int64_t span;

    if (v->hdr.target_count < 0)
        return MM_WIRE_COUNT;
    if (OVF_MUL((uint64_t) v->hdr.target_count, t->size, &v->tsize) || v->tsize > MM_MSG_MAX)
        return MM_WIRE_TOOLARGE;
    v->lo = v->hi = 0;
    if (v->hdr.target_count > 0) {
        if (t->extent > MM_MSG_MAX || t->true_extent > MM_MSG_MAX ||
            OVF_MUL(v->hdr.target_count - 1, (int64_t) t->extent, &span) ||
            OVF_ADD(span, (int64_t) t->true_extent, &v->hi))
            return MM_WIRE_COUNT;
        if (v->hi > (int64_t) MM_MSG_MAX)
            return MM_WIRE_TOOLARGE;
    }
    return MM_WIRE_OK;
}

mm_wire_err_t mm_rma_wire_decode(const void *payload, size_t len, mm_rma_wire_type_fn types,
                                 mm_rma_op_view_t * v)
{
    const unsigned char *p = payload;
    mm_rma_wire_type_t tt, bt;
    mm_wire_err_t err;
    uint64_t moved, most = 0;
    int has_basic;

    memset(v, 0, sizeof(*v));
    if (len < sizeof(mm_rma_hdr_t))
        return MM_WIRE_BAD;
    memcpy(&v->hdr, p, sizeof(v->hdr));
    if (v->hdr.op == 0 || v->hdr.op >= MM_RMA_OP_LAST)
        return MM_WIRE_OP;
    if (v->hdr.flags & ~(uint32_t) MM_RMA_HDR_IMPLICIT_LOCK)
        return MM_WIRE_BAD;
    if (v->hdr.nseg > MM_RMA_NSEG_MAX)
        return MM_WIRE_TOOLARGE;
    len -= sizeof(mm_rma_hdr_t);
    if (len < (size_t) v->hdr.nseg * sizeof(mm_rma_seg_t))
        return MM_WIRE_BAD;
    len -= (size_t) v->hdr.nseg * sizeof(mm_rma_seg_t);
    if (v->hdr.data_len != len || v->hdr.result_len > MM_MSG_MAX)
        return MM_WIRE_BAD;
    v->segs = p + sizeof(mm_rma_hdr_t);
    v->data = (const char *) v->segs + (size_t) v->hdr.nseg * sizeof(mm_rma_seg_t);

    /* The element type, where the operation has one. 0 means "none" on the wire. */
    has_basic = v->hdr.basic_type != 0;
    if (has_basic) {
        if (!types(v->hdr.basic_type, &bt))
            return MM_WIRE_TYPE;
        v->bsize = bt.size;
    }
    switch (v->hdr.op) {
        case MM_RMA_ACC:
        case MM_RMA_GET_ACC:
        case MM_RMA_CAS:
        case MM_RMA_RMW2:
            if (!has_basic)
                return MM_WIRE_TYPE;
    }

    if (v->hdr.nseg == 0) {
        if (!types(v->hdr.target_type, &tt))
            return MM_WIRE_TYPE;
        /* An accumulate's target type is its element type (pairs included). */
        if (has_basic && v->hdr.op != MM_RMA_PUT && v->hdr.op != MM_RMA_GET &&
            v->hdr.target_type != v->hdr.basic_type)
            return MM_WIRE_TYPE;
        err = decode_predefined(v, &tt);
    } else {
        if (v->hdr.op == MM_RMA_CAS)
            return MM_WIRE_TYPE;
        err = decode_segs(v);
    }
    if (err != MM_WIRE_OK)
        return err;

    /* The lengths each operation allows. */
    switch (v->hdr.op) {
        case MM_RMA_PUT:
            /* What fits is stored, the rest is a truncation the answer reports. */
            if (v->hdr.result_len != 0)
                return MM_WIRE_BAD;
            break;
        case MM_RMA_GET:
            if (v->hdr.data_len != 0 || v->hdr.result_len > v->tsize)
                return MM_WIRE_TRUNCATE;
            break;
        case MM_RMA_ACC:
        case MM_RMA_GET_ACC:
            if (v->hdr.data_len % v->bsize || v->hdr.data_len > v->tsize ||
                v->hdr.result_len % v->bsize || v->hdr.result_len > v->tsize)
                return MM_WIRE_TRUNCATE;
            break;
        case MM_RMA_CAS:
            if (v->hdr.target_count != 1 || v->hdr.data_len != 2 * v->tsize ||
                v->hdr.result_len != v->tsize)
                return MM_WIRE_TYPE;
            break;
        case MM_RMA_RMW2:
            if (v->hdr.data_len != 2 * v->tsize || v->hdr.result_len != v->tsize ||
                v->tsize % v->bsize)
                return MM_WIRE_TRUNCATE;
            break;
    }
    /* The work a footprint asks for is bounded by the bytes the operation moves (each
     * block moves at least one), so a short description cannot make the target loop
     * over more blocks than a legitimate operation of that size has. */
    moved = v->hdr.data_len > v->hdr.result_len ? v->hdr.data_len : v->hdr.result_len;
    most = moved > MM_RMA_NSEG_MAX ? moved : MM_RMA_NSEG_MAX;
    if (v->blocks > most)
        return MM_WIRE_TOOLARGE;
    return MM_WIRE_OK;
}

size_t mm_rma_wire_blocks(const mm_rma_op_view_t * v, char *addr, uint64_t bytes,
                          struct iovec *iov)
{
    size_t n = 0;

    for (uint32_t i = 0; i < v->hdr.nseg && bytes > 0; i++) {
        mm_rma_seg_t r = mm_rma_wire_seg(v, i);
        /* Address arithmetic in uintptr_t: the decoder proved every block lies in
         * [lo, hi), which the caller checked is window memory. */
        uintptr_t b = (uintptr_t) addr + (uintptr_t) r.off;

        for (uint64_t k = 0; k < r.count && bytes > 0; k++, b += (uintptr_t) r.stride) {
            iov[n].iov_base = (void *) b;
            iov[n].iov_len = r.len < bytes ? r.len : bytes;
            bytes -= iov[n].iov_len;
            n++;
        }
    }
    return n;
}
