/*
 * The self method: messages a process sends to itself. Writes are queued and delivered
 * from progress (never from inside post_write, so the engine is never re-entered while it
 * is still posting); delivery is one copy from the sender's cursor to the receiver's.
 * Everything fits one file: there is no wire, no connection and no resource to manage.
 */
#include "mpidimpl.h"

static mm_car_t *self_head, *self_tail;        /* written CAR chains not yet delivered */

static int self_init(char *card)
{
    self_head = self_tail = NULL;
    return MPI_SUCCESS;
}

static int self_finalize(void)
{
    MPIR_Assert(self_head == NULL);
    return MPI_SUCCESS;
}

static int self_can_reach(int lpid, const char *card)
{
    return lpid == MPIR_Process.rank;
}

static int self_connect(mm_vc_t * vc, const char *card)
{
    return MPI_SUCCESS;
}

static int self_post_write(mm_car_t * head)
{
    head->qnext = NULL;
    if (self_tail)
        self_tail->qnext = head;
    else
        self_head = head;
    self_tail = head;
    return MPI_SUCCESS;
}

static int self_post_read(mm_car_t * car)
{
    car->vc->rdata = car;
    return MPI_SUCCESS;
}

/* Deliver one queued chain: the envelope, then the payload straight into the read CAR. */
static int self_deliver(mm_car_t * head)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = head->vc;
    mm_car_t *data = head->next;

    vc->rhead.pkt = head->pkt;
    vc->rdata = NULL;
    mpi_errno = mm_cq_complete(&vc->rhead);
    MPIR_ERR_CHECK(mpi_errno);
    if (data) {
        mm_car_t *rdata = vc->rdata;
        MPIR_Assert(rdata && mm_buf_remaining(&rdata->buf) == mm_buf_remaining(&data->buf));
        mm_buf_transfer(&rdata->buf, &data->buf, mm_buf_remaining(&data->buf));
        vc->rdata = NULL;
        mpi_errno = mm_cq_complete(rdata);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = mm_cq_complete_chain(head);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int self_progress(int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;

    while (self_head) {
        mm_car_t *head = self_head;
        self_head = head->qnext;
        if (self_head == NULL)
            self_tail = NULL;
        mpi_errno = self_deliver(head);
        MPIR_ERR_CHECK(mpi_errno);
        *made_progress = 1;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Only this process queues self work, and progress delivers it at once. */
static int self_wait_fd(void)
{
    return -1;
}

static int self_close(mm_vc_t * vc)
{
    int made_progress = 0;
    return self_progress(&made_progress);
}

const mm_method_t mm_self_method = {
    .name = "self",
    .eager_limit = 65536,
    .caps = 0,
    .init = self_init,
    .finalize = self_finalize,
    .can_reach = self_can_reach,
    .connect = self_connect,
    .post_write = self_post_write,
    .post_read = self_post_read,
    .progress = self_progress,
    .wait_fd = self_wait_fd,
    .close = self_close,
};
