/*
 * pg_shim.h
 *	  The few backend symbols that gpusort's engines and GPU session use,
 *	  for the standalone tests of test/sort/cpu/ and test/tree/cpu/ (see
 *	  pg_shim.c).
 */
#ifndef GS_TEST_PG_SHIM_H
#define GS_TEST_PG_SHIM_H

#include "postgres.h"

/* what the test can see of the shim's elog.c */
extern int	pg_shim_warnings;	/* WARNINGs reported */
extern int	pg_shim_errors;		/* ERRORs thrown by ereport/elog */
extern int	pg_shim_cancels;	/* ERRORs thrown by ProcessInterrupts */
extern int	pg_shim_benign;		/* interrupts it served without throwing */
extern char pg_shim_last_msg[512];	/* the message of the last report */

/* runs the callbacks registered on "the" memory context, newest first */
extern void pg_shim_reset_context(void);

/*
 * The row gpusort_gpu_info() formed last: the shim's heap_form_tuple keeps
 * its values here, and its text columns are plain C strings.
 */
#define PG_SHIM_INFO_NATTS	11
extern Datum pg_shim_info_values[PG_SHIM_INFO_NATTS];
extern bool pg_shim_info_nulls[PG_SHIM_INFO_NATTS];

/*
 * A fresh DataDir under /tmp (name_XXXXXX), for the session's slot files;
 * and its removal with whatever the session left in it.
 */
extern void pg_shim_datadir_create(const char *name);
extern void pg_shim_datadir_remove(void);

#endif							/* GS_TEST_PG_SHIM_H */
