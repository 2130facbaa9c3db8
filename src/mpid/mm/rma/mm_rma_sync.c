/*
 * mm device: RMA synchronization — fence, post/start/complete/wait/test, passive-target
 * locks, flush, sync.
 *
 * Completion is one rule everywhere: an operation is done when its target has answered
 * (mm_rma_ops.c), so every call that must complete operations waits, making progress,
 * until the targets it covers have nothing pending. On top of that:
 *
 *   fence     complete everything, then a barrier: when it returns, every member's
 *             operations of the closing epoch are applied at every target.
 *   start     waits for the POST of every target in its group (post sends one to each
 *             origin); complete completes the operations and sends COMPLETE to each target;
 *             wait/test count the COMPLETEs of the post's group.
 *   lock      LOCK_REQ, and wait for the grant (the target queues requests fairly);
 *             unlock completes the operations, sends UNLOCK and waits for its
 *             acknowledgement, so the target has released the lock when unlock returns.
 *             On a window whose every member maps every other (mm_rma_lockword.c) the
 *             origin takes and gives back the lock itself, in shared memory.
 *             MPI_MODE_NOCHECK skips the messages: the user promises no conflicting lock.
 *   lock_all  a shared lock on every target, the same way.
 *
 * Epoch misuse (an operation or a flush outside the epoch that allows it, nested
 * epochs, unlock without lock) fails with MPI_ERR_RMA_SYNC naming what was wrong.
 */

#include "mm_rma.h"

/* Progress until cond(win, arg) is false. */
static int wait_while(MPIR_Win * win, int (*cond) (MPIR_Win *, int), int arg)
{
    int mpi_errno = MPI_SUCCESS;
    MPID_Progress_state state;

    if (!cond(win, arg))
        return MPI_SUCCESS;
    MPID_Progress_start(&state);
    while (cond(win, arg)) {
        mpi_errno = MPID_Progress_wait(&state);
        if (mpi_errno)
            break;
    }
    MPID_Progress_end(&state);
    return mpi_errno;
}

static int ops_pending(MPIR_Win * win, int rank)
{
    return rank < 0 ? win->dev.pending > 0 : win->dev.peers[rank].pending > 0;
}

/* A target reported an operation it could not apply: the sync call that covers it says so. */
static int take_error(MPIR_Win * win)
{
    int err = win->dev.error;
    win->dev.error = MPI_SUCCESS;
    return err;
}

static int wait_ops(MPIR_Win * win, int rank)
{
    int mpi_errno;

    if (ops_pending(win, rank))
        mpi_errno = wait_while(win, ops_pending, rank);
    else
        mpi_errno = mm_rma_direct_tick();       /* it polled nothing: see mm_rma.h */
    return mpi_errno ? mpi_errno : take_error(win);
}

int mm_rma_flush_wait(MPIR_Win * win, int rank)
{
    /* Stores made directly into a node segment (mm_rma_direct.c) are complete; make them
     * visible before whatever message or barrier ends the epoch, and, as an epoch's end
     * is a synchronization of the window, any stores the user made in its shared memory. */
    win->dev.acc_unfenced = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return wait_ops(win, rank);
}

int mm_rma_flush_ops(MPIR_Win * win, int rank)
{
    /* Order our direct stores before this process's later loads too (an origin's Get after
     * our flush, and ours after its flush, must not both miss the other's Put). Only RMA
     * calls since the last fence matter here, and lock-free atomics need none where a
     * locked instruction is a full barrier (mm_acc_reader_exit). */
    if (win->dev.acc_unfenced) {
        win->dev.acc_unfenced = 0;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    return wait_ops(win, rank);
}

/* --- fence --- */

int MPID_Win_fence(int assert, MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;

    if (win->dev.access != MM_ACCESS_NONE && win->dev.access != MM_ACCESS_FENCE &&
        win->dev.access != MM_ACCESS_FENCE_OPEN)
        return mm_rma_sync_error(__func__, "MPI_Win_fence inside a PSCW or lock epoch");
    if (win->dev.exposure == MM_EXPOSE_POST)
        return mm_rma_sync_error(__func__, "MPI_Win_fence inside a post/wait exposure epoch");
    if ((assert & MPI_MODE_NOPRECEDE) && win->dev.access == MM_ACCESS_FENCE)
        return mm_rma_sync_error(__func__, "MPI_MODE_NOPRECEDE after RMA operations");

    mpi_errno = mm_rma_flush_wait(win, -1);
    MPIR_ERR_CHECK(mpi_errno);
    /* With NOPRECEDE nobody has operations to complete, but the barrier still keeps any
     * member from accessing a window whose owner has not reached the fence yet. */
    mpi_errno = MPIR_Barrier(win->comm_ptr, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (assert & MPI_MODE_NOSUCCEED) {
        win->dev.access = MM_ACCESS_NONE;
        win->dev.exposure = MM_EXPOSE_NONE;
    } else {
        win->dev.access = MM_ACCESS_FENCE_OPEN;
        win->dev.exposure = MM_EXPOSE_FENCE;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* An access or exposure epoch other than fence may begin: a fence epoch without
 * operations simply ends. */
static int fence_yields(MPIR_Win * win)
{
    if (win->dev.access == MM_ACCESS_FENCE_OPEN)
        win->dev.access = MM_ACCESS_NONE;
    return win->dev.access == MM_ACCESS_NONE;
}

/* --- post / start / complete / wait --- */

/* The window ranks of a group's members. */
static int group_ranks(MPIR_Win * win, MPIR_Group * group, int **ranks_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Group *win_group = NULL;
    int n = group->size, *in = NULL, *out = NULL;

    in = MPL_malloc(MPL_MAX(n, 1) * sizeof(int), MPL_MEM_RMA);
    out = MPL_malloc(MPL_MAX(n, 1) * sizeof(int), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(in == NULL || out == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "RMA group ranks");
    for (int i = 0; i < n; i++)
        in[i] = i;
    mpi_errno = MPIR_Comm_group_impl(win->comm_ptr, &win_group);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Group_translate_ranks_impl(group, n, in, win_group, out);
    MPIR_ERR_CHECK(mpi_errno);
    for (int i = 0; i < n; i++)
        MPIR_ERR_CHKANDJUMP1(out[i] == MPI_UNDEFINED || out[i] < 0, mpi_errno, MPI_ERR_GROUP,
                             "**mm|rmagroup", "**mm|rmagroup %d", i);
    *ranks_out = out;
    out = NULL;

  fn_exit:
    if (win_group)
        MPIR_Group_release(win_group);
    MPL_free(in);
    MPL_free(out);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_post(MPIR_Group * group, int assert, MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    int *ranks = NULL;

    if (win->dev.exposure == MM_EXPOSE_POST)
        return mm_rma_sync_error(__func__, "MPI_Win_post inside a post/wait exposure epoch");
    mpi_errno = group_ranks(win, group, &ranks);
    MPIR_ERR_CHECK(mpi_errno);
    win->dev.exposure = MM_EXPOSE_POST;
    win->dev.post_n = group->size;
    /* With NOCHECK the matching start does not wait for us (the user synchronized). */
    if (!(assert & MPI_MODE_NOCHECK))
        for (int i = 0; i < group->size; i++) {
            mpi_errno = mm_rma_send_ctrl(win, ranks[i], MM_RMA_POST, 0);
            MPIR_ERR_CHECK(mpi_errno);
        }

  fn_exit:
    MPL_free(ranks);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int posts_missing(MPIR_Win * win, int unused)
{
    for (int i = 0; i < win->dev.start_n; i++)
        if (win->dev.peers[win->dev.start_ranks[i]].posts == 0)
            return 1;
    return 0;
}

int MPID_Win_start(MPIR_Group * group, int assert, MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;

    if (!fence_yields(win))
        return mm_rma_sync_error(__func__, "MPI_Win_start inside another access epoch");
    mpi_errno = group_ranks(win, group, &win->dev.start_ranks);
    MPIR_ERR_CHECK(mpi_errno);
    win->dev.start_n = group->size;
    win->dev.access = MM_ACCESS_PSCW;
    if (!(assert & MPI_MODE_NOCHECK)) {
        mpi_errno = wait_while(win, posts_missing, 0);
        MPIR_ERR_CHECK(mpi_errno);
        for (int i = 0; i < win->dev.start_n; i++)
            win->dev.peers[win->dev.start_ranks[i]].posts--;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_complete(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS, err;

    if (win->dev.access != MM_ACCESS_PSCW)
        return mm_rma_sync_error(__func__, "MPI_Win_complete without MPI_Win_start");
    err = mm_rma_flush_wait(win, -1);
    /* Even if an operation failed, the targets must learn that this epoch is over. */
    for (int i = 0; i < win->dev.start_n; i++) {
        mpi_errno = mm_rma_send_ctrl(win, win->dev.start_ranks[i], MM_RMA_COMPLETE, 0);
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPL_free(win->dev.start_ranks);
    win->dev.start_ranks = NULL;
    win->dev.start_n = 0;
    win->dev.access = MM_ACCESS_NONE;
    mpi_errno = err;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int completes_missing(MPIR_Win * win, int unused)
{
    return win->dev.completes < win->dev.post_n;
}

static void exposure_end(MPIR_Win * win)
{
    win->dev.completes -= win->dev.post_n;
    win->dev.post_n = 0;
    win->dev.exposure = MM_EXPOSE_NONE;
}

int MPID_Win_wait(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;

    if (win->dev.exposure != MM_EXPOSE_POST)
        return mm_rma_sync_error(__func__, "MPI_Win_wait without MPI_Win_post");
    mpi_errno = wait_while(win, completes_missing, 0);
    if (mpi_errno == MPI_SUCCESS)
        exposure_end(win);
    return mpi_errno;
}

int MPID_Win_test(MPIR_Win * win, int *flag)
{
    int mpi_errno = MPI_SUCCESS;

    if (win->dev.exposure != MM_EXPOSE_POST)
        return mm_rma_sync_error(__func__, "MPI_Win_test without MPI_Win_post");
    if (completes_missing(win, 0)) {
        mpi_errno = MPID_Progress_test(NULL);
        MPIR_ERR_CHECK(mpi_errno);
    }
    *flag = !completes_missing(win, 0);
    if (*flag)
        exposure_end(win);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* --- passive target --- */

static int peer_in_state(MPIR_Win * win, int rank, int state)
{
    return win->dev.peers[rank].lock == state;
}

static int lock_waiting(MPIR_Win * win, int rank)
{
    return peer_in_state(win, rank, MM_PEER_LOCK_WAIT);
}

static int unlock_waiting(MPIR_Win * win, int rank)
{
    return peer_in_state(win, rank, MM_PEER_UNLOCK_WAIT);
}

static int lock_one(MPIR_Win * win, int rank, int type, int nocheck)
{
    int mpi_errno = MPI_SUCCESS;
    mm_win_peer_t *peer = &win->dev.peers[rank];

    peer->lock_type = type;
    peer->lock_nocheck = nocheck;
    if (nocheck) {
        peer->lock = MM_PEER_LOCKED;
        return MPI_SUCCESS;
    }
    if (peer->lockword) {
        mpi_errno = mm_rma_lockword_acquire(peer->lockword, type);
        MPIR_ERR_CHECK(mpi_errno);
        peer->lock = MM_PEER_LOCKED;
        goto fn_exit;
    }
    peer->lock = MM_PEER_LOCK_WAIT;
    mpi_errno = mm_rma_send_ctrl(win, rank, MM_RMA_LOCK_REQ, (uint64_t) type);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Complete the operations to rank and give its lock back. */
static int unlock_one(MPIR_Win * win, int rank)
{
    int mpi_errno = MPI_SUCCESS, err;
    mm_win_peer_t *peer = &win->dev.peers[rank];

    err = mm_rma_flush_wait(win, rank);
    if (peer->lock_nocheck) {
        peer->lock = MM_PEER_UNLOCKED;
    } else if (peer->lockword) {
        /* flush_wait fenced our stores into the segment: they are visible before this */
        mm_rma_lockword_release(peer->lockword, peer->lock_type);
        peer->lock = MM_PEER_UNLOCKED;
    } else {
        peer->lock = MM_PEER_UNLOCK_WAIT;
        mpi_errno = mm_rma_send_ctrl(win, rank, MM_RMA_UNLOCK, (uint64_t) peer->lock_type);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = err;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_lock(int lock_type, int rank, int assert, MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;

    if (win->dev.access == MM_ACCESS_LOCK_ALL || !(win->dev.access == MM_ACCESS_LOCK ||
                                                   fence_yields(win)))
        return mm_rma_sync_error(__func__, "MPI_Win_lock inside another access epoch");
    if (win->dev.peers[rank].lock != MM_PEER_UNLOCKED)
        return mm_rma_sync_error(__func__, "MPI_Win_lock of a target already locked");
    win->dev.access = MM_ACCESS_LOCK;
    win->dev.nlocks++;
    mpi_errno = lock_one(win, rank, lock_type, assert & MPI_MODE_NOCHECK);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = wait_while(win, lock_waiting, rank);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_unlock(int rank, MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS, err;

    if (win->dev.access != MM_ACCESS_LOCK || win->dev.peers[rank].lock != MM_PEER_LOCKED)
        return mm_rma_sync_error(__func__, "MPI_Win_unlock of a target that is not locked");
    err = unlock_one(win, rank);
    mpi_errno = wait_while(win, unlock_waiting, rank);
    MPIR_ERR_CHECK(mpi_errno);
    if (--win->dev.nlocks == 0)
        win->dev.access = MM_ACCESS_NONE;
    mpi_errno = err;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int any_peer_in_state(MPIR_Win * win, int state)
{
    for (int r = 0; r < win->comm_ptr->local_size; r++)
        if (win->dev.peers[r].lock == state)
            return 1;
    return 0;
}

static int any_lock_waiting(MPIR_Win * win, int unused)
{
    return any_peer_in_state(win, MM_PEER_LOCK_WAIT);
}

static int any_unlock_waiting(MPIR_Win * win, int unused)
{
    return any_peer_in_state(win, MM_PEER_UNLOCK_WAIT);
}

int MPID_Win_lock_all(int assert, MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;

    if (!fence_yields(win))
        return mm_rma_sync_error(__func__, "MPI_Win_lock_all inside another access epoch");
    win->dev.access = MM_ACCESS_LOCK_ALL;
    for (int r = 0; r < win->comm_ptr->local_size; r++) {
        mpi_errno = lock_one(win, r, MPI_LOCK_SHARED, assert & MPI_MODE_NOCHECK);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = wait_while(win, any_lock_waiting, 0);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_unlock_all(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS, err = MPI_SUCCESS;

    if (win->dev.access != MM_ACCESS_LOCK_ALL)
        return mm_rma_sync_error(__func__, "MPI_Win_unlock_all without MPI_Win_lock_all");
    for (int r = 0; r < win->comm_ptr->local_size; r++) {
        int e = unlock_one(win, r);
        if (e && !err)
            err = e;
    }
    mpi_errno = wait_while(win, any_unlock_waiting, 0);
    MPIR_ERR_CHECK(mpi_errno);
    win->dev.access = MM_ACCESS_NONE;
    mpi_errno = err;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Flushes belong to passive-target epochs. */
static int flush_allowed(MPIR_Win * win, int rank)
{
    if (win->dev.access == MM_ACCESS_LOCK_ALL)
        return 1;
    if (win->dev.access != MM_ACCESS_LOCK)
        return 0;
    return rank < 0 || win->dev.peers[rank].lock == MM_PEER_LOCKED;
}

static int flush(MPIR_Win * win, int rank, const char *fn)
{
    if (!flush_allowed(win, rank))
        return mm_rma_sync_error(fn, "a flush outside a passive-target epoch to its target");
    return mm_rma_flush_ops(win, rank);
}

int MPID_Win_flush(int rank, MPIR_Win * win)
{
    return flush(win, rank, __func__);
}

int MPID_Win_flush_all(MPIR_Win * win)
{
    return flush(win, -1, __func__);
}

/* Local completion: the origin buffers may be reused. Operations complete only as a
 * whole here (the answer), so this is the same wait as a flush. */
int MPID_Win_flush_local(int rank, MPIR_Win * win)
{
    return flush(win, rank, __func__);
}

int MPID_Win_flush_local_all(MPIR_Win * win)
{
    return flush(win, -1, __func__);
}

int MPID_Win_sync(MPIR_Win * win)
{
    /* The window is in the unified model: a full memory barrier makes this process's
     * stores visible to, and others' stores visible from, the window's shared memory. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}
