/* Fuzz target: mm_rma_wire_decode and mm_rma_wire_blocks (rma/mm_rma_wire.c), the target
 * side's reading of an RMA operation from another process. After a decode that succeeds,
 * the target's work is replayed on a "window" that is exactly the span [lo, hi) the
 * decoder reported, in its own heap block: every block the target would touch is written,
 * so one byte outside the span is an AddressSanitizer report. */
#include "fuzz.h"
#include "mm_rma_wire.h"

/* A few "predefined datatypes", as the device's oracle describes MPICH's: 1-, 4- and
 * 8-byte elements, and two pair types with gaps (MPI_DOUBLE_INT- and MPI_SHORT_INT-like). */
static int types(int32_t t, mm_rma_wire_type_t * info)
{
    static const mm_rma_wire_type_t table[] = {
        {1, 1, 1}, {4, 4, 4}, {8, 8, 8}, {12, 16, 12}, {6, 8, 8}
    };
    if (t < 1 || t > 5)
        return 0;
    *info = table[t - 1];
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    char *payload = fuzz_copy(data, size);
    mm_rma_op_view_t v;

    if (mm_rma_wire_decode(payload, size, types, &v) == MM_WIRE_OK) {
        const mm_rma_hdr_t *h = &v.hdr;
        uint64_t need = h->op == MM_RMA_GET ? h->result_len :
            h->data_len > h->result_len ? h->data_len : h->result_len;

        FUZZ_CHECK(h->op >= MM_RMA_PUT && h->op < MM_RMA_OP_LAST);
        FUZZ_CHECK((const char *) v.data + h->data_len == payload + size);
        FUZZ_CHECK(v.tsize <= MM_MSG_MAX && v.hi >= v.lo && v.hi - v.lo <= (int64_t) MM_MSG_MAX);
        FUZZ_CHECK(h->result_len <= v.tsize);
        if (h->op == MM_RMA_RMW2 || h->op == MM_RMA_CAS)
            FUZZ_CHECK(h->data_len == 2 * v.tsize);
        else if (h->op != MM_RMA_PUT)
            FUZZ_CHECK(h->data_len <= v.tsize);
        if (h->nseg == 0) {
            FUZZ_CHECK(v.lo == 0);
        } else {
            FUZZ_CHECK(h->op != MM_RMA_CAS);
            FUZZ_CHECK((uint64_t) (v.hi - v.lo) >= 1);
        }
        if (need > v.tsize)
            need = v.tsize;
        /* Replay the footprint on a window of exactly its span, when that is small. The
         * target's address is that window's start minus lo; a real target only gets there
         * after checking [addr + lo, addr + hi) against its window, so a span whose start
         * is terabytes from the target address is not a case to replay here. */
        if (h->nseg > 0 && (uint64_t) (v.hi - v.lo) <= (1u << 20) && v.blocks <= (1u << 16) &&
            v.lo > -((int64_t) 1 << 40) && v.lo < ((int64_t) 1 << 40)) {
            char *win = malloc((size_t) (v.hi - v.lo));
            char *addr = win - v.lo;
            struct iovec *iov = malloc((v.blocks ? v.blocks : 1) * sizeof(*iov));
            size_t n = mm_rma_wire_blocks(&v, addr, need, iov);
            uint64_t sum = 0;

            FUZZ_CHECK(n <= v.blocks);
            for (size_t i = 0; i < n; i++) {
                memset(iov[i].iov_base, 0xa5, iov[i].iov_len);
                sum += iov[i].iov_len;
            }
            FUZZ_CHECK(sum == need);
            free(iov);
            free(win);
        }
    }
    free(payload);
    return 0;
}
