/*
 * shm method, single-copy rendezvous with cross-memory attach (CMA): the method's
 * mem_register, mem_deregister and get (mm_method.h). process_vm_readv(2) copies straight
 * from the sender's buffer into the receiver's, once, instead of twice through cells.
 *
 * REGISTRATION. A send buffer offered to a get is one contiguous piece (the engine packs
 * other datatypes first). Its rendezvous data is {pid, address, length}, and registering
 * it costs nothing but an entry in this process's list of offered buffers, which the
 * shared copy below reads. The engine carries the rendezvous data on the RTS; the
 * receiver's get() reads the payload once a receive matched, and the engine answers FIN,
 * after which the sender deregisters. No pointer from the wire is ever dereferenced by the
 * process that receives it: the address is only handed to the kernel, which checks it
 * against the sender's address space.
 *
 * SHARED COPY. One process_vm_readv moves about 13 GB/s here, bounded by the kernel's
 * per-page work on the reading core, while the sender sits idle in its progress loop
 * waiting for FIN. So once CMA has worked on a VC, a large payload whose destination is
 * one contiguous piece is offered to the sender too: the receiver publishes the
 * destination in the pair's line and both processes claim chunks of it by
 * compare-and-swap, the receiver reading them, the sender writing them with
 * process_vm_writev. The claim word carries the payload's number, so a claim made for one
 * payload can never land in the next. The sender helps only with an offer that names a
 * buffer it has registered for that receiver; a sender that is busy elsewhere simply
 * claims nothing, and one whose write fails leaves its chunk to the receiver (`redo`) and
 * stops helping. The receiver completes the payload only when every claimed chunk is
 * copied.
 *
 * A receiver offers a payload only to a sender that is not reading from it as well (no
 * buffer of ours registered for that peer, shm_vc_t's cma_offered): with payloads going
 * both ways each core is busy with its own reads, and each side's wait for the other's
 * chunk only idles a core. Measured 2026-12-08, 2 processes bound to the 2 cores,
 * bidirectional bandwidth 64 KiB 33-34 GB/s instead of 25 (Open MPI 31-33), 256 KiB 45-49
 * instead of 38-41 (44-45), one direction unchanged (64 KiB 19-20, 256 KiB 34-37).
 *
 * FALLBACK. The kernel may forbid CMA (ptrace restrictions, seccomp, another user). A
 * read refused before any read from that peer has worked makes get() refuse, now and for
 * every later offer of that peer: the engine answers CTS and the payload comes through
 * cells. A failure after a success on the same VC is an error, reported by the receiver.
 */
#define _GNU_SOURCE
/* MPL's valgrind client requests (MPL_VG_*), a few no-op instructions outside valgrind */
#define MPL_VG_ENABLED 1
#include "mpidimpl.h"
#include "shm_impl.h"
#include <errno.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#if !defined(HAVE_PROCESS_VM_READV) || !defined(HAVE_PROCESS_VM_WRITEV)
/* A C library without cross-memory attach (subconfigure.m4): every copy fails as under a
 * kernel that forbids it, so get() refuses from the first offer (FALLBACK). */
static ssize_t no_cma(void)
{
    errno = ENOSYS;
    return -1;
}

#define process_vm_readv(pid, l, nl, r, nr, f) no_cma()
#define process_vm_writev(pid, l, nl, r, nr, f) no_cma()
#endif

#define SHM_CMA_IOV 64          /* iovec entries per process_vm_readv call */
/* Shared copy: chunks of half the payload, at least 32 KiB and at most 256 KiB (measured
 * on the 2-core machine, 2026-12-04: smaller chunks cost a claim and a system call each for
 * no more parallelism; larger ones leave one side idle at the end). Payloads shorter than
 * two minimal chunks are not shared. */
#define SHM_CMA_CHUNK_MIN (32 * 1024)
#define SHM_CMA_CHUNK_MAX (256 * 1024)
#define SHM_CMA_CLAIM(num) ((uint64_t) ((num) + 1) << 32)

/* Copy len bytes between local memory and address `remote` of process pid: a read (from
 * the peer) or a write (to it). Returns 0 or an errno. */
static int chunk_copy(pid_t pid, int write, char *local, uint64_t remote, size_t len)
{
    while (len > 0) {
        struct iovec l = { local, len }, r = { (void *) (uintptr_t) remote, len };
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
            : process_vm_readv(pid, &l, 1, &r, 1, 0);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        local += n;
        remote += (uint64_t) n;
        len -= (size_t) n;
    }
    return 0;
}

/* Claim the next chunk of the payload whose offer (the claim word's high half) is given;
 * returns the chunk or -1 if none is left (or the pair no longer offers that payload). */
static int64_t chunk_claim(shm_pair_t * pair, uint64_t offer)
{
    uint64_t c = atomic_load_explicit(&pair->claim, memory_order_acquire);

    for (;;) {
        uint32_t n;

        if ((c & ~(uint64_t) UINT32_MAX) != offer)
            return -1;
        n = atomic_load_explicit(&pair->nchunks, memory_order_relaxed);
        /* Pairs with the release fence in shared_read: if n is already the next offer's,
         * the claim word is no longer c, and the exchange below fails. */
        atomic_thread_fence(memory_order_acquire);
        if ((uint32_t) c >= n)
            return -1;
        if (atomic_compare_exchange_weak_explicit(&pair->claim, &c, c + 1,
                                                  memory_order_acq_rel, memory_order_acquire))
            return (int64_t) (uint32_t) c;
    }
}

/* The single contiguous piece a payload buffer still has to move, or NULL. */
static char *contig_rest(const mm_buf_t * b, size_t * len)
{
    struct iovec iov[2];
    int n = mm_buf_to_iov(b, iov, 2);

    if (n != 1)
        return NULL;
    *len = iov[0].iov_len;
    return iov[0].iov_base;
}

/* Receiver: copy the payload d describes into dst together with the sender
 * (see SHARED COPY above); returns once every chunk is in. */
static int shared_read(mm_vc_t * vc, shm_pair_t * pair, const shm_cma_rndv_t * d, char *dst)
{
    int mpi_errno = MPI_SUCCESS;
    uint64_t offer = SHM_CMA_CLAIM(atomic_load_explicit(&pair->done, memory_order_relaxed));
    size_t chunk = MPL_MIN(MPL_MAX(d->len / 2, SHM_CMA_CHUNK_MIN), SHM_CMA_CHUNK_MAX);
    uint32_t nchunks = (uint32_t) ((d->len + chunk - 1) / chunk);
    uint64_t src = d->base;
    uint32_t redo;
    int64_t c;
    int err = 0;

    /* Withdraw the previous offer before its fields change: a helper still looking at it
     * must not claim a chunk of it by our new chunk count (see chunk_claim). */
    atomic_store_explicit(&pair->claim, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&pair->src, src, memory_order_relaxed);
    atomic_store_explicit(&pair->dst, (uint64_t) (uintptr_t) dst, memory_order_relaxed);
    atomic_store_explicit(&pair->len, d->len, memory_order_relaxed);
    atomic_store_explicit(&pair->dst_pid, (int32_t) shm_state.pid, memory_order_relaxed);
    atomic_store_explicit(&pair->nchunks, nchunks, memory_order_relaxed);
    atomic_store_explicit(&pair->chunk, (uint32_t) chunk, memory_order_relaxed);
    atomic_store_explicit(&pair->finished, 0, memory_order_relaxed);
    atomic_store_explicit(&pair->redo, 0, memory_order_relaxed);
    /* Publishes the fields above with the offer. */
    atomic_store_explicit(&pair->claim, offer, memory_order_release);

    /* After a failed copy, keep claiming without copying: the sender must have no chunk
     * left to write into dst once we return. */
    while ((c = chunk_claim(pair, offer)) >= 0) {
        size_t off = (size_t) c * chunk;

        if (!err)
            err = chunk_copy((pid_t) d->pid, 0, dst + off, src + off,
                             MPL_MIN(chunk, d->len - off));
        atomic_fetch_add_explicit(&pair->finished, 1, memory_order_relaxed);
    }
    /* Every chunk is claimed; wait for the sender's last one (a chunk's copy, unless the
     * scheduler took the sender's core meanwhile). A sender that died holding a chunk
     * would never finish it: check now and then that it still exists. */
    for (unsigned spins = 0;
         atomic_load_explicit(&pair->finished, memory_order_acquire) != nchunks; spins++) {
        if (spins < 100)
            continue;
        mm_yield_core();
        if (spins % 4096 == 0 && kill((pid_t) d->pid, 0) != 0 && errno == ESRCH) {
            err = ESRCH;
            break;
        }
    }
    redo = atomic_load_explicit(&pair->redo, memory_order_relaxed);
    if (!err && redo) {
        size_t off = (size_t) (redo - 1) * chunk;
        err = chunk_copy((pid_t) d->pid, 0, dst + off, src + off, MPL_MIN(chunk, d->len - off));
    }
    MPIR_ERR_CHKANDJUMP2(err, mpi_errno, MPI_ERR_OTHER, "**mm|shm_cma", "**mm|shm_cma %d %s",
                         vc->lpid, MPL_strerror(err));
    /* The sender's chunks reached dst through its process_vm_writev, which memcheck in
     * this process cannot see: without this, every byte of them reads as uninitialised
     * (a staging buffer, or a receive buffer the program never wrote). */
    MPL_VG_MAKE_MEM_DEFINED(dst, d->len);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}


/* Sender: copy chunks of an offered payload whose source is reg's buffer. */
static void help_one(shm_cma_reg_t * reg, shm_pair_t * pair, uint64_t offer, int *made_progress)
{
    shm_vc_t *s = shm_vc(reg->vc);
    int64_t c;

    while ((c = chunk_claim(pair, offer)) >= 0) {
        size_t chunk = atomic_load_explicit(&pair->chunk, memory_order_relaxed);
        size_t off = (size_t) c * chunk;
        uint64_t dst = atomic_load_explicit(&pair->dst, memory_order_relaxed);
        int err = EINVAL;

        /* Our claim holds the receiver in this payload, so the fields are this offer's:
         * it must describe the very buffer we registered, or the chunk is left to the
         * receiver. */
        if (reg->base == atomic_load_explicit(&pair->src, memory_order_relaxed) &&
            reg->len == atomic_load_explicit(&pair->len, memory_order_relaxed) &&
            off < reg->len)
            err = chunk_copy((pid_t) atomic_load_explicit(&pair->dst_pid, memory_order_relaxed),
                             1, (char *) (uintptr_t) reg->base + off, dst + off,
                             MPL_MIN(chunk, reg->len - off));
        if (err) {
            s->cma_help_off = 1;
            atomic_store_explicit(&pair->redo, (uint32_t) c + 1, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&pair->finished, 1, memory_order_release);
        *made_progress = 1;
        if (err)
            return;
    }
}

void shm_cma_help(int *made_progress)
{
    for (shm_cma_reg_t * reg = shm_state.cma_regs; reg; reg = reg->next) {
        shm_vc_t *s = shm_vc(reg->vc);
        shm_pair_t *pair = shm_pair(shm_state.my_local, s->local_rank);
        uint64_t c = atomic_load_explicit(&pair->claim, memory_order_relaxed);

        /* A cheap look first (the fields may still be the previous offer's: help_one
         * checks again once a claim holds them still). */
        if (s->cma_help_off || (c >> 32) == 0 ||
            (uint32_t) c >= atomic_load_explicit(&pair->nchunks, memory_order_relaxed) ||
            reg->base != atomic_load_explicit(&pair->src, memory_order_relaxed) ||
            reg->len != atomic_load_explicit(&pair->len, memory_order_relaxed))
            continue;
        help_one(reg, pair, c & ~(uint64_t) UINT32_MAX, made_progress);
    }
}

int shm_mem_register(mm_vc_t * vc, mm_buf_t * buf, void *rndv, size_t * len)
{
    shm_cma_rndv_t d;
    shm_cma_reg_t *reg;
    size_t n;
    char *p = contig_rest(buf, &n);

    *len = 0;
    if (!shm_state.cma_enabled || p == NULL)
        return MPI_SUCCESS;
    reg = MPL_malloc(sizeof(*reg), MPL_MEM_SHM);
    if (reg == NULL)
        return MPI_SUCCESS;     /* declined: the payload goes through cells */
    reg->vc = vc;
    reg->base = (uint64_t) (uintptr_t) p;
    reg->len = n;
    reg->next = shm_state.cma_regs;
    shm_state.cma_regs = reg;
    shm_vc(vc)->cma_offered++;
    d.pid = (int32_t) shm_state.pid;
    d.zero = 0;
    d.base = reg->base;
    d.len = n;
    memcpy(rndv, &d, sizeof(d));
    *len = sizeof(d);
    buf->mem = reg;
    return MPI_SUCCESS;
}

void shm_mem_deregister(mm_vc_t * vc, mm_buf_t * buf)
{
    for (shm_cma_reg_t ** p = &shm_state.cma_regs; *p; p = &(*p)->next) {
        if (*p == buf->mem) {
            shm_vc((*p)->vc)->cma_offered--;
            *p = (*p)->next;
            MPL_free(buf->mem);
            break;
        }
    }
    buf->mem = NULL;
}

int shm_get(mm_car_t * car, const void *rndv, size_t len, int *refused)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = car->vc;
    shm_vc_t *s = shm_vc(vc);
    shm_pair_t *pair = shm_pair(s->local_rank, shm_state.my_local);
    shm_cma_rndv_t d;

    /* The rendezvous data comes from the peer: it must describe exactly this payload. */
    if (len != sizeof(d))
        goto bad;
    memcpy(&d, rndv, sizeof(d));
    if (d.zero != 0 || d.len != mm_buf_remaining(&car->buf))
        goto bad;
    if (s->cma_rx_off || !shm_state.cma_enabled) {
        *refused = 1;
        goto fn_exit;
    }

    if (s->cma_rx_ok && s->cma_offered == 0 && d.len >= 2 * SHM_CMA_CHUNK_MIN) {
        size_t dlen;
        char *dst = contig_rest(&car->buf, &dlen);

        if (dst) {
            mpi_errno = shared_read(vc, pair, &d, dst);
            MPIR_ERR_CHECK(mpi_errno);
            mm_buf_advance(&car->buf, dlen);
        }
    }
    while (mm_buf_remaining(&car->buf) > 0) {
        struct iovec liov[SHM_CMA_IOV], riov;
        int nl = mm_buf_to_iov(&car->buf, liov, SHM_CMA_IOV);
        size_t want = 0;
        ssize_t n;

        for (int i = 0; i < nl; i++)
            want += liov[i].iov_len;
        riov.iov_base = (void *) (uintptr_t) (d.base + car->buf.done);
        riov.iov_len = want;
        n = process_vm_readv((pid_t) d.pid, liov, nl, &riov, 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            if (!s->cma_rx_ok && car->buf.done == 0 &&
                (err == EPERM || err == ENOSYS || err == EACCES || err == EFAULT)) {
                /* The kernel will not let us (or the sender's memory is not where it
                 * says): the engine asks for the payload through cells, from now on. */
                s->cma_rx_off = 1;
                *refused = 1;
                goto fn_exit;
            }
            MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_OTHER, "**mm|shm_cma", "**mm|shm_cma %d %s",
                                 vc->lpid, MPL_strerror(err));
        }
        mm_buf_advance(&car->buf, (size_t) n);
    }
    s->cma_rx_ok = 1;
    /* Payloads read from this peer: numbers the next shared copy's offer. */
    atomic_store_explicit(&pair->done, atomic_load_explicit(&pair->done, memory_order_relaxed)
                          + 1, memory_order_relaxed);
    mpi_errno = mm_cq_complete(car);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
  bad:
    MPIR_ERR_SETANDJUMP3(mpi_errno, MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d",
                         vc->lpid, MM_PKT_VERSION, MM_PKT_RTS);
}
