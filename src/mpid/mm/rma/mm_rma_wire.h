/*
 * The payload of an RMA_OP packet, and its decoder. No MPICH header (see
 * include/mm_wire.h for why): test/fuzz builds mm_rma_wire.c alone.
 *
 *   RMA_OP payload = [mm_rma_hdr_t][nseg x mm_rma_seg_t][data_len bytes of data]
 *
 * The target buffer is described in one of two ways:
 *  - nseg == 0: target_count elements of target_type, a predefined datatype (the same
 *    handle in every process of a job);
 *  - nseg > 0: a derived target datatype, sent as its footprint: the byte blocks it covers,
 *    in the datatype's order, as runs "count blocks of len bytes, the k-th at off +
 *    k * stride" relative to the target address. The target checks every byte of the
 *    footprint against its window and never builds a datatype from a peer's bytes (MPICH's
 *    flattened representation carries pointers; a footprint carries only numbers).
 */
#ifndef MM_RMA_WIRE_H_INCLUDED
#define MM_RMA_WIRE_H_INCLUDED

#include "mm_wire.h"
#include <sys/uio.h>

/* Operations (mm_rma_hdr_t.op). */
enum {
    MM_RMA_PUT = 1,
    MM_RMA_GET,
    MM_RMA_ACC,
    MM_RMA_GET_ACC,             /* also MPI_Fetch_and_op */
    MM_RMA_CAS,
    MM_RMA_RMW2,                /* MPI_Rmw2: acc_op is the MPI_RMW2_* op, the data is the
                                 * operand then operand2, as many bytes each */
    MM_RMA_OP_LAST
};

typedef struct mm_rma_hdr {
    uint32_t op;                /* MM_RMA_* */
    uint32_t nseg;              /* footprint runs that follow; 0: target_type is predefined */
    int64_t target_disp;        /* in units of the target's disp_unit (dynamic: an address) */
    int64_t target_count;       /* elements of target_type (nseg == 0) */
    int32_t target_type;        /* MPI_Datatype when nseg == 0 */
    int32_t basic_type;         /* accumulates, CAS, Rmw2: the element type of the data;
                                 * put/get with a footprint: the element type if there is
                                 * one (else MPI_DATATYPE_NULL), to check for partial ones */
    int32_t acc_op;             /* accumulates: the MPI_Op; Rmw2: the MPI_RMW2_* op */
    uint32_t flags;             /* MM_RMA_HDR_* */
    uint64_t data_len;          /* origin data bytes after the footprint (CAS, Rmw2: twice
                                 * the operand's bytes: new value/operand, then
                                 * compare/operand2) */
    uint64_t result_len;        /* bytes the answer carries */
} mm_rma_hdr_t;

/* mm_rma_hdr_t.flags */
#define MM_RMA_HDR_IMPLICIT_LOCK 0x1    /* MPI_MODE_PASSIVE_EPOCH_IMPLICIT: the operation is a
                                         * whole exclusive-lock epoch at the target */

/* One run of a footprint. */
typedef struct mm_rma_seg {
    int64_t off;                /* bytes from the target address to the first block */
    int64_t stride;             /* bytes from one block to the next */
    uint64_t len;               /* bytes per block, > 0 */
    uint64_t count;             /* blocks, > 0 */
} mm_rma_seg_t;

/* Most runs one operation may carry (each is 32 bytes): 2^20, 32 MiB of description. */
#define MM_RMA_NSEG_MAX (1u << 20)

/* What the target needs to know of a predefined datatype; the device answers from MPICH,
 * a fuzz target from a table. 0 if t is not a predefined datatype with a size. */
typedef struct mm_rma_wire_type {
    uint64_t size;              /* bytes of data */
    uint64_t extent;            /* from one element to the next */
    uint64_t true_extent;       /* bytes from the first to past the last byte of data (true
                                 * lower bound is 0 for every predefined type) */
    int32_t basic;              /* the element type an accumulate applies (itself) */
} mm_rma_wire_type_t;
typedef int (*mm_rma_wire_type_fn) (int32_t t, mm_rma_wire_type_t * info);

/* A decoded operation: everything the target reads from the payload, checked. */
typedef struct mm_rma_op_view {
    mm_rma_hdr_t hdr;           /* a copy: the payload need not be aligned */
    const unsigned char *segs;  /* nseg runs (read with mm_rma_wire_seg) */
    const char *data;           /* data_len bytes */
    uint64_t tsize;             /* bytes of the target buffer */
    uint64_t blocks;            /* blocks of the footprint (0 for a predefined type) */
    int64_t lo, hi;             /* the target buffer spans [addr + lo, addr + hi);
                                 * hi - lo <= MM_MSG_MAX */
    uint64_t bsize;             /* bytes of basic_type, 0 if none */
} mm_rma_op_view_t;

/* Decode and check an RMA_OP payload of len bytes. On success every length in *v fits the
 * payload and the buffers the operation names, and no sum or product of them overflows.
 * What still needs the window (is [lo, hi) inside it?) is the caller's. */
mm_wire_err_t mm_rma_wire_decode(const void *payload, size_t len, mm_rma_wire_type_fn types,
                                 mm_rma_op_view_t * v);

static inline mm_rma_seg_t mm_rma_wire_seg(const mm_rma_op_view_t * v, uint32_t i)
{
    mm_rma_seg_t s;
    __builtin_memcpy(&s, v->segs + (size_t) i * sizeof(s), sizeof(s));
    return s;
}

/* The blocks of a decoded footprint at addr, in order, covering its first `bytes` bytes
 * (the last block cut short if need be), into iov[]: room for min(v->blocks, bytes)
 * entries. Returns the number of entries. The decoder bounded v->blocks by the bytes the
 * operation moves, and the caller checked [addr + lo, addr + hi) against its window. */
size_t mm_rma_wire_blocks(const mm_rma_op_view_t * v, char *addr, uint64_t bytes,
                          struct iovec *iov);

#endif /* MM_RMA_WIRE_H_INCLUDED */
