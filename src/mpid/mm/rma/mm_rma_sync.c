/*
 * mm device: RMA synchronization (fence, PSCW, passive-target locks, flush, sync).
 *
 * A stub until the one-sided communication step: no window can exist yet (mm_win.c), so these
 * are unreachable through the MPI interface; they fail with **notimpl all the same.
 */

#include "mpidimpl.h"

int MPID_Win_fence(int assert, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_post(MPIR_Group *group, int assert, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_start(MPIR_Group *group, int assert, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_complete(MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_wait(MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_test(MPIR_Win *win, int *flag)
{
    return mm_notimpl(__func__);
}

int MPID_Win_lock(int lock_type, int rank, int assert, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_unlock(int rank, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_lock_all(int assert, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_unlock_all(MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_flush(int rank, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_flush_all(MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_flush_local(int rank, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_flush_local_all(MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_sync(MPIR_Win *win)
{
    return mm_notimpl(__func__);
}
