/*
 * mm device: prototypes of the out-of-line ADI3 entry points that MPIR calls.
 *
 * Included at the end of mpidpre.h. At that point MPIR_Comm, MPIR_Request, MPIR_Win,
 * MPIR_Info, MPIR_Group and MPIR_Datatype are only forward-declared, so they appear here as
 * pointers; MPIR_Op, MPIR_Errflag_t and MPID_Progress_state are complete. Entry points that
 * mpidpost.h defines inline (wait/test, the anysource queries, async progress thread, the
 * persistent and partitioned free hooks) and the collectives (mpid_coll.h) are not listed.
 *
 * Element counts are MPI_Aint, MPICH's internal count type, also for RMA and matched receives:
 * the classic bindings pass int, but the large-count (_c) bindings and MPIR's internal callers
 * pass MPI_Count or MPI_Aint, which an int parameter would truncate. The partitioned inits
 * keep the MPI_Count their binding receives. disp_unit stays int, as MPIR_Win stores it.
 */

#ifndef MPID_PROTO_H_INCLUDED
#define MPID_PROTO_H_INCLUDED

/* init/finalize */
int MPID_Init(int requested, int *provided);
int MPID_InitCompleted(void);
int MPID_Finalize(void);
int MPID_Abort(MPIR_Comm *comm, int mpi_errno, int exit_code, const char *error_msg);

/* pt2pt */
int MPID_Send(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
              MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Isend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
               MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Ssend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
               MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Issend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Rsend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
               MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Irsend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Send_coll(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                   MPIR_Comm *comm, int context_offset, MPIR_Request **request,
                   MPIR_Errflag_t *errflag);
int MPID_Isend_coll(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                    MPIR_Comm *comm, int context_offset, MPIR_Request **request,
                    MPIR_Errflag_t *errflag);
int MPID_Recv(void *buf, MPI_Aint count, MPI_Datatype datatype, int source, int tag,
              MPIR_Comm *comm, int context_offset, MPI_Status *status, MPIR_Request **request);
int MPID_Irecv(void *buf, MPI_Aint count, MPI_Datatype datatype, int source, int tag,
               MPIR_Comm *comm, int context_offset, MPIR_Request **request);

/* probe and matched probe/receive */
int MPID_Probe(int source, int tag, MPIR_Comm *comm, int context_offset, MPI_Status *status);
int MPID_Iprobe(int source, int tag, MPIR_Comm *comm, int context_offset, int *flag,
                MPI_Status *status);
int MPID_Mprobe(int source, int tag, MPIR_Comm *comm, int context_offset, MPIR_Request **message,
                MPI_Status *status);
int MPID_Improbe(int source, int tag, MPIR_Comm *comm, int context_offset, int *flag,
                 MPIR_Request **message, MPI_Status *status);
int MPID_Mrecv(void *buf, MPI_Aint count, MPI_Datatype datatype, MPIR_Request *message,
               MPI_Status *status, MPIR_Request **request);
int MPID_Imrecv(void *buf, MPI_Aint count, MPI_Datatype datatype, MPIR_Request *message,
                MPIR_Request **request);

/* cancel */
int MPID_Cancel_send(MPIR_Request *sreq);
int MPID_Cancel_recv(MPIR_Request *rreq);

/* persistent pt2pt */
int MPID_Send_init(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                   MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Ssend_init(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                    MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Rsend_init(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                    MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Bsend_init(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                    MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Recv_init(void *buf, MPI_Aint count, MPI_Datatype datatype, int source, int tag,
                   MPIR_Comm *comm, int context_offset, MPIR_Request **request);
int MPID_Startall(int count, MPIR_Request *requests[]);

/* partitioned */
int MPID_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPIR_Comm *comm, MPIR_Info *info, MPIR_Request **request);
int MPID_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPIR_Comm *comm, MPIR_Info *info, MPIR_Request **request);
int MPID_Pready_range(int partition_low, int partition_high, MPIR_Request *sreq);
int MPID_Pready_list(int length, const int array_of_partitions[], MPIR_Request *sreq);
int MPID_Parrived(MPIR_Request *rreq, int partition, int *flag);

/* progress */
void MPID_Progress_start(MPID_Progress_state *state);
int MPID_Progress_wait(MPID_Progress_state *state);
void MPID_Progress_end(MPID_Progress_state *state);
int MPID_Progress_test(MPID_Progress_state *state);
int MPID_Progress_poke(void);

/* requests */
int MPID_Request_complete(MPIR_Request *req);
void MPID_Request_create_hook(MPIR_Request *req);
void MPID_Request_free_hook(MPIR_Request *req);
void MPID_Request_destroy_hook(MPIR_Request *req);

/* comm hooks and lpids */
int MPID_Comm_commit_pre_hook(MPIR_Comm *comm);
int MPID_Comm_commit_post_hook(MPIR_Comm *comm);
int MPID_Comm_free_hook(MPIR_Comm *comm);
int MPID_Comm_set_hints(MPIR_Comm *comm, MPIR_Info *info);
int MPID_Comm_get_lpid(MPIR_Comm *comm, int idx, uint64_t *lpid, bool is_remote);
int MPID_Intercomm_exchange_map(MPIR_Comm *local_comm, int local_leader, MPIR_Comm *peer_comm,
                                int remote_leader, int *remote_size, uint64_t **remote_lpids,
                                int *is_low_group);
int MPID_Create_intercomm_from_lpids(MPIR_Comm *newcomm, int size, const uint64_t lpids[]);

/* node ids */
int MPID_Get_node_id(MPIR_Comm *comm, int rank, int *id);

/* windows and window memory */
int MPID_Win_create(void *base, MPI_Aint size, int disp_unit, MPIR_Info *info, MPIR_Comm *comm,
                    MPIR_Win **win);
int MPID_Win_allocate(MPI_Aint size, int disp_unit, MPIR_Info *info, MPIR_Comm *comm, void *baseptr,
                      MPIR_Win **win);
int MPID_Win_allocate_shared(MPI_Aint size, int disp_unit, MPIR_Info *info, MPIR_Comm *comm,
                             void *baseptr, MPIR_Win **win);
int MPID_Win_create_dynamic(MPIR_Info *info, MPIR_Comm *comm, MPIR_Win **win);
int MPID_Win_attach(MPIR_Win *win, void *base, MPI_Aint size);
int MPID_Win_detach(MPIR_Win *win, const void *base);
int MPID_Win_free(MPIR_Win **win);
int MPID_Win_shared_query(MPIR_Win *win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr);
int MPID_Win_get_info(MPIR_Win *win, MPIR_Info **info_used);
int MPID_Win_set_info(MPIR_Win *win, MPIR_Info *info);
void *MPID_Alloc_mem(MPI_Aint size, MPIR_Info *info);
int MPID_Free_mem(void *base);

/* RMA ops */
int MPID_Put(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
             MPI_Datatype target_datatype, MPIR_Win *win);
int MPID_Get(void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
             MPI_Datatype target_datatype, MPIR_Win *win);
int MPID_Accumulate(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPIR_Win *win);
int MPID_Get_accumulate(const void *origin_addr, MPI_Aint origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, MPI_Aint result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Aint target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPIR_Win *win);
int MPID_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPIR_Win *win);
int MPID_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPIR_Win *win);
/* MPI_Rmw / MPI_Rmw2 (rma/mm_rma_rmw.c); op is an MPI_RMW_* / MPI_RMW2_* constant */
int MPID_Rmw(const void *operand_addr, int count, MPI_Datatype datatype, void *result_addr,
             int target_rank, MPI_Aint target_disp, int assert, int op, MPIR_Win *win);
int MPID_Rmw2(const void *operand_addr, int count, MPI_Datatype datatype,
              const void *operand2_addr, void *result_addr, int target_rank,
              MPI_Aint target_disp, int assert, int op, MPIR_Win *win);
int MPID_Rput(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
              MPI_Datatype target_datatype, MPIR_Win *win, MPIR_Request **request);
int MPID_Rget(void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
              MPI_Datatype target_datatype, MPIR_Win *win, MPIR_Request **request);
int MPID_Raccumulate(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPIR_Win *win,
                     MPIR_Request **request);
int MPID_Rget_accumulate(const void *origin_addr, MPI_Aint origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, MPI_Aint result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Aint target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPIR_Win *win, MPIR_Request **request);

/* RMA sync */
int MPID_Win_fence(int assert, MPIR_Win *win);
int MPID_Win_post(MPIR_Group *group, int assert, MPIR_Win *win);
int MPID_Win_start(MPIR_Group *group, int assert, MPIR_Win *win);
int MPID_Win_complete(MPIR_Win *win);
int MPID_Win_wait(MPIR_Win *win);
int MPID_Win_test(MPIR_Win *win, int *flag);
int MPID_Win_lock(int lock_type, int rank, int assert, MPIR_Win *win);
int MPID_Win_unlock(int rank, MPIR_Win *win);
int MPID_Win_lock_all(int assert, MPIR_Win *win);
int MPID_Win_unlock_all(MPIR_Win *win);
int MPID_Win_flush(int rank, MPIR_Win *win);
int MPID_Win_flush_all(MPIR_Win *win);
int MPID_Win_flush_local(int rank, MPIR_Win *win);
int MPID_Win_flush_local_all(MPIR_Win *win);
int MPID_Win_sync(MPIR_Win *win);

/* dynamic processes */
int MPID_Open_port(MPIR_Info *info, char *port_name);
int MPID_Close_port(const char *port_name);
int MPID_Comm_accept(const char *port_name, MPIR_Info *info, int root, MPIR_Comm *comm,
                     MPIR_Comm **newcomm);
int MPID_Comm_connect(const char *port_name, MPIR_Info *info, int root, MPIR_Comm *comm,
                      MPIR_Comm **newcomm);
int MPID_Comm_disconnect(MPIR_Comm *comm);
int MPID_Comm_spawn_multiple(int count, char *commands[], char **argvs[], const int maxprocs[],
                             MPIR_Info *infos[], int root, MPIR_Comm *comm, MPIR_Comm **intercomm,
                             int errcodes[]);
int MPID_Get_universe_size(int *universe_size);

/* ULFM: MPIX_Comm_revoke, _failure_ack, _failure_get_acked; MPIX_Comm_agree and _shrink */
int MPID_Comm_revoke(MPIR_Comm *comm, int is_remote);
int MPID_Comm_failure_ack(MPIR_Comm *comm);
int MPID_Comm_failure_get_acked(MPIR_Comm *comm, MPIR_Group **failed_group);
int MPID_Comm_get_all_failed_procs(MPIR_Comm *comm, MPIR_Group **failed_group, int tag);

/* datatype and op hooks */
int MPID_Type_commit_hook(MPIR_Datatype *type);
int MPID_Type_free_hook(MPIR_Datatype *type);
int MPID_Op_commit_hook(MPIR_Op *op);
int MPID_Op_free_hook(MPIR_Op *op);

/* misc */
int MPID_Get_processor_name(char *name, int namelen, int *resultlen);
MPI_Aint MPID_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint MPID_Aint_diff(MPI_Aint addr1, MPI_Aint addr2);

#endif /* MPID_PROTO_H_INCLUDED */
