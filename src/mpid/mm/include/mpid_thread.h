/*
 * mm device: threads and critical sections.
 *
 * mm runs with MPICH's global thread granularity, so the generic implementation in
 * src/mpid/common/thread (MPL threads plus a recursion-counting mutex) is all it needs. This
 * header only gives those MPIDU_ names the MPID_ spelling that MPIR uses.
 */

#ifndef MPID_THREAD_H_INCLUDED
#define MPID_THREAD_H_INCLUDED

#include "mpidu_thread_fallback.h"

typedef MPIDU_Thread_mutex_t MPID_Thread_mutex_t;
typedef MPIDU_Thread_cond_t MPID_Thread_cond_t;
typedef MPIDU_Thread_id_t MPID_Thread_id_t;
typedef MPIDU_Thread_func_t MPID_Thread_func_t;

/* Named critical sections: only the category matching the configured granularity (GLOBAL for
 * mm) does anything; the others expand to nothing. */
#define MPID_THREAD_CS_ENTER MPIDU_THREAD_CS_ENTER
#define MPID_THREAD_CS_EXIT MPIDU_THREAD_CS_EXIT
#define MPID_THREAD_CS_YIELD MPIDU_THREAD_CS_YIELD
#define MPID_THREAD_ASSERT_IN_CS MPIDU_THREAD_ASSERT_IN_CS

#define MPID_Thread_init MPIDU_Thread_init
#define MPID_Thread_finalize MPIDU_Thread_finalize
#define MPID_Thread_create MPIDU_Thread_create
#define MPID_Thread_exit MPIDU_Thread_exit
#define MPID_Thread_self MPIDU_Thread_self
#define MPID_Thread_join MPIDU_Thread_join
#define MPID_Thread_same MPIDU_Thread_same
#define MPID_Thread_yield MPIDU_Thread_yield

#define MPID_Thread_mutex_create MPIDU_Thread_mutex_create
#define MPID_Thread_mutex_destroy MPIDU_Thread_mutex_destroy
/* MPIR locks with two arguments; the fallback also takes a priority, which only the Argobots
 * thread package honours. Direct lockers (error ring, MPI_T) ask for high priority so that they
 * win over a thread re-acquiring after a yield, which the fallback does at low priority. */
#define MPID_Thread_mutex_lock(mutex_ptr_, err_ptr_) \
    MPIDU_Thread_mutex_lock(mutex_ptr_, err_ptr_, MPL_THREAD_PRIO_HIGH)
#define MPID_Thread_mutex_unlock MPIDU_Thread_mutex_unlock

#define MPID_Thread_cond_create MPIDU_Thread_cond_create
#define MPID_Thread_cond_destroy MPIDU_Thread_cond_destroy
#define MPID_Thread_cond_wait MPIDU_Thread_cond_wait
#define MPID_Thread_cond_broadcast MPIDU_Thread_cond_broadcast
#define MPID_Thread_cond_signal MPIDU_Thread_cond_signal

#endif /* MPID_THREAD_H_INCLUDED */
