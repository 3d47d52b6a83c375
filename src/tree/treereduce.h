/*-------------------------------------------------------------------------
 *
 * treereduce.h
 *	  tree_reduce(): what the SQL surface (tree_reduce.c) gives the module
 *	  entry (gpusort.c): its settings.
 *
 * The layers below the SQL surface have headers of their own: the GPU path
 * (tree_gpu.h), the tokenizer (xmltok.h; its backend options in
 * xmltok_backend.h), the contraction (contract.h), the ops (treeops.h) and
 * the representation (treerep.h).  None of them includes this one.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_TREEREDUCE_H
#define GPUSORT_TREEREDUCE_H

/* gpusort.tree_threads: CPU threads one large document may use */
extern int	gpusort_tree_threads;

/* Defines tree_reduce's settings; called from _PG_init */
extern void gpusort_tree_init(void);

#endif							/* GPUSORT_TREEREDUCE_H */
