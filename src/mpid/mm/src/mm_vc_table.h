/*
 * The VC table as the engine's hot paths read it: every send and every blocking receive
 * looks its peer's VC up, and for a rank of this job that is one indexed load, inline.
 * Private to src/ (methods use mm_vc_at, mm_vc.h), so the table's layout stays the
 * engine's own.
 */
#ifndef MM_VC_TABLE_H_INCLUDED
#define MM_VC_TABLE_H_INCLUDED

extern mm_vc_t *mm_world_vcs;   /* lpid 0..MPIR_Process.size-1 (mm_vc.c) */

static inline mm_vc_t *mm_vc_lookup_fast(int lpid)
{
    return likely(lpid < MPIR_Process.size) ? &mm_world_vcs[lpid] : mm_vc_dyn_at(lpid);
}

#endif /* MM_VC_TABLE_H_INCLUDED */
